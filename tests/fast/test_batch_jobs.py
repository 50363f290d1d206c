"""``bodygraph batch --jobs N``: the same output, byte for byte and in input order."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bodygraph.batch import BatchError, default_jobs, run_batch
from bodygraph.calculator import Calculator
from bodygraph.cli.main import main


def _births(path: Path, rows: int) -> Path:
    """``id,birth_utc`` rows of random instants, with a bad and an out-of-range row."""
    rng = np.random.default_rng(7)
    low = np.datetime64("1850-01-01T00:00:00", "s").astype(np.int64)
    high = np.datetime64("2150-01-01T00:00:00", "s").astype(np.int64)
    text = np.datetime_as_string(rng.integers(low, high, rows).astype("datetime64[s]"))
    lines = [f"{i},{t}Z\n" for i, t in enumerate(text.tolist())]
    lines[3] = "3,not-a-date\n"
    lines[1500] = "1500,1200-01-01T00:00:00Z\n"
    path.write_text("id,birth_utc\n" + "".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_one_and_two_jobs_write_the_same_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    source = _births(tmp_path / "births.csv", 2_500)
    written = []
    for jobs in ("1", "2"):
        target = tmp_path / f"jobs{jobs}{suffix}"
        status = main(["batch", str(source), "-o", str(target), "--no-progress",
                       "--chunk-size", "1000", "--jobs", jobs])
        assert status == 1, capsys.readouterr().err  # the two bad rows
        written.append(target.read_bytes())
    assert written[0] == written[1]
    if suffix == ".csv":
        rows = written[0].decode().splitlines()
        assert len(rows) == 2_501
        assert [r.split(",")[1] for r in rows[1:6]] == ["0", "1", "2", "3", "4"]


def test_every_chunk_is_computed_on_the_jobs_asked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[int] = []
    original = Calculator.calculate_many

    def spy(self: Calculator, instants: Any, *, node: Any = "true", workers: int = 1) -> Any:
        seen.append(workers)
        return original(self, instants, node=node, workers=workers)

    monkeypatch.setattr(Calculator, "calculate_many", spy)
    source = _births(tmp_path / "births.csv", 2_500)
    quiet = io.StringIO()
    run_batch(source, tmp_path / "a.csv", chunk_size=1000, jobs=2, stderr=quiet)
    assert seen == [2, 2, 2]
    seen.clear()
    run_batch(source, tmp_path / "b.csv", chunk_size=1000, stderr=quiet)
    assert seen == [default_jobs()] * 3


def test_jobs_default_to_the_cores_this_process_may_use(tmp_path: Path) -> None:
    assert default_jobs() == len(os.sched_getaffinity(0))
    with pytest.raises(BatchError, match="number of jobs must be at least 1"):
        run_batch(_births(tmp_path / "b.csv", 2_000), tmp_path / "o.csv", jobs=0)
