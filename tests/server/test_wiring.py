"""The service's wiring and its loose ends: settings of the render link and keys, render
keys in the database (SQLite and PostgreSQL), the sweep of abandoned reservations, the
in-process SQLite write lock, the lazy package import, the admin commands and the
OpenAPI description of the visual endpoints and the image route."""

from __future__ import annotations

import base64
import gc
import json
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest

from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.sweep import SWEEP_GRACE, stale_after, sweep_stale
from bodygraph_server.cli.admin import main as admin_main
from bodygraph_server.images.signing_keys import rotate, signing_keys
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.resources import service_document
from bodygraph_server.settings import SettingsError
from bodygraph_server.store import DEFAULT_DATABASE_URL, open_store
from bodygraph_server.store.sql import SqlStore
from bodygraph_server.store.sqlite import SqliteStore

from .conftest import START
from .support import in_process

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
SECRET = base64.urlsafe_b64encode(b"\x07" * 32).decode()


# -- settings ----------------------------------------------------------------------------


def test_render_settings() -> None:
    plain = Settings()
    assert plain.database_url == DEFAULT_DATABASE_URL
    assert plain.render_path == "/render"
    assert plain.render_base("http://10.0.0.5:8000/") == "http://10.0.0.5:8000/render"
    public = Settings(public_url="https://api.example.com/")
    assert public.render_base("http://10.0.0.5:8000/") == "https://api.example.com/render"
    own = Settings(render_url="https://img.example.com/charts/", public_url="https://a.b")
    assert own.render_base("http://x/") == "https://img.example.com/charts"
    assert own.render_path == "/charts"
    assert Settings(render_url="https://img.example.com").render_path == "/render"
    env = {"BODYGRAPH_RENDER_KEYS": f"k1:{SECRET}", "BODYGRAPH_PUBLIC_URL": "https://a.b"}
    loaded = Settings.from_env(env)
    assert loaded.render_keys == f"k1:{SECRET}" and loaded.public_url == "https://a.b"
    assert SECRET not in repr(loaded)  # the secret never shows
    assert Settings.from_env(loaded.to_env()) == loaded


@pytest.mark.parametrize("values", [
    {"render_url": "img.example.com/render"}, {"render_url": "ftp://x/render"},
    {"public_url": "https://a.b/?x=1"}, {"render_url": "https://a.b/v2/render"},
    {"render_url": "https://a.b/health"}, {"render_url": "https://a.b/playground/x"},
    {"render_keys": "k1:c2hvcnQ"},
    {"render_keys": "no-colon"},
])
def test_bad_render_settings(values: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({}, **values)


def test_admin_does_not_load_the_web_stack() -> None:
    code = ("import sys, bodygraph_server, bodygraph_server.cli.admin as a; a.build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('starlette', 'uvicorn', 'httpx')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"
    import bodygraph_server

    assert bodygraph_server.create_app is create_app  # still reachable, lazily
    with pytest.raises(AttributeError):
        _ = bodygraph_server.nothing_here


# -- render keys in the database ---------------------------------------------------------


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    import psycopg

    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'keys.sqlite3'}"
        return
    schema = "bgwire_" + secrets.token_hex(6)
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def test_keys_are_created_once_and_shared(any_db: str) -> None:
    stores = [open_store(any_db) for _ in range(4)]
    try:
        rings: list[object] = []
        barrier = threading.Barrier(len(stores))

        def first_start(store: SqlStore) -> None:
            barrier.wait()
            rings.append(signing_keys("", store, START))

        threads = [threading.Thread(target=first_start, args=(s,)) for s in stores]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(rings) == 4
        kids = {ring.current.kid for ring in rings}  # type: ignore[attr-defined]
        assert len(kids) == 1  # one key, whoever started first
        store = stores[0]
        assert isinstance(store, SqlStore)
        assert len(store.render_keys()) == 1
        newer = rotate(store, START - timedelta(days=1))  # even with a clock behind
        ring = signing_keys("", store, START)
        assert ring.current.kid == newer.kid and ring.kids[0] in kids
        configured = signing_keys(f"k1:{SECRET}", store, START)
        assert configured.kids == ("k1",)  # BODYGRAPH_RENDER_KEYS wins, the table unused
        assert len(store.render_keys()) == 2
    finally:
        for store in stores:
            store.close()


# -- abandoned reservations --------------------------------------------------------------


def _principal(book: Bookkeeper, key: str) -> Principal:
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    return principal


def test_sweep_releases_only_abandoned_reservations(any_db: str) -> None:
    clock = ManualClock(START)
    settings = Settings(database_url=any_db, request_timeout=15)
    with Bookkeeper(open_store(any_db), clock=clock) as book:
        issued = book.create_account("developer")
        principal = _principal(book, issued.api_key)
        full = book.account(issued.account.id).balance
        old = book.reserve(principal, "/v2/charts")
        assert isinstance(old, Reservation)
        clock.advance(20)
        young = book.reserve(principal, "/v2/charts")
        assert isinstance(young, Reservation)
        assert book.account(issued.account.id).balance == full - 2
        assert stale_after(settings) == timedelta(seconds=15 + SWEEP_GRACE)

        clock.advance(settings.request_timeout + SWEEP_GRACE - 19)
        assert sweep_stale(book, settings) == 1  # the first one only
        assert book.account(issued.account.id).balance == full - 1
        assert sweep_stale(book, settings) == 0  # idempotent
        book.commit(young)  # the live call still settles normally
        assert book.usage(issued.account.id)[-1].pending == 0
        assert book.audit(issued.account.id).balanced


@pytest.mark.anyio
async def test_a_starting_worker_sweeps(db_url: str, book: Bookkeeper,
                                        clock: ManualClock) -> None:
    issued = book.create_account("developer")
    full = issued.account.balance
    assert isinstance(book.reserve(_principal(book, issued.api_key), "/v2/charts"),
                      Reservation)
    clock.advance(minutes=5)
    settings = Settings(database_url=db_url, warm_up=False, render_keys=f"k1:{SECRET}")
    async with in_process(create_app(settings, book=book)) as client:
        assert (await client.get("/health")).status_code == 200
        assert book.account(issued.account.id).balance == full
        assert book.usage(issued.account.id)[-1].pending == 0


@pytest.mark.anyio
async def test_what_a_worker_makes_before_serving_is_frozen(tmp_path: Path) -> None:
    # Objects made before the first request and left in the collector's sight (the MCP
    # server's, tens of thousands) are scanned by every full collection: a pause of the
    # worker in the middle of requests (docs/performance.md).
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'frozen.sqlite3'}",
                        geocoder="offline", render_keys=f"k1:{SECRET}")
    async with in_process(create_app(settings)) as client:
        tracked = len(gc.get_objects())
        assert (await client.get("/health")).status_code == 200
    assert tracked < 5_000


