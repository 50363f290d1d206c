"""Render templates in the bookkeeping database (SQLite and PostgreSQL), the template hub
the image route reads, and the ``templates`` admin commands."""

from __future__ import annotations

import argparse
import json
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote
from uuid import UUID, uuid4

import pytest

from bodygraph.render import Theme, ThemeError
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli.console import CommandError
from bodygraph_server.cli.templates import add_template_commands
from bodygraph_server.images.route import TemplateLookupError
from bodygraph_server.images.templates import (
    InvalidTemplateError,
    SqlTemplateStore,
    TemplateHub,
    TemplateNotFoundError,
)
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import AccountNotFoundError, DatabaseUnavailableError, open_store
from bodygraph_server.store.sql import SqlStore

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
BLUE = Theme.from_dict({"design_color": "#1565c0"})
GREEN = Theme.from_dict({"personality_color": "#2e7d32", "show_summary": False})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    import psycopg

    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'templates.sqlite3'}"
        return
    schema = "bgrender_" + secrets.token_hex(6)
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_URL}?options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def book(db_url: str) -> Iterator[Bookkeeper]:
    bookkeeper = Bookkeeper(open_store(db_url), clock=ManualClock(NOW))
    yield bookkeeper
    bookkeeper.close()


@pytest.fixture
def store(book: Bookkeeper) -> SqlTemplateStore:
    assert isinstance(book.store, SqlStore)
    return SqlTemplateStore(book.store)


def account(book: Bookkeeper) -> int:
    return book.create_account("developer").account.id


def test_create_list_activate_delete(book: Bookkeeper, store: SqlTemplateStore) -> None:
    a, b = account(book), account(book)
    blue = store.create(a, "  Blue  ", BLUE, activate=False, now=NOW)
    assert blue.name == "Blue" and not blue.active and blue.theme == BLUE
    assert blue.created_at == NOW and isinstance(blue.id, UUID) and blue.id.version == 4
    assert store.active(a) is None
    green = store.create(a, "Green", GREEN, activate=True, now=NOW + timedelta(seconds=1))
    assert store.active(a) == green
    assert [t.name for t in store.for_account(a)] == ["Blue", "Green"]
    assert store.for_account(b) == []

    store.activate(a, blue.id)  # one active at a time
    assert [t.active for t in store.for_account(a)] == [True, False]
    again = store.create(a, "Green 2", GREEN, activate=True, now=NOW)
    assert store.active(a) == again
    assert sum(t.active for t in store.for_account(a)) == 1

    with pytest.raises(TemplateNotFoundError):
        store.activate(b, blue.id)  # another account's template
    with pytest.raises(TemplateNotFoundError):
        store.delete(b, blue.id)
    with pytest.raises(TemplateNotFoundError):
        store.activate(a, uuid4())
    assert store.active(a) == again  # nothing changed by the refusals

    store.delete(a, again.id)
    assert store.active(a) is None  # deleting the active one falls back to the default
    store.activate(a, green.id)
    store.activate(a, None)
    assert store.active(a) is None
    assert store.get(blue.id) == store.for_account(a)[0]
    assert store.get(uuid4()) is None


def test_bad_names_and_unknown_accounts(book: Bookkeeper, store: SqlTemplateStore) -> None:
    a = account(book)
    for name in ("", "   ", "x" * 81, "tab\there"):
        with pytest.raises(InvalidTemplateError):
            store.create(a, name, BLUE, activate=False, now=NOW)
    with pytest.raises(AccountNotFoundError):
        store.create(9999, "Blue", BLUE, activate=False, now=NOW)
    assert store.for_account(a) == []


def test_one_active_per_account_is_enforced_by_the_database(
    book: Bookkeeper, store: SqlTemplateStore
) -> None:
    a = account(book)
    one = store.create(a, "One", BLUE, activate=True, now=NOW)
    two = store.create(a, "Two", BLUE, activate=False, now=NOW)
    assert isinstance(book.store, SqlStore)
    with pytest.raises(Exception, match=r"(?i)unique"), book.store.write_transaction() as tx:
        tx.execute("UPDATE render_templates SET active = 1 WHERE id = ?", (str(two.id),))
    assert store.active(a) == one


