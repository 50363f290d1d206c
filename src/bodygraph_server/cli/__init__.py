"""bodygraph_server.cli."""
