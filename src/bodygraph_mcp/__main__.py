"""``python -m bodygraph_mcp``: the same as the ``bodygraph-mcp`` command."""

from bodygraph_mcp.cli import main

raise SystemExit(main())
