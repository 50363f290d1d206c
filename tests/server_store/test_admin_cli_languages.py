"""``bodygraph-server`` in another language (``--lang``, ``$BODYGRAPH_LANG``): its output
and error lines in German and Japanese against a temporary SQLite file, with ``--json``,
the exit statuses and the English output unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bodygraph.catalog.columns import display_width
from bodygraph_server.cli.admin import main


@pytest.fixture()
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database with one account (developer, monthly)."""
    monkeypatch.delenv("BODYGRAPH_LANG", raising=False)
    monkeypatch.delenv("BODYGRAPH_DATABASE_URL", raising=False)
    database = f"sqlite:///{tmp_path / 'admin.db'}"
    assert main(["--database-url", database, "accounts", "create", "--plan", "developer",
                 "--json"]) == 0
    return database


def _run(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, str, str]:
    """``bodygraph-server --database-url URL ARGS...``: its exit status, stdout, stderr."""
    capsys.readouterr()
    try:
        status = main(["--database-url", url, *args])
    except SystemExit as exited:  # argparse's usage mistakes
        status = int(exited.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_output_lines_in_german(capsys: pytest.CaptureFixture[str], url: str) -> None:
    assert _run(capsys, url, "--lang", "de", "usage", "1")[1].splitlines()[0] == (
        "Konto 1 (developer); Mehrverbrauch deaktiviert, 2.00 EUR pro 1.000 Aufrufe")
    assert _run(capsys, url, "overage", "enable", "1", "--lang", "de")[1] == (
        "Mehrverbrauch für Konto 1 aktiviert\n")
    status, out, _ = _run(capsys, url, "--lang", "de", "accounts", "create", "--plan",
                          "hobbyist")
    assert status == 0
    assert out.startswith("Konto 2 angelegt: Tarif hobbyist, Abrechnung monthly, ")
    assert "API-Schlüssel (nur einmal angezeigt, jetzt speichern): bg_" in out
    assert _run(capsys, url, "--lang", "de", "jobs", "list")[1] == "keine Aufträge\n"


def test_a_table_in_japanese_lines_up_by_columns(capsys: pytest.CaptureFixture[str],
                                                 url: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BODYGRAPH_LANG", "ja")
    status, out, _ = _run(capsys, url, "accounts", "list")
    header, row = out.splitlines()
    assert status == 0 and header.split() == ["ID", "プラン", "請求", "ステータス", "残高",
                                              "超過利用", "次のリセット", "キー"]
    # each column starts where its heading does, counted in terminal columns
    starts = [display_width(header[:header.index(word)]) for word in ("請求", "残高", "キー")]
    cells = row.split()
    assert [display_width(row[:row.index(c)]) for c in (cells[2], cells[4], cells[7])] == \
        starts
    assert "オフ" in cells


def test_error_lines_in_german_and_japanese(capsys: pytest.CaptureFixture[str],
                                            url: str) -> None:
    # the store's refusal: exit status 1, the marker kept
    assert _run(capsys, url, "--lang", "ja", "accounts", "show", "9") == (
        1, "", "bodygraph-server: error: アカウント 9 はありません\n")
    assert _run(capsys, url, "--lang", "de", "accounts", "create", "--plan", "lifetime",
                "--billing", "monthly")[::2] == (
        1, "bodygraph-server: error: der Tarif lifetime bietet keine Abrechnung monthly an "
           "(bietet: lifetime)\n")
    # argparse's and the argument types' refusals: exit status 2
    assert _run(capsys, url, "accounts", "show", "0", "--lang", "de")[::2] == (
        2, "bodygraph-server: error: Argument ID: die Konto-ID muss mindestens "
           "1 sein, nicht 0 (siehe bodygraph-server accounts show --help)\n")
    status, _, err = _run(capsys, url, "--lang", "ja", "jobs", "list", "--limit", "x")
    assert status == 2
    assert err.startswith("bodygraph-server: error: 引数 --limit：'x' は 1 以上の"  # noqa: RUF001
                          "整数ではありません")
    status, _, err = _run(capsys, url, "--lang", "de", "templates", "show", "nope")
    assert status == 2 and "'nope' ist keine Vorlagen-ID (UUID)" in err
    # a file the system cannot read, with the library's words
    status, _, err = _run(capsys, url, "--lang", "de", "templates", "create", "1", "--name",
                          "x", "--theme", "/nonexistent/theme.json")
    assert (status, err) == (1, "bodygraph-server: error: /nonexistent/theme.json ist nicht "
                                "verwendbar: Datei oder Verzeichnis nicht gefunden\n")


def test_an_unknown_language_is_a_usage_mistake(capsys: pytest.CaptureFixture[str],
                                                url: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(capsys, url, "--lang", "xx", "accounts", "list")[::2] == (
        2, "bodygraph-server: error: --lang 'xx' is not a supported language; use one of en, "
           "de, nl, es, fr, pt, it, ru, ja, zh-Hans\n")
    monkeypatch.setenv("BODYGRAPH_LANG", "klingon")
    status, _, err = _run(capsys, url, "accounts", "list")
    assert status == 2 and "$BODYGRAPH_LANG 'klingon'" in err
    monkeypatch.setenv("LANG", "de_DE.UTF-8")  # the locale is never read
    monkeypatch.delenv("BODYGRAPH_LANG")
    assert _run(capsys, url, "jobs", "list")[1] == "no jobs\n"


def test_json_and_english_are_unchanged(capsys: pytest.CaptureFixture[str], url: str) -> None:
    english = _run(capsys, url, "accounts", "show", "1", "--json")
    assert _run(capsys, url, "accounts", "show", "1", "--json", "--lang", "ja") == english
    assert json.loads(english[1])["account_id"] == 1
    assert _run(capsys, url, "accounts", "list", "--lang", "en") == \
        _run(capsys, url, "accounts", "list")
    assert _run(capsys, url, "accounts", "show", "9")[::2] == (
        1, "bodygraph-server: error: no account 9\n")
    assert _run(capsys, url, "accounts", "show", "0")[2] == (
        "bodygraph-server: error: argument ID: account ID must be at least 1, "
        "not 0 (see bodygraph-server accounts show --help)\n")
