"""The store by composition (issue 24, item 4): one store class over a transaction
object, named rows, the PostgreSQL request path an object chosen when the store opens,
and no consumer that downcasts the store."""

from __future__ import annotations

import ast
from pathlib import Path

import bodygraph_server
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store.base import (
    AccountStore,
    BatchChargeStore,
    ChargeStore,
    LedgerStore,
    RateWindowStore,
    RenderKeyStore,
    Store,
    TransactionSource,
)
from bodygraph_server.store.sql import SqlStore

SERVICE = Path(bodygraph_server.__file__).parent
STORE_CLASSES = {"Store", "SqlStore", "SqliteStore", "PostgresStore", "RequestCalls",
                 "RequestPath", "BatchChargeRepository", "ChargeRepository"}


def test_rows_are_named_and_still_tuples(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    store = book.store
    with store.read_transaction() as tx:
        row = tx.one("SELECT id, plan, balance FROM accounts WHERE id = ?",
                     (issued.account.id,))
    assert row is not None
    expected = (issued.account.id, "developer", issued.account.balance)
    assert (row.id, row.plan, row.balance) == expected
    assert row == expected and row[1] == "developer"


def test_the_request_path_is_chosen_when_the_store_opens(db_url: str, book: Bookkeeper) -> None:
    store = book.store
    assert isinstance(store, SqlStore)
    if db_url.startswith("sqlite"):
        assert store.request_path is None and store.async_request_path() is None
    else:
        assert store.request_path is not None
        assert store.async_request_path() is not None


def test_a_backend_only_assembles_the_parts(db_url: str, book: Bookkeeper) -> None:
    """No stack of mixins: the backend's class derives from the store alone, and every
    table family is a repository of its own."""
    backend = type(book.store)
    assert backend.__mro__[1:] == (SqlStore, object)
    for protocol in (AccountStore, ChargeStore, BatchChargeStore, LedgerStore,
                     RateWindowStore, RenderKeyStore, TransactionSource, Store):
        missing = [name for name in dir(protocol)
                   if not name.startswith("_") and not hasattr(book.store, name)]
        assert missing == [], (protocol.__name__, missing)


def test_no_consumer_downcasts_the_store() -> None:
    """Outside ``store/``, no ``isinstance`` names a store class: consumers depend on the
    narrow protocols of ``store/base.py``."""
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path.parent.name == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "isinstance" and len(node.args) == 2):
                names = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")
                         for n in ast.walk(node.args[1])}
                if names & STORE_CLASSES:
                    found.append(f"{path.relative_to(SERVICE)}:{node.lineno}")
    assert found == []
