"""``bodygraph batch --jobs N``: worker processes, the same output byte for byte and in
input order, the same bad rows and errors; a dead worker or Ctrl-C ends the job at once."""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bodygraph.batch.pool
from bodygraph.batch import BatchError, default_jobs, run_batch
from bodygraph.batch.pool import WorkerPool
from bodygraph.batch.work import ChunkWork, Done, Task
from bodygraph.calculator import Calculator
from bodygraph.cli.main import main

SCRIPT = Path(sys.executable).parent / "bodygraph"


def _births(path: Path, rows: int) -> Path:
    """``id,birth_utc`` rows of random instants, with a bad and an out-of-range row, and
    quoted ids (one spanning two lines, across the boundary of the first two chunks)."""
    rng = np.random.default_rng(7)
    low = np.datetime64("1850-01-01T00:00:00", "s").astype(np.int64)
    high = np.datetime64("2150-01-01T00:00:00", "s").astype(np.int64)
    text = np.datetime_as_string(rng.integers(low, high, rows).astype("datetime64[s]"))
    lines = [f"{i},{t}Z\n" for i, t in enumerate(text.tolist())]
    lines[3] = "3,not-a-date\n"
    lines[1500] = "1500,1200-01-01T00:00:00Z\n"
    lines[998] = f'"998, ""quoted""",{text[998]}Z\n'
    lines[999] = f'"999\nsecond line",{text[999]}Z\n'
    path.write_text("id,birth_utc\n" + "".join(lines), encoding="utf-8")
    return path


def _places(path: Path, rows: int, places: list[str]) -> Path:
    """``rows`` births at 08:30 in ``places``, in turn (date, time, location)."""
    path.write_text("date,time,location\n" + "".join(
        f'1990-05-{1 + i % 28:02d},08:30,"{places[i % len(places)]}"\n' for i in range(rows)),
        encoding="utf-8")
    return path


def _parquet(csv_path: Path) -> Path:
    from pyarrow import csv, parquet

    target = csv_path.with_suffix(".parquet")
    parquet.write_table(csv.read_csv(csv_path), target, row_group_size=700)
    return target


class _Pools:
    """Counts the worker processes the jobs start.

    ``can_fork`` (no other thread) is false where an earlier test in the same test
    process left a thread running, and the jobs would then compute in this process:
    these tests fork anyway (the workers touch nothing such a thread holds).
    ``test_workers_are_forked_only_from_a_process_without_other_threads`` checks the
    rule itself."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.processes: list[int] = []
        counter = self
        monkeypatch.setattr(bodygraph.batch.pool, "can_fork", lambda: True)

        class Counted(WorkerPool[Task, Done]):
            def __init__(self, work: Any, processes: int) -> None:
                counter.processes.append(processes)
                super().__init__(work, processes)

        monkeypatch.setattr(bodygraph.batch.pool, "WorkerPool", Counted)


@pytest.mark.parametrize(("given", "suffix"), [
    ("csv", ".csv"), ("csv", ".parquet"), ("parquet", ".csv")])
def test_one_and_two_jobs_write_the_same_bytes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    given: str, suffix: str,
) -> None:
    pools = _Pools(monkeypatch)
    source = _births(tmp_path / "births.csv", 2_500)
    if given == "parquet" or suffix == ".parquet":
        _parquet(source)
    if given == "parquet":
        source = source.with_suffix(".parquet")
    written, reports = [], []
    for jobs in ("1", "2"):
        target = tmp_path / f"jobs{jobs}{suffix}"
        status = main(["batch", str(source), "-o", str(target), "--no-progress",
                       "--chunk-size", "1000", "--jobs", jobs])
        err = capsys.readouterr().err
        assert status == 1, err  # the two bad rows
        written.append(target.read_bytes())
        reports.append(err.splitlines()[:-1])  # the last line gives the time taken
    assert pools.processes == [2]  # --jobs 1 computes in this process
    assert written[0] == written[1]
    assert reports[0] == reports[1]
    assert [line.split(":")[0] for line in reports[0]] == ["row 4", "row 1501"]
    assert reports[0][0].endswith("(INVALID_INSTANT)")
    assert reports[0][1].endswith("(OUT_OF_RANGE)")
    if suffix == ".csv":
        rows = written[0].decode().split("\r\n")
        assert len(rows) == 2_502 and rows[-1] == ""  # the header, 2,500 rows
        assert [r.split(",")[1] for r in rows[1:6]] == ["0", "1", "2", "3", "4"]
        assert rows[999].startswith('999,"998, ""quoted""",')
        assert rows[1000].startswith('1000,"999\nsecond line",')


