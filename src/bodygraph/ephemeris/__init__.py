"""bodygraph.ephemeris.kernel."""
