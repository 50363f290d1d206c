"""The settings of job delivery: ``allow_private_callbacks`` and ``dask_scheduler``, from
their variables and ``serve`` flags, and a bad scheduler address refused with one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bodygraph_server.cli import admin
from bodygraph_server.settings import Settings, SettingsError

from .test_settings_flags import started


def test_both_from_variables_and_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert (Settings().allow_private_callbacks, Settings().dask_scheduler) == (False, "")
    env = {"BODYGRAPH_ALLOW_PRIVATE_CALLBACKS": "1",
           "BODYGRAPH_DASK_SCHEDULER": "tcp://10.0.0.5:8786"}
    from_env = started(monkeypatch, tmp_path, [], env)
    assert (from_env.allow_private_callbacks, from_env.dask_scheduler) == (
        True, "tcp://10.0.0.5:8786")
    flags = started(monkeypatch, tmp_path, ["--no-allow-private-callbacks",
                                            "--dask-scheduler", "dask.internal:8786"], env)
    assert (flags.allow_private_callbacks, flags.dask_scheduler) == (
        False, "dask.internal:8786")
    assert Settings(allow_private_callbacks=True).to_env()[
        "BODYGRAPH_ALLOW_PRIVATE_CALLBACKS"] == "1"


@pytest.mark.parametrize("address", ["tcp://h:8786", "tls://10.0.0.1:8786", "h:8786",
                                     "ws://[::1]:8786"])
def test_scheduler_addresses_accepted(address: str) -> None:
    assert Settings(dask_scheduler=address).dask_scheduler == address


@pytest.mark.parametrize("address", ["http://h:8786", "tcp://h", "h", "tcp://:8786",
                                     "tcp://h:port", "tcp://h :8786"])
def test_a_bad_scheduler_address(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SettingsError, match="dask_scheduler must be like tcp://host:8786"):
        Settings(dask_scheduler=address)
    with pytest.raises(SystemExit) as stop:
        admin.main(["serve", "--dask-scheduler", address])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.match(r"bodygraph-server: error: .*dask_scheduler must be", err)
