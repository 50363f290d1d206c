"""The MCP family: ``POST /mcp``, the MCP server's tools over MCP's Streamable HTTP
transport, each tool call admitted, tiered and charged like its matching endpoint."""

MCP_PATH = "/mcp"
SETTLING_KEY = "bodygraph.mcp_settling"
"""Where the scope of an MCP request holds its ``SettlingSend`` (its charges)."""
