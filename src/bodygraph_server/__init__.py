"""The bodygraph HTTP service: v2 and legacy v1 chart endpoints over the library.
``create_app`` and ``Settings`` are imported on first use, so the admin CLI and the
bookkeeping do not load the web stack (docs/api.md, "Running it")."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bodygraph_server.app import create_app
    from bodygraph_server.settings import Settings

__all__ = ["Settings", "create_app"]

_LAZY = {"create_app": "bodygraph_server.app", "Settings": "bodygraph_server.settings"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bodygraph_server' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
