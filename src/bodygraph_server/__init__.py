"""The bodygraph HTTP service: v2 and legacy v1 chart endpoints over the library.

>>> from bodygraph_server import Settings, create_app
>>> app = create_app(Settings(database_url="sqlite:///service.sqlite3"))  # doctest: +SKIP
"""

from __future__ import annotations

from bodygraph_server.app import create_app
from bodygraph_server.settings import Settings

__all__ = ["Settings", "create_app"]
