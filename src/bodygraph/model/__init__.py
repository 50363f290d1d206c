"""bodygraph.model."""
