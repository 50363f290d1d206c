"""One chunk of a job computed by the library's batch machinery (``ChunkWork``): every row
with the outputs and ``error_code`` of ``bodygraph batch``. Picklable and pure: runs in a
local job process or on a Dask worker alike."""

from __future__ import annotations

import csv
import io
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bodygraph.batch.readers import Chunk, input_mode
from bodygraph.batch.resolve import Resolver
from bodygraph.batch.work import ChunkWork
from bodygraph.batch.writers import Columns, encode_csv
from bodygraph.calculator import default_calculator

#: The kinds of job: every column of ``bodygraph batch``, or those of a simple chart.
KINDS = ("chart", "simple")
#: The columns of a ``simple`` job (those the input has, in this order).
SIMPLE_COLUMNS = (
    "row", "id", "birth_utc", "design_utc", "zone", "wall_time", "type", "profile",
    "authority", "definition", "incarnation_cross", "strategy", "signature",
    "not_self_theme", "centers", "channels", "error_code", "error",
)
#: zlib level of stored input and results: fast, still about a fifth of the text.
PACK_LEVEL = 1


def pack(data: bytes) -> bytes:
    """Bytes as stored (compressed)."""
    return zlib.compress(data, PACK_LEVEL)


def unpack(data: bytes) -> bytes:
    """Stored bytes as they were."""
    return zlib.decompress(data)


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """A chunk to compute: the job's kind, the input's header (comma-separated names),
    the chunk's rows (packed CSV without a header) and the number of its first row."""

    kind: str
    header: str
    data: bytes
    first_row: int


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """A chunk computed: its output (packed CSV with a header row) and its bad rows."""

    output: bytes
    rows: int
    failed: int


@cache
def _work(header: str) -> ChunkWork:
    """The batch machinery for inputs with ``header`` (one per process and header: the
    calculator and the resolver's places are kept)."""
    names = header.split(",")
    mode = input_mode(names)
    geocode = None
    if mode == "location":
        from bodygraph.geo.places import default_geocoder  # the offline gazetteer

        geocode = default_geocoder().geocode
    return ChunkWork(source=Path("job"), header=names, resolver=Resolver(mode, geocode),
                     calculator=default_calculator(None), node="true", encode=encode_csv)


def read_rows(header: list[str], text: str) -> tuple[Chunk, int]:
    """The rows of CSV ``text`` as columns of text (a short row's missing cells None), as
    ``bodygraph batch`` reads them; and how many."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    out: Chunk = {name: [] for name in header}
    for row in rows:
        for i, name in enumerate(header):
            out[name].append(row[i] if i < len(row) else None)
    return out, len(rows)


def selected(columns: Columns, kind: str) -> Columns:
    """The output columns of a job of ``kind``."""
    if kind == "simple":
        return {name: columns[name] for name in SIMPLE_COLUMNS if name in columns}
    return columns


def compute_chunk(task: ChunkTask) -> ChunkResult:
    """The chunk of ``task`` computed (see the module docstring)."""
    work = _work(task.header)
    chunk, n = read_rows(work.header, unpack(task.data).decode("utf-8"))
    columns, bad = work.columns(chunk, n, task.first_row)
    part = encode_csv(selected(columns, task.kind))
    head = io.StringIO(newline="")
    csv.writer(head).writerow(part.names)
    return ChunkResult(pack(head.getvalue().encode("utf-8") + part.data), n, len(bad))
