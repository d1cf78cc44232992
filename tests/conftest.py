"""pytest configuration: hypothesis profiles (CI runs the same examples every time)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No per-example deadline: the machines are shared, and a wall-clock limit on one example
# fails for load, not for a bug (speed is the bench scripts' job).
settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
