"""Run the service under uvicorn.

One worker: the app object is built here and served in this process. Several workers:
the settings travel to the worker processes through ``BODYGRAPH_*`` environment
variables and each worker builds its app with the import-string factory
``bodygraph_server.serve:app_from_env``.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

import uvicorn
from starlette.applications import Starlette

from bodygraph_server.app import create_app
from bodygraph_server.settings import Settings

FACTORY = "bodygraph_server.serve:app_from_env"


def app_from_env() -> Starlette:
    """The app configured from the environment (the factory each worker process calls)."""
    return create_app(Settings.from_env())


def first_key_hint(settings: Settings, host: str, port: int) -> str:
    """How to create a first account and call the service."""
    return (
        f"bodygraph service on http://{host}:{port} (docs: /docs, OpenAPI: /openapi.json)\n"
        "Create an account and its API key (printed once) with:\n"
        f"  BODYGRAPH_DATABASE_URL={settings.database_url} "
        "bodygraph-server accounts create --plan developer\n"
        "then: curl -X POST -H 'Authorization: Bearer <API_KEY>' "
        "-H 'Content-Type: application/json' "
        "-d '{\"birthdate\":\"1985-03-07\",\"birthtime\":\"09:15\",\"lat\":48.8566,"
        "\"lng\":2.3522}' "
        f"http://{host}:{port}/v2/charts/coordinates\n"
    )


def run(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int | None = None,
    *,
    log_level: str = "info",
    out: TextIO | None = None,
) -> None:
    """Serve until interrupted. ``workers`` defaults to ``settings.workers``."""
    count = workers if workers is not None else settings.workers
    print(first_key_hint(settings, host, port), file=out or sys.stderr, flush=True)
    if count == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level,
                    access_log=settings.access_log)
        return
    # Worker processes are started fresh and read their settings from the environment.
    os.environ.update(settings.with_changes(workers=count).to_env())
    uvicorn.run(
        FACTORY, factory=True, host=host, port=port, workers=count, log_level=log_level,
        access_log=settings.access_log,
    )
