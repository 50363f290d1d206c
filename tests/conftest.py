"""Suite-wide settings.

Hypothesis explores new random examples on every developer run; under CI (the ``CI``
environment variable) it replays a fixed, derandomized sequence so that a submission's
result does not depend on chance. Whatever it finds locally is fixed, not skipped.

The suite runs in pytest-xdist workers (``scripts/test.sh`` passes ``-n auto``): every
worker loads this file, and a derandomized test draws the same examples whichever worker
runs it and in whatever order (the seed is a hash of the test itself). The ``ci`` profile
builds on Hypothesis's own: no example database (``derandomize`` implies it, so workers
share no files) and no per-example deadline, since wall-clock time on a machine whose cores
are all busy with workers measures the load, not the code; every test still has the global
``timeout`` of pyproject.toml.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", settings.get_profile("ci"), derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