def test_places_are_geocoded_in_the_workers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pools = _Pools(monkeypatch)
    source = _places(tmp_path / "places.csv", 40, [
        "Berlin, Germany", "Paris, France", "Qwxzyland Nowhere", "", "Lima, Peru"])
    written = []
    for jobs in (1, 2):
        target = tmp_path / f"out{jobs}.csv"
        shown = io.StringIO()
        summary = run_batch(source, target, chunk_size=7, jobs=jobs, stderr=shown,
                            progress=True)
        assert (summary.rows, summary.errors) == (40, 16)
        final = shown.getvalue().rstrip("\n").rsplit("\r", 1)[-1]  # the bar at the end
        assert "100.0% 40/40" in final and final.endswith(" rows/s  16 bad"), final
        written.append(target.read_bytes())
    assert pools.processes == [2]
    assert written[0] == written[1]
    assert b"Europe/Berlin" in written[1] and b"America/Lima" in written[1]
    assert written[1].count(b"PLACE_NOT_FOUND") == 8


def test_a_bad_input_line_is_the_same_error_with_processes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pools = _Pools(monkeypatch)
    source = _births(tmp_path / "births.csv", 2_500)
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1501] = "1499," + "x" * 200_000 + "\n"  # the file's line 1502: the third chunk
    source.write_text("".join(lines), encoding="utf-8")
    reports = []
    for jobs in ("1", "2"):
        target = tmp_path / f"jobs{jobs}.csv"
        target.write_bytes(b"an earlier output\n")
        status = main(["batch", str(source), "-o", str(target), "--no-progress",
                       "--chunk-size", "500", "--jobs", jobs])
        err = capsys.readouterr().err.splitlines()
        assert status == 1
        assert err[-1] == f"bodygraph: error: {source} line 1502 is not CSV: field larger " \
            "than field limit (131072)"
        reports.append(err)
        assert target.read_bytes() == b"an earlier output\n"  # the failed job wrote nothing
    assert reports[0] == reports[1]  # the bad rows of the chunks before, in order
    assert sorted(p.name for p in tmp_path.iterdir()) == ["births.csv", "jobs1.csv", "jobs2.csv"]
    assert pools.processes == [2]


def test_a_callers_geocoder_is_asked_here_once_per_place(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A geocoder the caller passes (an online one costs a request per place) stays in
    the job's process with its cache: no workers, each place asked once."""
    from bodygraph.geo.places import default_geocoder

    pools = _Pools(monkeypatch)
    offline = default_geocoder().geocode
    asked: list[str] = []

    def geocode(text: str) -> Any:
        asked.append(text)
        return offline(text)

    places = ["Berlin, Germany", "Paris, France", "Lima, Peru"]
    source = _places(tmp_path / "places.csv", 30, places)
    written = []
    for jobs in (1, 2):
        target = tmp_path / f"out{jobs}.csv"
        summary = run_batch(source, target, chunk_size=7, jobs=jobs, geocode=geocode,
                            stderr=io.StringIO())
        assert (summary.rows, summary.errors) == (30, 0)
        written.append(target.read_bytes())
    assert pools.processes == []
    assert written[0] == written[1]
    assert sorted(asked) == sorted(places * 2)  # once per place and run


def test_a_killed_worker_ends_the_job_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pools = _Pools(monkeypatch)
    compute = ChunkWork.__call__
    job = os.getpid()

    def dying(self: ChunkWork, task: Task) -> Done:
        if task.first_row > 1000 and os.getpid() != job:  # the second chunk and later
            os.kill(os.getpid(), signal.SIGKILL)
        return compute(self, task)

    monkeypatch.setattr(ChunkWork, "__call__", dying)
    source = _births(tmp_path / "births.csv", 2_500)
    started = time.monotonic()
    status = main(["batch", str(source), "-o", str(tmp_path / "out.csv"), "--no-progress",
                   "--chunk-size", "1000", "--jobs", "2"])
    err = capsys.readouterr().err
    assert status == 1 and time.monotonic() - started < 20
    assert err.splitlines()[-1] == "bodygraph: error: a worker process ended unexpectedly " \
        "(killed by SIGKILL)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["births.csv"]  # no output at all
    assert all(line.startswith("row ") for line in err.splitlines()[:-1])  # chunks before
    assert pools.processes == [2]


#: Run the command with Ctrl-C's default disposition, as a terminal's shell starts it: a
#: shell's background job (``bash scripts/test.sh &``) ignores SIGINT, which its children
#: inherit, and Python then installs no KeyboardInterrupt handler.
DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.argv[1], sys.argv[1:])")


