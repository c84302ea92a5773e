"""Heavy hitters on domains too large to enumerate (pure-LDP's heavy_hitters): PEM, TreeHist and SFP.

A user holds an item in 0..k-1 (k up to 2^64; strings through ``privest.protocols.item_ids``), read as an m-bit word,
m = ceil(log2 k). Each protocol splits the users or the budget over frequency oracles of ``privest.protocols``
(default ``flh``, fast local hashing, as pure-LDP's default OLH; any sketch name of ``by_name``, or a set-valued one
such as ``grr``, ``oue`` or ``olh`` where each level's domain is small), and builds the heavy hitters level by level
from the oracles' unbiased estimates of candidate prefixes or fragments:

- ``pem``: the prefix extending method (Wang, Li, Lopuhaa-Zwakenberg, Skoric and Jha, "Locally differentially
  private heavy hitter identification", IEEE TDSC 2019, arXiv 2017): g groups of users, group i reports
  its prefix of start + (i+1) step bits; the server keeps the top prefixes of each group and extends them by every
  step-bit suffix.
- ``treehist``: TreeHistogram (Bassily, Nissim, Stemmer and Thakurta, NeurIPS 2017, "Practical locally private heavy
  hitters"): half the budget for the prefix of a random level (step bits a level, from the top), half
  for the whole item; the prefix tree is grown level by level, the survivors estimated by the whole-item oracle.
- ``sfp``: Apple's Sequence Fragment Puzzle (Apple Differential Privacy Team 2017, "Learning with privacy at
  scale"): half the budget for the whole item, half for a pair (an 8-bit hash of the item, a random step-bit
  fragment of it); the fragments sharing a hash at every position are put together and the puzzles scored by the
  whole-item oracle.

Every protocol's ``run(values, rng, top)`` gives a ``HeavyHitters`` record (the found items, most frequent first,
and their estimated frequencies as shares of the users); ``precision``, ``recall`` and ``ncr`` (normalised
cumulative rank, Wang et al. 2019, its evaluation metric) score a found list against the true top items. Sampling is
vectorised over users; the loops run over levels and fragment positions only.
"""

from privest.heavy_hitters.base import MAX_CANDIDATES, ORACLES, HeavyHitters
from privest.heavy_hitters.prefix import PEM, TreeHist, pem, treehist
from privest.heavy_hitters.puzzle import SFP, sfp
from privest.heavy_hitters.scores import ncr, precision, recall

__all__ = [
    "MAX_CANDIDATES",
    "ORACLES",
    "PEM",
    "SFP",
    "HeavyHitters",
    "TreeHist",
    "ncr",
    "pem",
    "precision",
    "recall",
    "sfp",
    "treehist",
]
