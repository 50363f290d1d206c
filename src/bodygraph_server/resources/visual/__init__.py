"""The visual-chart family: ``POST /v2/visual-charts`` and ``/v2/visual-charts/coordinates``."""
