"""Text in terminal columns, for the command line: :mod:`bodygraph.catalog.columns` (shared
with the service's command line, which may not import this package)."""

from bodygraph.catalog.columns import display_width, pad, wrap

__all__ = ["display_width", "pad", "wrap"]
