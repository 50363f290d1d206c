"""The health family: ``GET /health`` (readiness) and ``/health/live`` (liveness)."""
