"""Positions, knowing nothing of the chart rules: the SPK kernel file, the engine protocol,
the Skyfield reference engine, the design-instant solver and the compiled engine (``fast``)."""
