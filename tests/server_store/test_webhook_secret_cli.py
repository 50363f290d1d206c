"""``bodygraph-server webhook-secret show|rotate``: the secret the owner's
``GET /v2/account/webhook-secret`` shows and the job runner signs with."""

from __future__ import annotations

from pathlib import Path

import pytest

from bodygraph_server.billing.accounts import Bookkeeper

from .test_store_admin_cli import fails, ok, ok_json


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'admin.sqlite3'}"


def test_show_and_rotate(url: str) -> None:
    account = str(ok_json(url, "accounts", "create", "--plan", "hobbyist")["account_id"])
    shown = ok_json(url, "webhook-secret", "show", account)
    assert shown["account_id"] == int(account) and shown["secret"].startswith("whsec_")
    assert ok_json(url, "webhook-secret", "show", account) == shown  # made once
    assert shown["secret"] in ok(url, "webhook-secret", "show", account)
    rotated = ok_json(url, "webhook-secret", "rotate", account)
    assert rotated["secret"] != shown["secret"]
    with Bookkeeper.open(url) as book:
        assert book.store.webhook_secret(int(account)) == rotated["secret"]
    text = ok(url, "webhook-secret", "rotate", account)
    assert "signed with the new one" in text and rotated["secret"] not in text


def test_refusals_are_one_line(url: str) -> None:
    assert "no account 42" in fails(url, "webhook-secret", "show", "42")
    assert "no account 42" in fails(url, "webhook-secret", "rotate", "42")
    fails(url, "webhook-secret", "show", "abc", status=2)
    fails(url, "webhook-secret", "renew", "1", status=2)
