"""bodygraph_server.http."""
