"""The batch job: the input cut into pieces, each piece parsed, resolved, calculated and
encoded (in this process, or in worker processes), the results written in input order,
the bad rows reported and the progress shown."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import IO, TYPE_CHECKING, NoReturn, TypeVar

from bodygraph.batch.csv_input import text_encoding
from bodygraph.batch.errors import BatchError, BatchOptionError
from bodygraph.batch.progress import Progress
from bodygraph.batch.readers import Piece, count_rows, input_mode, is_parquet, read_pieces
from bodygraph.batch.resolve import Resolver
from bodygraph.batch.target import check_target, staged
from bodygraph.batch.work import MAX_REPORTED, ChunkWork, Done, Task
from bodygraph.batch.writers import encoder_for, output_format, writer_for
from bodygraph.calculator import Calculator, default_calculator
from bodygraph.catalog.batch_lines import MORE_BAD_ROWS
from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.model.chart import NodeKind

if TYPE_CHECKING:
    from bodygraph.geo.places import Place

DEFAULT_CHUNK = 20_000
#: Pieces given out to the workers and not yet written, per worker: one computed while
#: the next waits, so that no worker idles while the job's process writes.
AHEAD = 2

X = TypeVar("X")


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
    encoding: str | None = None,
    range_remedy: str | None = None,
    say: Callable[[str], str] = str,
    lang: str = SOURCE_LANGUAGE,
) -> BatchSummary:
    """Calculate a chart for every row of ``source`` and write them to ``target``.

    ``target`` must end in ``.csv`` or ``.parquet`` and must not be ``source`` (by any
    path or link): else a :class:`~bodygraph.batch.errors.BatchOptionError`, like any
    option that cannot be used, before anything is read or written. The output is
    written to a temporary file beside ``target``, renamed to it when the job has ended
    well and removed when it fails or is interrupted. ``encoding`` is a CSV input's text
    encoding (default UTF-8); a row holding bytes that are not text in it is a bad row.
    ``geocode`` looks up the ``location`` column (default: the offline gazetteer); bad
    rows are reported on ``stderr`` (default: ``sys.stderr``), at most
    :data:`MAX_REPORTED` one by one. With ``jobs`` > 1 (default: :func:`default_jobs`,
    every core this process may use) the chunks are computed by that many worker
    processes, forked from this one (on Linux, when this process runs no other thread;
    else, and when the input is a single chunk, by that many threads here); the output
    is the same, byte for byte and in input order, whatever the number.
    ``range_remedy`` says how to use a larger kernel in the error of a row outside the
    ephemeris (default: the library's words, ``ephemeris=``; the command line names its
    ``--ephemeris``). ``say`` words each bad row's line written on ``stderr`` (the command
    line says them in its language); ``lang`` is the language of the output's ``error``
    column (its ``error_code`` stays the code) and of the other lines on ``stderr``, their
    numbers too (``20.000`` in German).
    """
    err = stderr if stderr is not None else sys.stderr
    if chunk_size < 1:
        raise BatchOptionError("the chunk size must be at least 1")
    workers = default_jobs() if jobs is None else jobs
    if workers < 1:
        raise BatchOptionError("the number of jobs must be at least 1")
    if target.is_dir():  # a folder first: its name says nothing of a format
        check_target(source, target)
    kind = output_format(target)
    codec = text_encoding(encoding)
    if encoding is not None and is_parquet(source):
        raise BatchOptionError("an encoding is for CSV input: Parquet text is UTF-8")
    if not source.is_file():
        raise BatchError(f"input file not found: {source}")
    check_target(source, target)
    calc = calculator or default_calculator(None)
    bar = Progress(count_rows(source) if progress else None, err, enabled=progress, lang=lang)
    started = time.monotonic()
    reported = 0
    with staged(target) as temporary:  # renamed to target at the end, removed on an error
        writer = writer_for(temporary, kind)
        try:
            header, pieces = read_pieces(source, chunk_size, codec)
            first = next(pieces, None)
            if first is None:
                raise BatchError(f"{source} has no data rows")
            mode = input_mode(header)
            work = ChunkWork(source, header, _resolver(mode, geocode), calc, node,
                             encoder_for(kind), encoding=codec, range_remedy=range_remedy,
                             lang=lang)
            looked_up = mode == "location"
            # A caller's geocoder (an online one: paid, rate-limited requests) stays in
            # this process with its cache; workers would each look the same places up.
            results = _computed(work, _tasks(chain([first], pieces)), workers,
                                offline=looked_up and geocode is None,
                                forkable=not looked_up or geocode is None)
            with closing(results):  # on an error here too, the workers stop at once
                for done in results:
                    clear = "\r\x1b[K" if progress and err.isatty() else ""
                    for line in done.reported[: max(MAX_REPORTED - reported, 0)]:
                        err.write(f"{clear}{say(line)}\n")
                        reported += 1
                    writer.write(done.part)
                    bar.update(done.rows, done.errors)
        finally:
            writer.close()
    bar.finish()
    if bar.errors > MAX_REPORTED:
        more = bar.errors - MAX_REPORTED
        err.write(MORE_BAD_ROWS.said(lang, more).format(count=number_text(more, lang)) + "\n")
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


def _tasks(pieces: Iterable[Piece]) -> Iterator[Task]:
    first_row = 1
    for piece in pieces:
        yield Task(piece, first_row)
        first_row += piece.rows


def _computed(work: ChunkWork, tasks: Iterator[Task], jobs: int, *,
              offline: bool, forkable: bool) -> Generator[Done, None, None]:
    """Each task's result, in order: in this process with one job (or a single chunk, or
    a caller's geocoder, or where workers cannot be forked: then the engine runs on
    ``jobs`` threads), else in ``jobs`` worker processes."""
    if jobs > 1 and forkable:
        from bodygraph.batch.pool import WorkerPool, can_fork  # multiprocessing: 10 ms

        head, tasks = _peek(tasks, 2)
        if len(head) == 2 and can_fork():
            _load(work, offline=offline)
            with WorkerPool(work, jobs) as pool:
                yield from pool.map(tasks, ahead=AHEAD * jobs)
            return
    yield from map(replace(work, threads=jobs), tasks)


def _load(work: ChunkWork, *, offline: bool) -> None:
    """Load what the workers use before they are forked, so that they share it: the
    compiled engine and the kernel, the zone finder, the offline gazetteer."""
    work.calculator.warm_up()
    if work.resolver.mode in ("coordinates", "location"):
        from bodygraph.geo.timezones import zone_at

        zone_at(0.0, 0.0)
    if offline:
        from bodygraph.geo.places import default_geocoder

        default_geocoder().prepare()


def _peek(items: Iterator[X], count: int) -> tuple[list[X], Iterator[X]]:
    """The first ``count`` items (fewer when there are no more) and an iterator of all
    of them; an error reading ahead is raised in its turn, after the items before it."""
    head: list[X] = []
    try:
        for _ in range(count):
            head.append(next(items))
    except StopIteration:
        pass
    except Exception as exc:
        return head, chain(head, _raise(exc))
    return head, chain(head, items)


def _raise(exc: Exception) -> Iterator[NoReturn]:
    raise exc
    yield  # pragma: no cover - a generator that raises when first read
