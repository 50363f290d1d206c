"""bodygraph_server.images."""
