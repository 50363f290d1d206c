"""bodygraph.geo."""