# -- SQLite: threads of one process take turns --------------------------------------------


def test_sqlite_threads_serialize_without_the_busy_handler(tmp_path: Path) -> None:
    # A busy timeout of 1 ms: without the in-process lock, concurrent writers of this
    # process would fail with "database is locked" instead of waiting their turn.
    store = SqliteStore(tmp_path / "lock.sqlite3", busy_timeout=0.001)
    book = Bookkeeper(store, clock=ManualClock(START))
    try:
        issued = book.create_account("developer")
        principal = _principal(book, issued.api_key)
        errors: list[BaseException] = []
        barrier = threading.Barrier(8)

        def work() -> None:
            barrier.wait()
            try:
                for _ in range(25):
                    reservation = book.reserve(principal, "/v2/charts")
                    assert isinstance(reservation, Reservation)
                    book.commit(reservation)
                    book.check_rate(principal)
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert errors == []
        assert book.account(issued.account.id).balance == issued.account.balance - 200
        assert book.audit(issued.account.id).balanced
    finally:
        book.close()


# -- admin commands ----------------------------------------------------------------------


def test_admin_registers_templates_and_render_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'admin.sqlite3'}"
    assert admin_main(["--database-url", url, "accounts", "create", "--plan", "scale",
                       "--json"]) == 0
    account = json.loads(capsys.readouterr().out)["account_id"]
    assert admin_main(["--database-url", url, "templates", "create", str(account),
                       "--name", "Dark", "--theme-json", '{"background": "#000000"}',
                       "--activate", "--json"]) == 0
    template = json.loads(capsys.readouterr().out)
    assert template["active"] is True
    assert admin_main(["--database-url", url, "templates", "list", str(account)]) == 0
    assert template["template_id"] in capsys.readouterr().out
    assert admin_main(["--database-url", url, "templates", "delete", str(account),
                       template["template_id"]]) == 0
    assert admin_main(["--database-url", url, "templates", "activate", str(account),
                       template["template_id"]]) == 1  # gone: a one-line error
    assert "no template" in capsys.readouterr().err
    assert admin_main(["--database-url", url, "render-keys", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"kids": [], "signing": None}
    assert admin_main(["--database-url", url, "render-keys", "rotate"]) == 0
    capsys.readouterr()
    assert admin_main(["--database-url", url, "render-keys", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed["kids"]) == 1 and listed["signing"] == listed["kids"][0]


def test_admin_reports_expected_errors_and_lets_bugs_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'admin.sqlite3'}"
    assert admin_main(["--database-url", url, "accounts", "show", "9"]) == 1
    assert capsys.readouterr().err.strip() == "bodygraph-server: error: no account 9"

    def broken(self: Bookkeeper) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(Bookkeeper, "accounts", broken)
    with pytest.raises(KeyError, match="a bug"):
        admin_main(["--database-url", url, "accounts", "list"])


# -- OpenAPI -----------------------------------------------------------------------------


def test_openapi_describes_visual_endpoints_and_the_image_route() -> None:
    document = service_document(render_path="/render")
    paths = document["paths"]
    visual = paths["/v2/visual-charts"]["post"]
    assert visual["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/VisualChartEnvelope"}
    assert "GEOCODE_KEY_MISSING" in visual["responses"]["400"]["description"]
    assert "GEOCODE_KEY_MISSING" not in visual["responses"].get("401", {}).get(
        "description", "")
    assert "ACCESS_DENIED" in visual["responses"]["403"]["description"]
    assert [p["name"] for p in paths["/v2/visual-charts/coordinates"]["post"]["parameters"]] == [
        "Idempotency-Key", "lang"]  # and no geocoding key
    envelope = document["components"]["schemas"]["VisualChartEnvelope"]
    assert "svgRenderUrl" in envelope["required"]
    image = paths["/render/{template}.svg"]["get"]
    assert set(image["responses"]["200"]["content"]) == {"image/svg+xml"}
    assert {p["name"] for p in image["parameters"]} == {"template", "t", "lang"}
    assert {"400", "403", "404"} <= set(image["responses"])
