"""bodygraph_server.policy."""
