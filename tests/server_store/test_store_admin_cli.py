"""The ``bodygraph-server`` admin commands against a temporary SQLite file (and once
against PostgreSQL). Most run in this process through ``main([...])`` (the function the
console script calls) with the database in ``BODYGRAPH_DATABASE_URL``; the installed
console script (a success and a failure), ``python -m`` and ``serve`` run as real
subprocesses."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Denial, Denied, Principal, Reservation
from bodygraph_server.cli.admin import main
from bodygraph_server.policy.credits import LedgerKind

SCRIPT = Path(sys.executable).parent / "bodygraph-server"
SRC = Path(__file__).resolve().parents[2] / "src"


def command() -> list[str]:
    """The installed console script, or ``python -m`` when the package is not installed."""
    if SCRIPT.exists():
        return [str(SCRIPT)]
    return [sys.executable, "-m", "bodygraph_server.cli.admin"]


def run(
    url: str | None, *args: str, module: bool = False, spawn: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run one command: in this process (``main``), or with ``spawn`` or ``module`` as a
    subprocess (the console script, or ``python -m`` with ``module``)."""
    if not (spawn or module):
        return _in_process(url, *args)
    env = {k: v for k, v in os.environ.items() if k != "BODYGRAPH_DATABASE_URL"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    if url is not None:
        env["BODYGRAPH_DATABASE_URL"] = url
    argv = [sys.executable, "-m", "bodygraph_server.cli.admin"] if module else command()
    return subprocess.run([*argv, *args], env=env, capture_output=True, text=True, timeout=60)


def _in_process(url: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    """``main([...])`` with ``BODYGRAPH_DATABASE_URL`` set to ``url`` and its output and
    exit status collected as a subprocess's would be."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.pop("BODYGRAPH_DATABASE_URL", None)
    if url is not None:
        os.environ["BODYGRAPH_DATABASE_URL"] = url
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse: --help, bad command lines
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.environ.pop("BODYGRAPH_DATABASE_URL", None)
        if saved is not None:
            os.environ["BODYGRAPH_DATABASE_URL"] = saved
    return subprocess.CompletedProcess(["bodygraph-server", *args], status, out.getvalue(),
                                       err.getvalue())


def ok(url: str | None, *args: str, **kw: Any) -> str:
    done = run(url, *args, **kw)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def ok_json(url: str, *args: str) -> Any:
    return json.loads(ok(url, *args, "--json"))


def fails(url: str | None, *args: str, status: int = 1, **kw: Any) -> str:
    done = run(url, *args, **kw)
    assert done.returncode == status, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bodygraph-server: error: "), done.stderr
    return lines[0]


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'admin.sqlite3'}"


def test_create_prints_a_working_key_once(url: str) -> None:
    # The installed console script, as a real process, with the database from the environment.
    created = json.loads(ok(url, "accounts", "create", "--plan", "developer", "--json",
                            spawn=True))
    assert isinstance(created["account_id"], int) and created["api_key"].startswith("bg_")
    assert (created["plan"], created["billing"], created["balance"]) == (
        "developer",
        "monthly",
        10_000,
    )
    with Bookkeeper.open(url) as book:
        principal = book.authenticate(created["api_key"])
        assert isinstance(principal, Principal)
        assert principal.account_id == created["account_id"]
    # The key is never shown again.
    shown = ok(url, "accounts", "show", str(created["account_id"]))
    listed = ok(url, "accounts", "list")
    assert created["api_key"] not in shown + listed
    assert created["api_key"][:10] in listed
    text = ok(url, "accounts", "create", "--plan", "hobbyist", "--billing", "annual")
    assert "API key (shown once" in text and "6000 credits" in text


def test_list_and_show(url: str) -> None:
    first = ok_json(url, "accounts", "create", "--plan", "scale", "--billing", "annual")
    second = ok_json(url, "accounts", "create", "--plan", "lifetime")
    listed = ok_json(url, "accounts", "list")
    assert [a["account_id"] for a in listed] == [first["account_id"], second["account_id"]]
    shown = ok_json(url, "accounts", "show", str(second["account_id"]))
    assert shown["plan"] == "lifetime" and shown["billing"] == "lifetime"
    assert shown["tier"] == "advanced" and shown["balance"] == 50_000
    assert shown["status"] == "active" and shown["overage_enabled"] is False
    start = datetime.fromisoformat(shown["period_start"])
    end = datetime.fromisoformat(shown["period_end"])
    assert 28 <= (end - start).days <= 31
    table = ok(url, "accounts", "list").splitlines()
    assert table[0].split()[:4] == ["ID", "PLAN", "BILLING", "STATUS"]
    assert len(table) == 3


def test_deactivate_activate_and_cancel(url: str) -> None:
    created = ok_json(url, "accounts", "create", "--plan", "developer")
    account = str(created["account_id"])
    assert "deactivated" in ok(url, "accounts", "deactivate", account)
    with Bookkeeper.open(url) as book:
        outcome = book.authenticate(created["api_key"])
        assert isinstance(outcome, Denied) and outcome.reason is Denial.ACCOUNT_INACTIVE
    assert ok_json(url, "accounts", "show", account)["status"] == "inactive"
    assert "activated" in ok(url, "accounts", "activate", account)
    with Bookkeeper.open(url) as book:
        assert isinstance(book.authenticate(created["api_key"]), Principal)
    text = ok(url, "accounts", "cancel", account)
    shown = ok_json(url, "accounts", "show", account)
    assert shown["status"] == "cancelling"
    assert shown["cancel_at"] == shown["period_end"] and shown["cancel_at"] in text


def test_keys_rotate(url: str) -> None:
    created = ok_json(url, "accounts", "create", "--plan", "developer")
    rotated = ok_json(url, "keys", "rotate", str(created["account_id"]))
    assert rotated["account_id"] == created["account_id"]
    assert rotated["api_key"] != created["api_key"]
    with Bookkeeper.open(url) as book:
        old = book.authenticate(created["api_key"])
        assert isinstance(old, Denied) and old.reason is Denial.API_KEY_INVALID
        assert isinstance(book.authenticate(rotated["api_key"]), Principal)
    text = ok(url, "keys", "rotate", str(created["account_id"]))
    assert "old key no longer works" in text


def test_overage_credits_adjust_and_usage(url: str) -> None:
    created = ok_json(url, "accounts", "create", "--plan", "developer")
    account = str(created["account_id"])
    assert "enabled" in ok(url, "overage", "enable", account)
    assert ok_json(url, "accounts", "show", account)["overage_enabled"] is True
    entry = ok_json(url, "credits", "adjust", account, "--set", "3")
    assert (entry["kind"], entry["delta"], entry["balance_after"]) == ("adjustment", -9_997, 3)
    assert "balance set to 7" in ok(url, "credits", "adjust", account, "--set", "7")
    ledger = ok_json(url, "credits", "ledger", account)
    assert [e["kind"] for e in ledger] == [
        LedgerKind.ALLOCATION.value,
        LedgerKind.ADJUSTMENT.value,
        LedgerKind.ADJUSTMENT.value,
    ]
    assert sum(e["delta"] for e in ledger) == 7
    with Bookkeeper.open(url) as book:
        principal = book.authenticate(created["api_key"])
        assert isinstance(principal, Principal)
        for _ in range(7 + 600):
            reservation = book.reserve(principal, "/v2/charts")
            assert isinstance(reservation, Reservation)
            book.commit(reservation)
    report = ok_json(url, "usage", account)
    assert report["currency"] == "EUR" and report["overage_per_1000"] == "2.00"
    (period,) = report["periods"]
    assert (period["calls"], period["credits"], period["overage_calls"]) == (607, 7, 600)
    assert Decimal(period["overage_price"]) == Decimal("1.20")
    text = ok(url, "usage", account)
    assert "1.20 EUR" in text and "607" in text
    assert "disabled" in ok(url, "overage", "disable", account)
    with Bookkeeper.open(url) as book:
        principal = book.authenticate(created["api_key"])
        assert isinstance(principal, Principal)
        outcome = book.reserve(principal, "/v2/charts")
        assert isinstance(outcome, Denied) and outcome.reason is Denial.CREDITS_EXHAUSTED


def test_errors_are_one_line(url: str) -> None:
    assert "no account 42" in fails(url, "accounts", "show", "42")
    assert "no account 42" in fails(url, "keys", "rotate", "42")
    fails(url, "accounts", "create", "--plan", "gold", status=2)
    fails(url, "accounts", "show", "abc", status=2)
    fails(url, "credits", "adjust", "1", "--set", "-5", status=2)
    fails(url, status=2)
    created = ok_json(url, "accounts", "create", "--plan", "lifetime")
    assert "does not offer annual" in fails(
        url, "accounts", "create", "--plan", "lifetime", "--billing", "annual"
    )
    assert created["account_id"] == 1
    # the console script, as a real process: a failure's status and one line
    assert "unsupported database URL" in fails("mysql://db/x", "accounts", "list", spawn=True)
    assert "cannot connect to PostgreSQL" in fails(
        "postgresql://postgres@127.0.0.1:1/none", "accounts", "list"
    )
    assert "cannot create SQLite database" in fails("sqlite:////nonexistent-dir/x/y.db",
                                                    "accounts", "list")


def test_default_database_in_the_working_folder(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    created = json.loads(ok(None, "accounts", "create", "--plan", "hobbyist", "--json"))
    assert (tmp_path / "bodygraph.sqlite3").exists()
    with Bookkeeper.open(f"sqlite:///{tmp_path / 'bodygraph.sqlite3'}") as book:
        assert isinstance(book.authenticate(created["api_key"]), Principal)


def test_python_dash_m(url: str) -> None:
    created = json.loads(ok(url, "accounts", "create", "--plan", "scale", "--json", module=True))
    assert created["api_key"].startswith("bg_")
    help_text = ok(url, "--help")  # in this process: python -m is the line above
    for name in ["accounts", "keys", "overage", "credits", "usage", "serve"]:
        assert name in help_text


def test_serve_rejects_bad_options(url: str) -> None:
    fails(url, "serve", "--port", "70000", status=2)
    fails(url, "serve", "--workers", "0", status=2)
    fails(url, "serve", "--geocoder", "bing", status=2)


def test_serve_stops_at_once_when_the_sqlite_folder_does_not_exist(tmp_path: Path) -> None:
    # a real process (a time-out, not a hang, if it waited): one line, the status of a
    # failed operation
    line = fails(f"sqlite:///{tmp_path / 'none' / 'x.db'}", "serve", spawn=True)
    assert line.endswith(f"its folder {tmp_path / 'none'} does not exist")


@pytest.mark.postgres
def test_serve_stops_at_once_when_postgres_has_no_such_database() -> None:
    name = "bgtest_none_" + os.urandom(6).hex()
    line = fails(f"postgresql://postgres@127.0.0.1:5432/{name}", "serve", spawn=True)
    assert line.endswith(f'database "{name}" does not exist')


@pytest.mark.postgres
def test_postgres_run(pg_url: str) -> None:
    created = ok_json(pg_url, "accounts", "create", "--plan", "developer", "--billing", "annual")
    shown = ok_json(pg_url, "accounts", "show", str(created["account_id"]))
    assert shown["balance"] == 12_000
    ok(pg_url, "credits", "adjust", str(created["account_id"]), "--set", "5")
    rotated = ok_json(pg_url, "keys", "rotate", str(created["account_id"]))
    with Bookkeeper.open(pg_url) as book:
        principal = book.authenticate(rotated["api_key"])
        assert isinstance(principal, Principal)
        assert book.account(created["account_id"]).balance == 5
    report = ok_json(pg_url, "usage", str(created["account_id"]))
    assert report["periods"][0]["allocated"] == 12_000


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_migrates_and_starts_the_service(url: str, tmp_path: Path) -> None:
    import time
    import urllib.request

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "BODYGRAPH_DATABASE_URL"}
    env["BODYGRAPH_DATABASE_URL"] = url
    env["BODYGRAPH_WARM_UP"] = "0"  # no chart is asked for: the engine need not be loaded
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [*command(), "serve", "--host", "127.0.0.1", "--port", str(port), "--geocoder", "offline",
         "--no-access-log"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        body = b""
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    body = r.read()
                    break
            except OSError:
                time.sleep(0.05)
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        assert json.loads(body) == {"status": "ok", "database": "up"}
        with Bookkeeper.open(url) as book:
            assert book.store.schema_version() == 11
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "bodygraph service on" in text and "GET /health" not in text
