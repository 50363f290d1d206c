"""Run the service under uvicorn, in one process or several workers (each watching its
supervisor), always with the connection limits, the path-only access log, no ``server``
header and ``X-Forwarded-*`` believed only from ``forwarded_allow_ips`` (docs/api.md)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

import uvicorn

from bodygraph_server.http.access_log import log_config
from bodygraph_server.http.limits import LimitedHttpToolsProtocol
from bodygraph_server.settings import Settings

if TYPE_CHECKING:
    from starlette.applications import Starlette

FACTORY = "bodygraph_server.serve:app_from_env"
PARENT_POLL_SECONDS = 0.5
"""How often a worker checks that its supervisor is still there."""
ORPHAN_GRACE_SECONDS = 10.0
"""How long an orphaned worker may take to shut down gracefully before it exits hard."""
SUPERVISOR_VARIABLE = "BODYGRAPH_SUPERVISOR_PID"
"""The supervisor's process id, handed to the workers (a worker that starts after its
supervisor died must not take the new parent for its supervisor)."""


def _orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's graceful shutdown
    time.sleep(ORPHAN_GRACE_SECONDS)
    os._exit(1)


def watch_parent(parent: int | None = None) -> threading.Thread:
    """Start a daemon thread that shuts this process down once its parent ``parent``
    (default: :data:`SUPERVISOR_VARIABLE`, else the current parent) is gone -- the process
    is then re-parented, so ``os.getppid()`` differs: SIGTERM first, a hard exit
    :data:`ORPHAN_GRACE_SECONDS` later."""
    if parent is None:
        given = os.environ.get(SUPERVISOR_VARIABLE, "")
        parent = int(given) if given.isdigit() else os.getppid()
    watcher = threading.Thread(target=_orphaned, args=(parent,),
                               name="bodygraph-parent-watch", daemon=True)
    watcher.start()
    return watcher


def app_from_env() -> Starlette:
    """The app configured from the environment (the factory each worker process calls;
    it also starts :func:`watch_parent`)."""
    from bodygraph_server.app import create_app

    watch_parent()
    return create_app(Settings.from_env())


def uvicorn_options(settings: Settings, log_level: str) -> dict[str, Any]:
    """The options every uvicorn start of the service uses."""
    proxies = settings.forwarded_ips
    return {
        "host": settings.host,
        "port": settings.port,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies or None,
        "log_level": log_level,
        "access_log": settings.access_log,
        "log_config": log_config(),
        "http": LimitedHttpToolsProtocol,
        "server_header": False,
    }


def banner(settings: Settings, accounts_exist: bool) -> str:
    """What ``serve`` prints at start: where the service listens and, while no account
    exists, how to create the first one (:func:`first_key_hint`)."""
    host, port = settings.host, settings.port
    where = f"http://{host}:{port}" if ":" not in host else f"http://[{host}]:{port}"
    text = (f"bodygraph service on {where} (home: /, docs: /docs, playground: /playground, "
            "OpenAPI: /openapi.json)\n")
    if host in ("0.0.0.0", "::") and "*" not in settings.trusted_hosts:
        text += (f"Only requests whose Host is one of {', '.join(settings.trusted_hosts)} are "
                 "answered; add others (this machine's address or name) with "
                 "--allowed-hosts / BODYGRAPH_ALLOWED_HOSTS\n")
    return text if accounts_exist else text + first_key_hint(settings, where)


def first_key_hint(settings: Settings, where: str) -> str:
    """How to create a first account and call the service at ``where``."""
    return (
        "Create an account and its API key (printed once) with:\n"
        f"  BODYGRAPH_DATABASE_URL={settings.database_url} "
        "bodygraph-server accounts create --plan developer\n"
        "then: curl -X POST -H 'Authorization: Bearer <API_KEY>' "
        "-H 'Content-Type: application/json' "
        "-d '{\"birthdate\":\"1985-03-07\",\"birthtime\":\"09:15\",\"lat\":48.8566,"
        "\"lng\":2.3522}' "
        f"{where}/v2/charts/coordinates\n"
    )


def _accounts_exist(settings: Settings) -> bool:
    """Whether the database holds an account (waiting for it while it is unavailable, as
    the app's start does)."""
    from bodygraph_server.billing.opening import open_waiting

    with open_waiting(settings.database_url, busy_timeout=settings.sqlite_busy_timeout) as book:
        return book.store.has_accounts()


def run(
    settings: Settings,
    host: str | None = None,
    port: int | None = None,
    workers: int | None = None,
    *,
    log_level: str = "info",
    out: TextIO | None = None,
    accounts_exist: bool | None = None,
) -> None:
    """Serve until interrupted. ``host``, ``port`` and ``workers`` override the settings';
    ``accounts_exist`` (default: asked of the database) decides whether the start banner
    shows how to create a first account."""
    changes = {name: value for name, value in
               (("host", host), ("port", port), ("workers", workers)) if value is not None}
    settings = settings.with_changes(**changes)
    count = settings.workers
    exist = _accounts_exist(settings) if accounts_exist is None else accounts_exist
    print(banner(settings, exist), file=out or sys.stderr, flush=True)
    if count == 1:
        from bodygraph_server.app import create_app

        uvicorn.run(create_app(settings), **uvicorn_options(settings, log_level))
        return
    # Worker processes are started fresh and read their settings from the environment.
    # This supervisor never builds the app, so it does not import it (the web stack, the
    # library, numpy: docs/performance.md).
    os.environ.update(settings.to_env())
    os.environ[SUPERVISOR_VARIABLE] = str(os.getpid())
    uvicorn.run(FACTORY, factory=True, workers=count, **uvicorn_options(settings, log_level))
