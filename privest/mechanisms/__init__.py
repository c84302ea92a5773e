"""Matrix mechanisms ``A[x, z] = P(z | x)``: rows are secrets, columns observables, float64, rows summing to 1.

The mechanisms of the free-will paper (k-RR, truncated linear and planar geometric, Shokri et al.) and of the IBU
paper (untruncated linear geometric, linear and planar Laplace, exponential), as decisions.md, section 2, fixes them,
and the privacy checks a researcher asks of a matrix: "is it eps-LDP?", "is it eps*d geo-indistinguishable?".

epsilon of the geometric, Laplace and exponential mechanisms is per unit of distance: per step on {0..k-1}, per km on
a planar ``Grid``.

One family a module, re-exported here (import from ``privest.mechanisms``):

==============  =====================================================================================================
``linear``      k-RR, the linear geometric (truncated and not) and Laplace mechanisms, the exponential mechanism
``planar``      the planar geometric and Laplace mechanisms on a grid, and remapping to a coarser grid
``properties``  LDP and geo-indistinguishability levels and checks, the average mechanism
``lookup``      ``by_name``: a mechanism as a config names it
==============  =====================================================================================================

``check_row_stochastic`` lives in ``privest._checks`` and Shokri et al.'s mechanism in ``privest.shokri``; both are
re-exported here as before.
"""

from privest._checks import check_row_stochastic
from privest.mechanisms.linear import (
    exponential,
    geometric,
    geometric_untruncated,
    krr,
    laplace,
    rappor_flip_probability,
)
from privest.mechanisms.lookup import by_name
from privest.mechanisms.planar import (
    MAX_PLANAR_WINDOW,
    PLANAR_RELATIVE_TAIL,
    planar_geometric,
    planar_geometric_remapped,
    planar_laplace,
    remap_to_grid,
)
from privest.mechanisms.properties import (
    average,
    geo_indistinguishability_level,
    is_geo_indistinguishable,
    is_ldp,
    ldp_level,
)
from privest.shokri import shokri

__all__ = [
    "MAX_PLANAR_WINDOW",
    "PLANAR_RELATIVE_TAIL",
    "average",
    "by_name",
    "check_row_stochastic",
    "exponential",
    "geo_indistinguishability_level",
    "geometric",
    "geometric_untruncated",
    "is_geo_indistinguishable",
    "is_ldp",
    "krr",
    "laplace",
    "ldp_level",
    "planar_geometric",
    "planar_geometric_remapped",
    "planar_laplace",
    "rappor_flip_probability",
    "remap_to_grid",
    "shokri",
]
