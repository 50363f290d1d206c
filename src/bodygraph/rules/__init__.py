"""bodygraph.rules."""