def test_ctrl_c_stops_the_job_and_its_workers_and_keeps_the_earlier_output(
    tmp_path: Path,
) -> None:
    source = _births(tmp_path / "births.csv", 200_000)  # seconds of work: stopped at once
    output = tmp_path / "charts"
    output.mkdir()
    target = output / "out.csv"
    target.write_bytes(b"an earlier output\n")
    child = subprocess.Popen(
        [sys.executable, "-c", DEFAULT_SIGINT, str(SCRIPT), "batch", str(source),
         "-o", str(target), "--progress", "--chunk-size", "1000", "--jobs", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    assert child.stderr is not None
    seen = b""
    deadline = time.monotonic() + 30
    while b"rows/s" not in seen and time.monotonic() < deadline:  # the workers are busy
        if select.select([child.stderr], [], [], 1)[0]:
            seen += os.read(child.stderr.fileno(), 4096)
    assert b"rows/s" in seen, seen
    # the charts so far go to a temporary file beside the output, which is as it was
    (partial,) = (p for p in output.iterdir() if p != target)
    assert partial.name.startswith(".out.csv.") and partial.name.endswith(".part")
    assert target.read_bytes() == b"an earlier output\n"
    os.killpg(child.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
    try:
        rest = child.communicate(timeout=15)[1]
    finally:
        child.kill()
    assert child.returncode == 130
    assert (seen + rest).decode().splitlines()[-1].endswith("bodygraph: interrupted")
    assert b"Traceback" not in seen + rest
    gone = time.monotonic() + 0.2  # no worker is left behind: the group is empty by then
    while _group_alive(child.pid):
        assert time.monotonic() < gone, "a worker outlived the job"
        time.sleep(0.01)
    assert list(output.iterdir()) == [target]  # the temporary file is gone
    assert target.read_bytes() == b"an earlier output\n"


@pytest.mark.parametrize(("to_group", "jobs"), [(True, 2), (False, 1)],
                         ids=["group-2-jobs", "process-1-job"])
def test_sigterm_stops_the_job_removes_its_unfinished_output_and_exits_143(
    tmp_path: Path, to_group: bool, jobs: int,
) -> None:
    """SIGTERM (a service manager stopping the job: to its whole group, or ``kill PID``)
    unwinds as Ctrl-C does, with the status a shell gives a process SIGTERM ended."""
    source = _births(tmp_path / "births.csv", 200_000)
    output = tmp_path / "charts"
    output.mkdir()
    target = output / "out.csv"
    child = subprocess.Popen(
        [str(SCRIPT), "batch", str(source), "-o", str(target), "--progress", "--chunk-size",
         "1000", "--jobs", str(jobs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    assert child.stderr is not None
    seen = b""
    deadline = time.monotonic() + 30
    while b"rows/s" not in seen and time.monotonic() < deadline:  # charts being written
        if select.select([child.stderr], [], [], 1)[0]:
            seen += os.read(child.stderr.fileno(), 4096)
    assert b"rows/s" in seen, seen
    (partial,) = output.iterdir()
    assert partial.name.startswith(".out.csv.") and partial.name.endswith(".part")
    if to_group:
        os.killpg(child.pid, signal.SIGTERM)
    else:
        os.kill(child.pid, signal.SIGTERM)
    try:
        rest = child.communicate(timeout=15)[1]
    finally:
        child.kill()
    assert child.returncode == 143, (seen + rest)[-500:]
    assert (seen + rest).decode().splitlines()[-1].endswith("bodygraph: interrupted")
    assert b"Traceback" not in seen + rest
    gone = time.monotonic() + 0.2
    while _group_alive(child.pid):
        assert time.monotonic() < gone, "a worker outlived the job"
        time.sleep(0.01)
    assert list(output.iterdir()) == []  # neither the unfinished file nor an output


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_jobs_run_here_with_one_job_one_chunk_or_no_fork(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pools = _Pools(monkeypatch)
    seen: list[int] = []
    original = Calculator.calculate_many

    def spy(self: Calculator, instants: Any, *, node: Any = "true", workers: int = 1) -> Any:
        seen.append(workers)
        return original(self, instants, node=node, workers=workers)

    monkeypatch.setattr(Calculator, "calculate_many", spy)
    source = _births(tmp_path / "births.csv", 2_500)
    quiet = io.StringIO()
    run_batch(source, tmp_path / "a.csv", chunk_size=1000, jobs=1, stderr=quiet)
    assert seen == [1, 1, 1]
    seen.clear()
    run_batch(source, tmp_path / "b.csv", chunk_size=5000, jobs=2, stderr=quiet)
    assert seen == [2]  # a single chunk: its engine on two threads here
    seen.clear()
    monkeypatch.setattr(bodygraph.batch.pool, "can_fork", lambda: False)
    run_batch(source, tmp_path / "c.csv", chunk_size=1000, stderr=quiet)
    assert seen == [default_jobs()] * 3
    assert pools.processes == []
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes() \
        == (tmp_path / "c.csv").read_bytes()


def test_workers_are_forked_only_from_a_process_without_other_threads() -> None:
    alone = subprocess.run(
        [sys.executable, "-c", "from bodygraph.batch.pool import can_fork; print(can_fork())"],
        capture_output=True, text=True, check=True)
    assert alone.stdout.strip() == str(sys.platform.startswith("linux"))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not bodygraph.batch.pool.can_fork()
    finally:
        stop.set()
        other.join()


def test_jobs_default_to_the_cores_this_process_may_use(tmp_path: Path) -> None:
    assert default_jobs() == len(os.sched_getaffinity(0))
    with pytest.raises(BatchError, match="number of jobs must be at least 1"):
        run_batch(_births(tmp_path / "b.csv", 2_000), tmp_path / "o.csv", jobs=0)
