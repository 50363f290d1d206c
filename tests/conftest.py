"""Suite-wide settings.

Hypothesis explores new random examples on every developer run; under CI (the ``CI``
environment variable) it replays a fixed, derandomized sequence so that a submission's
result does not depend on chance. Whatever it finds locally is fixed, not skipped.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
