"""The chart family: ``POST /v2/charts``, ``/v2/charts/simple``, ``/v2/charts/coordinates``
and the chart flow the visual and v1 operations share."""
