"""Every setting of the service has a ``serve`` flag (but the secret render keys) and a
``BODYGRAPH_*`` variable, both documented with their default: in ``serve --help`` and in
the table of docs/api.md, which is the parser's own."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from bodygraph_server.cli import admin
from bodygraph_server.cli.service import flag, settings_table
from bodygraph_server.settings import Settings, setting_fields, variable

REPO = Path(__file__).resolve().parents[2]


def help_text(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        admin.main(["serve", "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_serve_help_names_every_setting_with_its_variable_and_default(
        capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(capsys)
    for spec in setting_fields():
        if spec.name == "render_keys":  # a secret: a variable only
            assert "--render-keys" not in text and "BODYGRAPH_RENDER_KEYS" in text
            continue
        if spec.name == "database_url":  # the flag of every command, before the command
            continue
        assert flag(spec) in text
        default = spec.default if not isinstance(spec.default, bool) else (
            "on" if spec.default else "off")
        assert f"[{variable(spec)}; default: {default or 'empty'}]" in text
    for name in ("--host", "--port", "--workers", "--geocoder", "--rate-limit-url",
                 "--allowed-hosts", "--forwarded-allow-ips", "--no-access-log"):
        assert name in text


def test_the_docs_table_is_the_parsers() -> None:
    docs = (REPO / "docs" / "api.md").read_text()
    table = settings_table()
    assert table in docs, "paste bodygraph_server.cli.service.settings_table() into docs/api.md"
    assert len(table.splitlines()) == 2 + len(setting_fields())


def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str],
            env: dict[str, str]) -> Settings:
    """The settings ``serve`` would start with, for this command line and environment."""
    seen: list[Settings] = []

    def run(settings: Settings, **options: Any) -> None:
        seen.append(settings)

    monkeypatch.setattr("bodygraph_server.serve.run", run)
    for name in [n for n in os.environ if n.startswith("BODYGRAPH_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    db = f"sqlite:///{tmp_path / 'flags.sqlite3'}"
    assert admin.main(["--database-url", db, "serve", *argv]) == 0
    return seen[0]


def test_serve_refuses_a_journal_folder_others_may_write(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("bodygraph_server.serve.run", lambda *_, **__: None)
    shared = tmp_path / "flags.sqlite3-deliveries"  # made first, writable by all
    shared.mkdir()
    shared.chmod(0o777)
    db = f"sqlite:///{tmp_path / 'flags.sqlite3'}"
    assert admin.main(["--database-url", db, "serve"]) == 1
    err = capsys.readouterr().err
    assert err == (f"bodygraph-server: error: the delivery journals' folder {shared} is not a "
                   "folder of this user that only it may write: remove it, or choose another "
                   "(--journal-dir)\n")
    shared.chmod(0o700)
    assert admin.main(["--database-url", db, "serve"]) == 0


def test_a_flag_wins_over_its_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = {"BODYGRAPH_WORKERS": "3", "BODYGRAPH_RATE_LIMIT_URL": "store",
           "BODYGRAPH_HOST": "0.0.0.0", "BODYGRAPH_ACCESS_LOG": "0"}
    from_env = started(monkeypatch, tmp_path, [], env)
    assert (from_env.workers, from_env.rate_limit_url, from_env.host,
            from_env.access_log) == (3, "store", "0.0.0.0", False)
    flags = started(monkeypatch, tmp_path, [
        "--workers", "2", "--rate-limit-url", "redis://127.0.0.1:6379/0", "--port", "9001",
        "--forwarded-allow-ips", "10.0.0.1", "--allowed-hosts", "api.example.com",
        "--access-log", "--no-warm-up"], env)
    assert (flags.workers, flags.rate_limit_url, flags.port, flags.forwarded_ips,
            flags.trusted_hosts, flags.access_log, flags.warm_up) == (
        2, "redis://127.0.0.1:6379/0", 9001, ["10.0.0.1"], ["api.example.com"], True, False)
    assert flags.host == "0.0.0.0"


@pytest.mark.parametrize("argv", [["--port", "70000"], ["--workers", "0"],
                                  ["--request-timeout", "soon"], ["--max-body-bytes", "10"],
                                  ["--geocoder", "bing"], ["--allowed-hosts", "a*.example.com"],
                                  ["--public-url", "api.example.com"], ["--render-keys", "x"],
                                  ["--rate-limit-url", "http://x"],
                                  ["--forwarded-allow-ips", "not an ip"],
                                  ["--forwarded-allow-ips", "10.0.0.1,*"],
                                  ["--forwarded-allow-ips", "10.0.0.1/8"]])
def test_a_bad_flag_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        admin.main(["serve", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.match(r"bodygraph-server: error: ", err)


def test_the_hosts_answered_by_default() -> None:
    local = ["localhost", "127.0.0.1", "[::1]"]
    assert Settings().trusted_hosts == local
    assert Settings(host="0.0.0.0").trusted_hosts == local
    assert Settings(host="192.168.1.5", public_url="https://API.example.com:8443",
                    render_url="https://img.example.com/charts").trusted_hosts == [
        *local, "api.example.com", "img.example.com", "192.168.1.5"]
    assert Settings(host="fe80::1").trusted_hosts == [*local, "[fe80::1]"]
    assert Settings(allowed_hosts=" api.example.com, *.example.org ").trusted_hosts == [
        "api.example.com", "*.example.org"]
    assert Settings(forwarded_allow_ips="10.0.0.1, 10.0.0.2").forwarded_ips == [
        "10.0.0.1", "10.0.0.2"]
    assert Settings().forwarded_ips == []


@pytest.mark.parametrize(("name", "value", "words"), [
    ("BODYGRAPH_PORT", "abc", "not a number"),
    ("BODYGRAPH_GEOCODER", "bogus", "'google' or 'offline'"),
    ("BODYGRAPH_RATE_LIMIT_URL", "http://x", "redis://"),
    ("BODYGRAPH_FORWARDED_ALLOW_IPS", "not an ip", "not an IP address"),
])
def test_a_bad_variable_is_a_usage_error_naming_it(
        name: str, value: str, words: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("bodygraph_server.serve.run", lambda *a, **k: None)
    monkeypatch.setenv(name, value)
    db = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    assert admin.main(["--database-url", db, "serve"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"bodygraph-server: error: {name}: ") and words in err


def test_the_proxy_forms_uvicorn_understands_are_accepted() -> None:
    for proxies in ("*", "10.0.0.1", "10.0.0.0/8, ::1", "fd00::/8"):
        Settings(forwarded_allow_ips=proxies)
    for url in ("", "store", "redis://127.0.0.1:6379/0", "rediss://h:6380/1"):
        Settings(rate_limit_url=url)
