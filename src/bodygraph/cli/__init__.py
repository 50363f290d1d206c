"""bodygraph.cli.main."""
