"""bodygraph.ephemeris.kernel.fast."""
