"""bodygraph.catalog."""
