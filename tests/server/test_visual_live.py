"""Acceptance of the visual charts end to end: a real uvicorn server on 127.0.0.1
(subprocess), accounts and templates made through the ``bodygraph-server`` CLI on the
same database (its ``main`` in this process; test_store_admin_cli runs the installed
console script), real HTTP from httpx.

No render URL, public URL or render keys are configured: the server generates its signing
key into the database and links point at its own ``/render`` under the address the
request came to. Expected images are drawn independently from the library's chart.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph.render import RenderInput, Theme, render_svg
from bodygraph_server.cli.admin import main

from .session import google_process, once_per_process, once_per_session
from .support import LiveServer, Server, google_stand_in, tls_context

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
IMMUTABLE = "public, max-age=31536000, immutable"


def cli(db_url: str, *args: str) -> Any:
    """Run ``bodygraph-server --database-url db_url ...`` in this process and parse its
    ``--json`` output."""
    out_buf, err_buf = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out_buf), contextlib.redirect_stderr(err_buf):
        status = main(["--database-url", db_url, *args])
    out, err = out_buf.getvalue(), err_buf.getvalue()
    assert status == 0, err
    return json.loads(out) if "--json" in args else out


def expected_input() -> RenderInput:
    chart = bodygraph.calculate(datetime(1990, 7, 15, 14, 30,
                                         tzinfo=ZoneInfo("Europe/Berlin")))
    return RenderInput.from_chart(chart)


class Site:
    """A running server and the way to reach it."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.base_url, timeout=30, verify=tls_context())


class Shared(NamedTuple):
    """The server these tests, test_render_png_live and test_schemathesis share (one per
    test session, :func:`server.session.once_per_session`), its database and its geocoding
    stand-in."""

    site: Site
    db_url: str
    google_url: str


