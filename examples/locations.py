"""
Locations on a grid: INV-P against IBU
======================================

Locations on a grid: the planar geometric mechanism (geo-indistinguishability, decisions.md, section 2), INV-P against
IBU, and the EMD with the grid's ground distance in km (POT's exact transport; IBU paper section 7.2).

A 10 x 8 grid of 0.5 km cells; 50,000 users concentrated around two hot spots. eps is per km.

    python examples/locations.py
"""

import numpy as np

import privest

grid = privest.Grid(columns=10, rows=8, cell_km=0.5)
centres = grid.centres()
weights = sum(np.exp(-np.hypot(*(centres - spot).T) / 0.6) for spot in ([1.5, 1.2], [3.6, 2.9]))
theta = weights / weights.sum()
rng = privest.rng_for(2026, "examples", "locations")
secret_counts = rng.multinomial(50_000, theta)
distances = grid.distances()

print(f"{grid.columns} x {grid.rows} cells of {grid.cell_km} km, 50,000 users; EMD to theta (km)")
print(f"{'eps/km':>7} {'noisy':>7} {'INV-P':>7} {'IBU':>7}")
for eps in (0.5, 1.0, 2.0):
    A = privest.planar_geometric(grid, eps)
    reports = privest.sample_counts(A, secret_counts, rng)
    noisy, inv_p = reports / reports.sum(), privest.inv(A, reports, post="projection")
    ibu = privest.ibu(A, reports).theta
    print(f"{eps:7g} " + " ".join(f"{privest.emd(theta, e, distances):7.3f}" for e in (noisy, inv_p, ibu)))
