"""A job's result streamed in input order, chunk after chunk as stored: NDJSON (one object
a row, the columns of ``bodygraph batch``), CSV (those columns, one header row) or
Parquet, chosen by the request's ``Accept``; with ``?lang=`` the ``error`` cells in it."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Callable, Iterator
from json.encoder import encode_basestring_ascii as escape
from typing import Any

import anyio.to_thread

from bodygraph.batch.writers import INSTANT_COLUMNS, Columns, encode_parquet
from bodygraph.catalog.said import said
from bodygraph_server.execution.chunks import pack, unpack

NDJSON = "application/x-ndjson"
CSV = "text/csv; charset=utf-8"
PARQUET = "application/vnd.apache.parquet"
#: The media types asked for in ``Accept``, by format.
ACCEPTED = {"csv": ("text/csv",),
            "parquet": ("application/vnd.apache.parquet", "application/x-parquet",
                        "application/parquet")}


def result_format(accept: str) -> tuple[str, str]:
    """The format (``ndjson``, ``csv``, ``parquet``) and media type answered for
    ``accept``: the first of its types that names CSV or Parquet, else NDJSON."""
    for item in accept.split(","):
        kind = item.split(";")[0].strip().lower()
        if kind in ACCEPTED["csv"]:
            return "csv", CSV
        if kind in ACCEPTED["parquet"]:
            return "parquet", PARQUET
    return "ndjson", NDJSON


def _split(part: bytes) -> tuple[list[str], str]:
    """A stored chunk's column names and its rows (CSV text without the header)."""
    text = unpack(part).decode("utf-8")
    head, _, rows = text.partition("\r\n")
    return next(csv.reader([head])), rows


def _columns(names: list[str], rows: str) -> Columns:
    """The rows as columns (an empty cell is None, ``row`` a number)."""
    columns: Columns = {name: [] for name in names}
    lists = list(columns.values())
    for row in csv.reader(io.StringIO(rows, newline="")):
        for values, cell in zip(lists, row, strict=False):
            values.append(cell or None)
    if "row" in columns:
        columns["row"] = [int(value) for value in columns["row"]]
    return columns


def said_part(part: bytes, lang: str) -> bytes:
    """A stored chunk with its ``error`` cells in ``lang`` (as ``bodygraph batch --lang``
    writes them; ``error_code`` and the other cells unchanged), stored as before."""
    names, rows = _split(part)
    if "error" not in names or not rows:
        return part
    at = names.index("error")
    table = list(csv.reader(io.StringIO(rows, newline="")))
    changed = False
    for row in table:
        if at < len(row) and row[at]:
            words = said(row[at], lang)
            changed = changed or words != row[at]
            row[at] = words
    if not changed:
        return part
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(names)
    writer.writerows(table)
    return pack(text.getvalue().encode("utf-8"))


def ndjson_part(part: bytes, first: bool) -> bytes:
    """A stored chunk as NDJSON lines: per row, the object ``json.dumps`` writes (ASCII,
    no spaces) of its columns, an empty cell ``null`` and ``row`` a number; written from
    each cell's escaped text, without a dict a row."""
    names, rows = _split(part)
    keys = [escape(name) + ":" for name in names]
    number = names.index("row") if "row" in names else -1
    lines = []
    for row in csv.reader(io.StringIO(rows, newline="")):
        cells = [key + (escape(cell) if cell else "null")
                 for key, cell in zip(keys, row, strict=True)]
        if number >= 0:
            cells[number] = keys[number] + str(int(row[number]))
        lines.append("{" + ",".join(cells) + "}\n")
    return "".join(lines).encode("ascii")


def csv_part(part: bytes, first: bool) -> bytes:
    """A stored chunk as CSV (its header row only for the first)."""
    text = unpack(part)
    return text if first else text.partition(b"\r\n")[2]


class _Sink(io.RawIOBase):
    """Where the Parquet writer writes: the bytes taken out as they come."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.position = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.parts.append(chunk)
        self.position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self.position

    def take(self) -> bytes:
        """The bytes written since the last take."""
        data, self.parts = b"".join(self.parts), []
        return data


def parquet_table(part: bytes) -> Any:
    """A stored chunk as the ``pyarrow.Table`` :func:`encode_parquet` makes of its columns
    (an empty cell null, ``row`` a number, instants UTC timestamps), its text read by
    pyarrow's CSV reader (one thread)."""
    import pyarrow as pa
    from pyarrow import csv as arrow_csv

    names, rows = _split(part)
    if not rows:
        return encode_parquet(_columns(names, rows))
    table = arrow_csv.read_csv(
        io.BytesIO(rows.encode("utf-8")),
        read_options=arrow_csv.ReadOptions(column_names=names, use_threads=False),
        parse_options=arrow_csv.ParseOptions(newlines_in_values=True),
        convert_options=arrow_csv.ConvertOptions(
            column_types={name: pa.int64() if name == "row" else pa.string()
                          for name in names},
            null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=True))
    for name in INSTANT_COLUMNS:
        if name in names:
            instants = encode_parquet({name: table.column(name).to_pylist()})
            table = table.set_column(names.index(name), name, instants.column(name))
    return table


def parquet_parts(parts: Iterator[bytes]) -> Iterator[bytes]:
    """The stored chunks as one Parquet file, a row group per chunk, as written."""
    from bodygraph.batch.parquet_input import pyarrow_parquet

    parquet = pyarrow_parquet()
    sink = _Sink()
    writer: Any = None
    for part in parts:
        table = parquet_table(part)
        if writer is None:
            writer = parquet.ParquetWriter(sink, table.schema)
        writer.write_table(table)
        yield sink.take()
    if writer is not None:
        writer.close()
        yield sink.take()


async def streamed(parts: Iterator[bytes], kind: str,
                   lang: str | None = None) -> AsyncIterator[bytes]:
    """The body of a result of format ``kind``: ``parts`` (blocking reads of the stored
    chunks) turned into it in a worker thread, one chunk at a time; with ``lang``, their
    ``error`` cells in that language."""
    source: Iterator[bytes]
    if lang is not None:
        parts = (said_part(part, lang) for part in parts)
    if kind == "parquet":
        source = parquet_parts(parts)
    else:
        encode: Callable[[bytes, bool], bytes] = csv_part if kind == "csv" else ndjson_part
        source = (encode(part, i == 0) for i, part in enumerate(parts))
    while True:
        data = await anyio.to_thread.run_sync(next, source, None)
        if data is None:
            return
        if data:
            yield data
