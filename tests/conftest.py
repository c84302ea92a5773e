"""The hypothesis profile of the test suite: derandomized (the same examples on every run and machine, so a CI
failure reproduces locally), no per-example deadline (a shared machine's timing is not what the tests judge), and
no example database written into the worktree."""

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "privest",
    derandomize=True,
    deadline=None,
    database=None,
    max_examples=10,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no explain phase: it traces and re-runs
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.load_profile("privest")