def test_hub_serves_styles_and_active_ids(book: Bookkeeper, store: SqlTemplateStore) -> None:
    a = account(book)
    hub = TemplateHub()
    with pytest.raises(TemplateLookupError):
        hub.style_for(uuid4())  # not bound yet: the route answers 503
    hub.bind(store)
    blue = store.create(a, "Blue", BLUE, activate=True, now=NOW)
    assert hub.style_for(blue.id) == BLUE
    assert hub.style_for(uuid4()) is None
    assert hub.active_id(a) == blue.id
    assert hub.active_id(account(book)) is None


def test_hub_turns_store_failures_into_lookup_errors() -> None:
    class Down:
        def get(self, template_id: UUID) -> None:
            raise DatabaseUnavailableError("cannot connect")

    hub = TemplateHub(Down())  # type: ignore[arg-type]
    with pytest.raises(TemplateLookupError, match="cannot connect"):
        hub.style_for(uuid4())


def run_cli(book: Bookkeeper, *argv: str) -> int:
    parser = argparse.ArgumentParser(prog="bodygraph-server")
    add_template_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    status: int = args.func(book, args)
    return status


def test_admin_commands(book: Bookkeeper, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    a = account(book)
    theme_file = tmp_path / "theme.json"
    theme_file.write_text(json.dumps({"design_color": "#1565C0"}), encoding="utf-8")
    assert run_cli(book, "templates", "create", str(a), "--name", "Blue", "--theme",
                   str(theme_file), "--activate", "--json") == 0
    created = json.loads(capsys.readouterr().out)
    assert created["account_id"] == a and created["active"] is True
    assert created["theme"]["design_color"] == "#1565c0"
    assert created["created_at"] == "2026-03-10T12:00:00Z"
    tid = created["template_id"]

    assert run_cli(book, "templates", "create", str(a), "--name", "Plain") == 0
    assert "Plain" in capsys.readouterr().out
    assert run_cli(book, "templates", "list", str(a), "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(t["name"], t["active"]) for t in listed] == [("Blue", True), ("Plain", False)]

    assert run_cli(book, "templates", "activate", str(a), "default") == 0
    assert "default theme" in capsys.readouterr().out
    assert run_cli(book, "templates", "show", tid) == 0
    assert json.loads(capsys.readouterr().out)["active"] is False
    assert run_cli(book, "templates", "activate", str(a), tid) == 0
    assert run_cli(book, "templates", "delete", str(a), tid) == 0
    capsys.readouterr()
    assert run_cli(book, "templates", "list", str(a)) == 0
    assert "Blue" not in capsys.readouterr().out

    with pytest.raises(ThemeError):
        run_cli(book, "templates", "create", str(a), "--name", "Bad", "--theme-json",
                '{"design_color": "red"}')
    with pytest.raises(CommandError, match="no template"):
        run_cli(book, "templates", "show", str(uuid4()))
    with pytest.raises(CommandError, match="has no template"):
        run_cli(book, "templates", "delete", str(a), str(uuid4()))
    with pytest.raises(AccountNotFoundError):
        run_cli(book, "templates", "list", "9999")
    with pytest.raises(SystemExit):
        run_cli(book, "templates", "delete", str(a), "not-a-uuid")


def test_create_from_a_preset(book: Bookkeeper, store: SqlTemplateStore,
                              capsys: pytest.CaptureFixture[str]) -> None:
    a = account(book)
    assert run_cli(book, "templates", "create", str(a), "--name", "Dark", "--preset", "dark",
                   "--json") == 0
    dark = json.loads(capsys.readouterr().out)
    assert Theme.from_dict(dark["theme"]) == Theme.preset("dark") != Theme()
    # the preset is the starting point; --theme-json changes it further
    assert run_cli(book, "templates", "create", str(a), "--name", "Dark blue", "--preset",
                   "dark", "--theme-json", '{"design_color": "#1565c0"}', "--json") == 0
    tuned = Theme.from_dict(json.loads(capsys.readouterr().out)["theme"])
    assert tuned == Theme.from_dict({"design_color": "#1565c0"}, base=Theme.preset("dark"))
    assert tuned.background == Theme.preset("dark").background != Theme().background
    with pytest.raises(ThemeError, match=r"unknown theme 'neon'.*high-contrast"):
        run_cli(book, "templates", "create", str(a), "--name", "Neon", "--preset", "neon")
    assert [t.name for t in store.for_account(a)] == ["Dark", "Dark blue"]
