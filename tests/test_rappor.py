"""RapporReports: grouping identical bit reports (the oracle: numpy's row-wise unique)."""

import numpy as np
import pytest

from privest.rappor import RapporReports
from privest.sampling import rng_for


@pytest.mark.parametrize("k", [1, 8, 10, 17])
def test_from_bits_groups_as_row_wise_unique_does(k):
    bits = (rng_for(0, "from_bits", k).random((500, k)) < 0.3).astype(np.uint8)
    reports = RapporReports.from_bits(bits, 1.0)
    distinct, counts = np.unique(bits, axis=0, return_counts=True)
    np.testing.assert_array_equal(reports.bits, distinct)
    np.testing.assert_array_equal(reports.counts, counts)
    assert reports.bits.dtype == np.uint8 and reports.n == 500 and reports.k == k
    np.testing.assert_array_equal(reports.bit_sums(), bits.sum(axis=0))


def test_from_bits_of_no_reports_is_empty():
    reports = RapporReports.from_bits(np.zeros((0, 10), dtype=np.uint8), 1.0)
    assert reports.bits.shape == (0, 10) and reports.n == 0


def test_bit_sums_are_exact_integers_for_counts_up_to_the_float_limit():
    rng = rng_for(0, "bit_sums")
    bits = (rng.random((300, 24)) < 0.5).astype(np.uint8)
    counts = rng.integers(0, 2**43, 300)  # every sum below 300 * 2^43 < 2^53
    sums = RapporReports(bits, counts, 1.0).bit_sums()
    assert sums.dtype == np.int64
    np.testing.assert_array_equal(sums, (bits.astype(object) * counts.astype(object)[:, None]).sum(axis=0))
