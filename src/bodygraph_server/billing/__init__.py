"""bodygraph_server.billing."""
