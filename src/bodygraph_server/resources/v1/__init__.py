"""The legacy v1 family: ``POST /v1/bodygraphs`` and ``/v1/bodygraphs/simple``."""
