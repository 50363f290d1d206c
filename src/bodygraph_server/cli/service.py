"""The service commands of ``bodygraph-server``: ``serve`` (run the HTTP service) and
``render-keys`` (the signing keys kept in the database). The web stack is imported when
``serve`` runs, not when the parser is built."""

from __future__ import annotations

import argparse
from typing import Any

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.opening import open_waiting
from bodygraph_server.cli.argtypes import bounded_int
from bodygraph_server.cli.console import CommandError, print_json

_port = bounded_int("port", 0, 65535)
_workers = bounded_int("workers", 1)


def _serve(book: Bookkeeper, args: argparse.Namespace) -> int:
    # The schema is migrated (by opening the store: waiting for the database while it is
    # unavailable, see open_waiting) before any worker starts.
    book.close()
    try:
        from bodygraph_server.serve import run
        from bodygraph_server.settings import Settings
    except ImportError as exc:
        raise CommandError(f"the HTTP service is not available: {exc}") from exc
    overrides: dict[str, Any] = {"database_url": args.database_url}
    if args.workers is not None:
        overrides["workers"] = args.workers
    if args.geocoder is not None:
        overrides["geocoder"] = args.geocoder
    if args.render_url is not None:
        overrides["render_url"] = args.render_url
    if args.public_url is not None:
        overrides["public_url"] = args.public_url
    if args.no_access_log:
        overrides["access_log"] = False
    settings = Settings.from_env(**overrides)
    run(settings, host=args.host, port=args.port)
    return 0


def _render_keys_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    from bodygraph_server.store.sql import SqlStore

    if not isinstance(book.store, SqlStore):
        raise CommandError("render keys live in an SQL store")
    kids = [kid for kid, _secret in book.store.render_keys()]
    if args.json:
        print_json({"kids": kids, "signing": kids[-1] if kids else None})
    elif not kids:
        print("no render key stored yet (the service creates one at its first start, "
              "unless BODYGRAPH_RENDER_KEYS is set)")
    else:
        for kid in kids:
            print(f"{kid}{'  (signs new links)' if kid == kids[-1] else ''}")
    return 0


def _render_keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    from bodygraph_server.images.signing_keys import rotate

    key = rotate(book.store, book.clock.now())
    print(f"render key {key.kid} stored; it signs new links after the service restarts "
          "(older keys keep verifying)")
    return 0


def add_service_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Register ``serve`` and ``render-keys`` on the admin parser's subcommands."""
    serve = commands.add_parser("serve", help="run the HTTP service (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8000)
    serve.add_argument("--workers", type=_workers, default=None)
    serve.add_argument("--geocoder", choices=["google", "offline"], default=None)
    serve.add_argument("--render-url", default=None, metavar="URL",
                       help="base of svgRenderUrl (default: this service under /render)")
    serve.add_argument("--public-url", default=None, metavar="URL",
                       help="public base URL of this service (default: the request's host)")
    serve.add_argument("--no-access-log", action="store_true",
                       help="no log line per request (uvicorn's access log)")
    serve.set_defaults(func=_serve, open_book=open_waiting)

    render_keys = commands.add_parser(
        "render-keys", help="render signing keys kept in the database")
    key_cmds = render_keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    keys_list = key_cmds.add_parser("list", help="list stored key ids (never the secrets)")
    keys_list.add_argument("--json", action="store_true")
    keys_list.set_defaults(func=_render_keys_list)
    keys_rotate = key_cmds.add_parser(
        "rotate", help="store a new signing key (used after a restart; old links keep working)")
    keys_rotate.set_defaults(func=_render_keys_rotate)
