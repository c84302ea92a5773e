"""privest's heavy hitters (PEM, TreeHist, SFP) against pure-LDP's servers: with every frequency oracle exact, both
find the same top items in the same order on the same users.

The oracles are where the two libraries cannot share reports (pure-LDP hashes the item's bit string, privest the
decimal string of the integer); what is left to compare is each protocol's own part, the split of the users and the
server's search (prefix extension, the prefix tree, the fragment puzzles). pure-LDP gets an oracle that reports its
input and counts exactly; privest GRR at eps = 700 per report, whose reports are the users' values (a flip has
probability below e^-340) and whose estimates are the exact shares of each level's users. The users: five heavy
items of 12 bits (20,000 down to 1,250 users, halving) and ten light ones (50 users each); top = 5. The heavy five,
in order, are what both must find (the groups' sampling moves a count by about 1%, far from the factor 2 between
neighbours).
"""

from collections import Counter

import numpy as np
import pytest
from conformance import SEED, peer_seed
from pure_ldp.core import FreqOracleClient, FreqOracleServer
from pure_ldp.heavy_hitters.apple_sfp import SFPClient, SFPServer
from pure_ldp.heavy_hitters.prefix_extending import PEMClient, PEMServer
from pure_ldp.heavy_hitters.treehistogram import TreeHistClient, TreeHistServer

from privest import heavy_hitters, rng_for

BITS, STEP, TOP, EPS = 12, 2, 5, 700.0


class ExactClient(FreqOracleClient):
    """A pure-LDP oracle client that reports its input as it is."""

    sketch_based = True  # SFP's client and server then pass the fragment strings on unmapped

    def __init__(self):
        self.epsilon, self.d, self.index_mapper = EPS, None, None

    def update_params(self, epsilon=None, d=None, index_mapper=None):
        pass

    def privatise(self, data):
        return data


class ExactServer(FreqOracleServer):
    """A pure-LDP oracle server that counts its inputs exactly."""

    sketch_based = True

    def __init__(self):
        self.epsilon, self.d, self.index_mapper, self.n, self.counts = EPS, None, None, 0, Counter()

    def update_params(self, epsilon=None, d=None, index_mapper=None):
        pass

    def reset(self):
        self.n, self.counts = 0, Counter()

    def aggregate(self, data):
        self.counts[data] += 1
        self.n += 1

    def estimate(self, data, suppress_warnings=False):
        return float(self.counts[data])

    def estimate_all(self, data_list, suppress_warnings=False, normalization=0):
        return np.array([self.counts[data] for data in data_list], dtype=np.float64)


def users() -> tuple[np.ndarray, list[int]]:
    rng = rng_for(SEED, "peers", "heavy hitters items")
    items = rng.choice(2**BITS, 15, replace=False)
    counts = [20_000, 10_000, 5_000, 2_500, 1_250] + [50] * 10
    values = np.repeat(items, counts).astype(np.uint64)
    return values[rng.permutation(values.size)], items[:TOP].tolist()


def peer_pair(name: str):
    alphabet = {"0", "1"}
    if name == "pem":
        return (PEMClient(EPS, STEP, BITS, STEP, fo_client=ExactClient()),
                PEMServer(EPS, STEP, BITS, STEP, fo_server=ExactServer()))
    if name == "treehist":
        return (TreeHistClient(EPS, STEP, BITS, fo_client=ExactClient()),
                TreeHistServer(EPS, BITS, STEP, fo_server=ExactServer()))
    return (SFPClient(EPS, STEP, BITS, alphabet=alphabet, fo_client=ExactClient()),
            SFPServer(EPS, STEP, BITS, alphabet=alphabet, fo_server=ExactServer()))


@pytest.mark.parametrize("name", ["pem", "treehist", "sfp"])
def test_with_exact_oracles_privest_and_pure_ldp_find_the_same_top_items(name):
    values, heavy = users()
    client, server = peer_pair(name)
    with peer_seed(SEED):
        for value in values.tolist():
            server.aggregate(client.privatise(format(value, f"0{BITS}b")))
        found, frequencies = server.find_heavy_hitters(k=TOP)
    order = np.argsort(-np.asarray(frequencies, dtype=np.float64), kind="stable")[:TOP]
    theirs = [int(found[i], 2) for i in order]
    options = {"start": STEP} if name == "pem" else {}
    protocol = getattr(heavy_hitters, name)(2**BITS, EPS, step=STEP, oracle="grr", **options)
    ours = protocol.run(values, rng_for(SEED, "peers", "heavy hitters", name), top=TOP)
    assert theirs == heavy
    assert ours.items.tolist() == heavy
