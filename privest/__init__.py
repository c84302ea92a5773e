"""privest: mechanisms, perturbation, estimators and metrics for estimating distributions from privatised reports."""
