"""A stand-in for the Google Geocoding API on 127.0.0.1 (standard library only).

Tests run it in a thread (:func:`server.support.google_stand_in`). Run as a script,
``python google_api.py PID``, it prints its port and serves until process ``PID`` ends: the
stand-in of a server that the test processes of one session share
(:mod:`server.session`), which must not end with the test process that started it.
"""

from __future__ import annotations

import json
import os
import select
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BERLIN = {"lat": 52.52, "lng": 13.405}


def google_reply(address: str) -> tuple[int, dict[str, Any]]:
    """The reply of the stand-in: the address text picks the outcome."""
    lowered = address.lower()
    if "denied" in lowered:
        return 403, {"status": "REQUEST_DENIED", "error_message": "key restricted"}
    if "nowhere" in lowered:
        return 200, {"status": "ZERO_RESULTS", "results": []}
    if "busy" in lowered:
        return 200, {"status": "OVER_QUERY_LIMIT", "results": []}
    if "broken" in lowered:
        return 500, {"status": "UNKNOWN_ERROR"}
    result = {
        "formatted_address": "Berlin, Germany",
        "geometry": {"location": BERLIN},
        "address_components": [
            {"long_name": "Berlin", "short_name": "Berlin", "types": ["locality"]},
            {"long_name": "Germany", "short_name": "DE", "types": ["country"]},
        ],
    }
    return 200, {"status": "OK", "results": [result]}


class GoogleHandler(BaseHTTPRequestHandler):
    """Answers ``GET ...?address=...`` with :func:`google_reply` and records the query in
    its server's ``seen`` list."""

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        self.server.seen.append(query)  # type: ignore[attr-defined]
        status, body = google_reply(query.get("address", [""])[0])
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        return


def stand_in() -> ThreadingHTTPServer:
    """The stand-in's server, bound to a free port on 127.0.0.1 (not yet serving)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), GoogleHandler)
    server.seen = []  # type: ignore[attr-defined]
    return server


def wait_for_exit(pid: int) -> None:
    """Return once process ``pid`` has ended (at once if it already has)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    with os.fdopen(handle) as ended:
        select.select([ended], [], [])


def main(pid: int) -> None:
    server = stand_in()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    wait_for_exit(pid)


if __name__ == "__main__":
    main(int(sys.argv[1]))
