"""The load-test script: loopback only, bounded, and it runs end to end (briefly)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .support import shared_served

pytestmark = pytest.mark.slow  # its module starts first under xdist (tests/conftest.py)

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "load_test.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bodygraph_load_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("url", ["http://example.com", "http://10.0.0.1:8000",
                                 "https://bodygraph.dev"])
def test_refuses_other_hosts(url: str) -> None:
    with pytest.raises(SystemExit):
        load_script().loopback_only(url)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://localhost:1", "http://[::1]:9"])
def test_accepts_loopback(url: str) -> None:
    load_script().loopback_only(url)


def test_percentile() -> None:
    script = load_script()
    values = [float(v) for v in range(1, 101)]
    assert script.percentile(values, 0.99) == 99.0
    assert script.percentile(values, 0.5) in (50.0, 51.0)


@pytest.mark.timeout(180)
def test_short_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The server the script starts inherits the environment: 40 charts need no warm-up
    # (loading the compiled engine, about half a second of CPU).
    monkeypatch.setenv("BODYGRAPH_WARM_UP", "0")
    status = load_script().main(["--workers", "1", "--concurrency", "2", "--duration", "1",
                                 "--requests", "40", "--warmup", "0", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert status == 0
    assert figures["requests"] == figures["ok"] > 0
    assert figures["books_exact"]  # one charge per answer, nothing pending
    assert figures["requests"] <= 40
    assert figures["p99_ms"] >= figures["p50_ms"] > 0


@pytest.mark.timeout(180)
def test_short_wrk_run(capsys: pytest.CaptureFixture[str], pytestconfig: pytest.Config,
                       tmp_path_factory: pytest.TempPathFactory) -> None:
    """wrk against a running service (``--url``: the one the test session shares;
    test_short_run covers the script starting its own)."""
    server, _book = shared_served(pytestconfig, tmp_path_factory)
    status = load_script().main(["--generator", "wrk", "--url", server.base_url,
                                 "--database-url", server.env["BODYGRAPH_DATABASE_URL"],
                                 "--concurrency", "2", "--duration", "1", "--requests", "2000",
                                 "--warmup", "0", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert status == 0
    assert figures["generator"] == "wrk"
    assert figures["requests"] == figures["ok"] > 0
    assert figures["books_exact"]
    assert figures["statuses"] == {"2xx": figures["requests"]}
    assert figures["max_ms"] >= figures["p99_ms"] >= figures["p50_ms"] > 0


def test_wrk_refuses_open_loop() -> None:
    with pytest.raises(SystemExit):
        load_script().main(["--generator", "wrk", "--rate", "10"])
