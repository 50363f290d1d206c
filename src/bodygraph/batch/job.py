"""The batch job: read a chunk, resolve its rows to instants, calculate, write, report."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware
from bodygraph.batch.errors import BatchError, row_error
from bodygraph.batch.progress import Progress
from bodygraph.batch.readers import Chunk, count_rows, input_mode, read_chunks
from bodygraph.batch.resolve import Resolver
from bodygraph.batch.writers import INSTANT_COLUMNS, writer_for
from bodygraph.calculator import Calculator, default_calculator
from bodygraph.columnar import COLUMNS
from bodygraph.errors import OutOfRangeError
from bodygraph.model.chart import NodeKind

if TYPE_CHECKING:
    from bodygraph.geo.places import Place

DEFAULT_CHUNK = 20_000
MAX_REPORTED = 20  # bad rows printed one by one on stderr; the rest are counted


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a job did."""

    rows: int
    errors: int
    seconds: float


def run_batch(
    source: Path,
    target: Path,
    *,
    calculator: Calculator | None = None,
    node: NodeKind = "true",
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool = False,
    geocode: Callable[[str], Place] | None = None,
    stderr: IO[str] | None = None,
    jobs: int | None = None,
) -> BatchSummary:
    """Calculate a chart for every row of ``source`` and write them to ``target``.

    ``geocode`` looks up the ``location`` column (default: the offline gazetteer); bad
    rows are reported on ``stderr`` (default: ``sys.stderr``), at most
    :data:`MAX_REPORTED` one by one. ``jobs`` threads compute each chunk's charts
    (default: :func:`default_jobs`, every core this process may use); the output is the
    same, byte for byte and in input order, whatever the number.
    """
    err = stderr if stderr is not None else sys.stderr
    if chunk_size < 1:
        raise BatchError("the chunk size must be at least 1")
    workers = default_jobs() if jobs is None else jobs
    if workers < 1:
        raise BatchError("the number of jobs must be at least 1")
    if not source.is_file():
        raise BatchError(f"input file not found: {source}")
    calc = calculator or default_calculator(None)
    bar = Progress(count_rows(source) if progress else None, err, enabled=progress)
    writer = writer_for(target)
    resolver: Resolver | None = None
    started = time.monotonic()
    first_row = 1
    reported = 0
    # With more than one job, a chunk is written on a thread of its own while the next one
    # is read and computed (the engine runs without the GIL); one write at a time, in order.
    pool = ThreadPoolExecutor(1, thread_name_prefix="batch-writer") if workers > 1 else None
    pending: Future[None] | None = None
    try:
        for header, chunk in read_chunks(source, chunk_size):
            if resolver is None:
                resolver = _resolver(input_mode(header), geocode)
            n = len(next(iter(chunk.values())))
            columns, bad = _chunk(calc, resolver, chunk, n, first_row, node, workers)
            clear = "\r\x1b[K" if progress and err.isatty() else ""
            for row, message in bad[: max(MAX_REPORTED - reported, 0)]:
                err.write(f"{clear}row {row}: {message}\n")
                reported += 1
            if pending is not None:
                pending.result()  # at most one chunk waits to be written: memory stays bounded
            if pool is None:
                writer.write(columns)
            else:
                pending = pool.submit(writer.write, columns)
            bar.update(n, len(bad))
            first_row += n
        if pending is not None:
            pending.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True)  # the write in flight ends before the file is closed
        writer.close()
    if resolver is None:  # an input with a header only
        raise BatchError(f"{source} has no data rows")
    bar.finish()
    if bar.errors > MAX_REPORTED:
        err.write(f"... and {bar.errors - MAX_REPORTED:,} more bad rows (see the error column)\n")
    seconds = time.monotonic() - started
    return BatchSummary(bar.done, bar.errors, seconds)


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS and Windows
        return os.cpu_count() or 1


def _resolver(mode: str, geocode: Callable[[str], Place] | None) -> Resolver:
    if mode == "location" and geocode is None:
        from bodygraph.geo.places import default_geocoder  # the gazetteer: only when needed

        geocode = default_geocoder().geocode
    return Resolver(mode, geocode)


def _chunk(calc: Calculator, resolver: Resolver, chunk: Chunk, n: int, first_row: int,
           node: NodeKind, workers: int) -> tuple[dict[str, list[Any]], list[tuple[int, str]]]:
    utc, errors, extra = resolver.resolve(chunk, n)
    ok = ~np.isnat(utc)
    in_range = np.zeros(n, dtype=bool)
    in_range[ok] = calc.in_range(utc[ok])
    for i in np.flatnonzero(ok & ~in_range).tolist():
        errors[i] = row_error(OutOfRangeError(to_aware(utc[i]), calc.first_birth,
                                              calc.last_birth))
    good = np.flatnonzero(in_range)
    table = calc.calculate_many(utc[good], node=node, workers=workers)
    computed = table.columns()
    columns: dict[str, list[Any]] = {"row": list(range(first_row, first_row + n))}
    if "id" in chunk:
        columns["id"] = list(chunk["id"])
    iso = {name: _iso(computed[name]) for name in INSTANT_COLUMNS}
    for name in COLUMNS:
        values = np.full(n, None, dtype=object)
        values[good] = iso.get(name, computed[name])
        columns[name] = values.tolist()
    columns.update(extra)
    columns["error_code"] = [None if e is None else e[0] for e in errors]
    columns["error"] = [None if e is None else e[1] for e in errors]
    bad = [(first_row + i, f"{e[1]} ({e[0]})") for i, e in enumerate(errors) if e is not None]
    return columns, bad


def _iso(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    text = np.datetime_as_string(values.astype("datetime64[us]"), unit="us")
    return np.char.add(text, "Z") if text.size else text
