"""The access log: one line per request with method, path and status, nothing else (no
query string, which for a render link is its token; no client address): docs/api.md,
"Privacy"."""

from __future__ import annotations

import copy
import logging
from typing import Any

from uvicorn.config import LOGGING_CONFIG

ACCESS_FORMAT = '%(levelprefix)s "%(request_line)s" %(status_code)s'


def path_only(target: object) -> str:
    """A request target without its query string (``/a.svg?t=x`` -> ``/a.svg``)."""
    return str(target).split("?", 1)[0]


class PathOnly(logging.Filter):
    """Keeps method, path, HTTP version and status of uvicorn's access records; drops the
    query string and the client address."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's arguments (always keeps the record)."""
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            _client, method, target, version, status = args
            record.args = ("-", method, path_only(target), version, status)
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's default logging configuration with the path-only access log."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"path_only": {"()": f"{__name__}.PathOnly"}}
    config["formatters"]["access"]["fmt"] = ACCESS_FORMAT
    config["loggers"]["uvicorn.access"]["filters"] = ["path_only"]
    return config