def shared_site(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Shared:
    def begin(folder: Path, stack: ExitStack, until: int | None) -> dict[str, Any]:
        if until is None:
            google_url, _seen = stack.enter_context(google_stand_in())
        else:  # it must outlive this test process too
            google_url = google_process(until, stack)
        db_url = f"sqlite:///{folder / 'live.sqlite3'}"
        server = start(db_url, google_url, folder / "server.log", until=until)
        stack.callback(server.stop)
        return {"server": server.record(), "db_url": db_url, "google_url": google_url}

    def attach(stack: ExitStack) -> Shared:
        record = once_per_session(config, tmp_path_factory, "visual-site", begin)
        site = Site(Server.from_record(record["server"]))
        stack.callback(site.http.close)
        return Shared(site, record["db_url"], record["google_url"])

    return once_per_process(config, "visual-site", attach)


@pytest.fixture(scope="module")
def shared(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Shared:
    return shared_site(pytestconfig, tmp_path_factory)


@pytest.fixture(scope="module")
def google_url(shared: Shared) -> str:
    return shared.google_url


@pytest.fixture(scope="module")
def db_url(shared: Shared) -> str:
    return shared.db_url


def start(db_url: str, google_url: str, log: Path, workers: int = 1,
          until: int | None = None) -> LiveServer:
    server = LiveServer({"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "google",
                         "BODYGRAPH_GEOCODER_URL": google_url, "BODYGRAPH_WARM_UP": "0",
                         "BODYGRAPH_RENDER_URL": "", "BODYGRAPH_PUBLIC_URL": "",
                         "BODYGRAPH_RENDER_KEYS": ""}, workers=workers, log=log, until=until)
    try:
        server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="module")
def site(shared: Shared) -> Site:
    return shared.site


def test_visual_chart_link_template_and_refusals(site: Site, db_url: str,
                                                google_url: str, tmp_path: Path) -> None:
    created = cli(db_url, "accounts", "create", "--plan", "developer", "--json")
    account, key = created["account_id"], created["api_key"]
    auth = {"Authorization": f"Bearer {key}"}

    # 1. the chart and its link
    r = site.http.post("/v2/visual-charts/coordinates", json=COORDS, headers=auth)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["type"] == "ChartResult" and body["success"] is True
    link = urlsplit(body["svgRenderUrl"])
    assert f"{link.scheme}://{link.netloc}" == site.server.base_url
    assert link.path == "/render/default.svg"

    # 2. the image from the same server: right headers, the chart drawn with the default
    image = httpx.get(body["svgRenderUrl"], timeout=30, verify=tls_context())
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/svg+xml"
    assert image.headers["cache-control"] == IMMUTABLE
    assert image.text == render_svg(expected_input())

    # 3. a tampered token is refused and the refusal is not cacheable
    token = parse_qs(link.query)["t"][0]
    for i in (len(token) // 2, len(token) - 5):
        changed = token[:i] + ("B" if token[i] == "A" else "A") + token[i + 1:]
        refused = site.http.get(f"{link.path}?t={changed}")
        assert refused.status_code in (400, 403), refused.text
        assert refused.headers["cache-control"] == "no-store"
        assert refused.headers["content-type"].startswith("application/json")
        assert "<svg" not in refused.text

    # 4. a template activated through the admin CLI: new path segment, new style
    theme = {"design_color": "#1565c0", "show_summary": False}
    template = cli(db_url, "templates", "create", str(account), "--name", "Blue",
                   "--theme-json", json.dumps(theme), "--activate", "--json")
    listed = cli(db_url, "templates", "list", str(account), "--json")
    assert [(t["template_id"], t["active"]) for t in listed] == [
        (template["template_id"], True)]
    r = site.http.post("/v2/visual-charts", json=PLACE,
                       headers={**auth, "HD-Geocode-Key": "geo-key"})
    assert r.status_code == 200, r.text
    styled = urlsplit(r.json()["svgRenderUrl"])
    assert styled.path == f"/render/{template['template_id']}.svg"
    image = site.http.get(f"{styled.path}?{styled.query}")
    assert image.status_code == 200 and image.headers["cache-control"] == IMMUTABLE
    assert image.text == render_svg(expected_input(), Theme.from_dict(theme))
    assert image.text != render_svg(expected_input())

    # 5. back to the default through the CLI
    cli(db_url, "templates", "activate", str(account), "default")
    r = site.http.post("/v2/visual-charts/coordinates", json=COORDS, headers=auth)
    assert urlsplit(r.json()["svgRenderUrl"]).path == "/render/default.svg"

    # 6. credits: 3 visual charts, the images and refusals free
    shown = cli(db_url, "accounts", "show", str(account), "--json")
    assert shown["balance"] == shown["credits_per_month"] - 3

    # 7. the stored key outlives the server: a fresh two-worker server serves old links
    kids = cli(db_url, "render-keys", "list", "--json")
    assert len(kids["kids"]) == 1 and token.startswith(kids["signing"] + ".")
    second = start(db_url, google_url, tmp_path / "second.log", workers=2)
    try:
        served: set[int] = set()
        for _ in range(40):  # new connections, until each worker has answered one
            pid, body = answered_by(second, f"{link.path}?{link.query}")
            assert body == render_svg(expected_input())
            served.add(pid)
            if len(served) == 2:
                break
        assert len(served) == 2, "one worker took every connection"  # p = 2**-39
    finally:
        second.stop()


def answered_by(server: Server, target: str) -> tuple[int, str]:
    """``GET target`` (200 expected) on a connection of its own: the server's process that
    holds the server's end of it (read from Linux's /proc) and the body."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("GET", target)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, body
        # The connection is still open (kept alive): its server end is in one process.
        assert conn.sock is not None
        mine = conn.sock.getsockname()[1]
        inode = next(row.split()[9] for row in Path("/proc/net/tcp").read_text().splitlines()[1:]
                     if int(row.split()[1].split(":")[1], 16) == server.port
                     and int(row.split()[2].split(":")[1], 16) == mine)
        holders = [pid for pid in _descendants(server.pid) if _holds(pid, f"socket:[{inode}]")]
    finally:
        conn.close()
    assert len(holders) == 1, holders
    return holders[0], body.decode()


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            ppid = re.search(r"\nPPid:\s*(\d+)", status.read_text())
            parents[int(status.parent.name)] = int(ppid[1]) if ppid else 0
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _holds(pid: int, target: str) -> bool:
    with contextlib.suppress(OSError):
        return any(os.readlink(fd) == target for fd in Path(f"/proc/{pid}/fd").iterdir())
    return False


def test_basic_tier_gets_no_link(site: Site, db_url: str) -> None:
    created = cli(db_url, "accounts", "create", "--plan", "hobbyist", "--json")
    r = site.http.post("/v2/visual-charts/coordinates", json=COORDS,
                       headers={"Authorization": f"Bearer {created['api_key']}"})
    assert r.status_code == 403 and r.json()["errorCode"] == "ACCESS_DENIED"
    r = site.http.post("/v2/visual-charts", json=PLACE,
                       headers={"Authorization": f"Bearer {created['api_key']}"})
    assert r.status_code == 403  # the tier is checked before the geocoding key
