"""Writing the output chunk by chunk: CSV or Parquet, by the file extension
(:func:`output_format`). A chunk's columns are encoded (:func:`encoder_for`, where the
chunk is computed, maybe in a worker process) and the encoded chunks written in order
(:func:`writer_for`, in the job's process), so that the file is the same wherever the
chunks were encoded."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Final, Literal, Protocol

from bodygraph.batch.errors import BatchOptionError
from bodygraph.batch.parquet_input import pyarrow_parquet

Format = Literal["csv", "parquet"]
#: The output formats, by the output file's extension (in any case).
OUTPUT_FORMATS: Final[dict[str, Format]] = {".csv": "csv", ".parquet": "parquet"}

#: The output columns written as instants (UTC timestamps in Parquet).
INSTANT_COLUMNS = ("birth_utc", "design_utc")

#: One chunk of output: each column's values (same columns every time).
Columns = dict[str, list[Any]]


class Writer(Protocol):
    """Where encoded output chunks go."""

    def write(self, part: Any) -> None:
        """Append one encoded chunk."""
        ...

    def close(self) -> None:
        """Finish the file."""
        ...


@dataclass(frozen=True, slots=True)
class CsvPart:
    """A chunk as CSV: its column names and its rows, UTF-8 with CRLF line ends."""

    names: tuple[str, ...]
    data: bytes


def encode_csv(columns: Columns) -> CsvPart:
    """A chunk's rows as CSV."""
    return CsvPart(tuple(columns), _csv_bytes(zip(*columns.values(), strict=True)))


def _csv_bytes(rows: Any) -> bytes:
    text = io.StringIO(newline="")
    csv.writer(text).writerows(rows)
    return text.getvalue().encode("utf-8")


class CsvWriter:
    """Output as CSV with a header row."""

    def __init__(self, path: Path) -> None:
        self._handle: BinaryIO = path.open("wb")
        self._names: tuple[str, ...] | None = None

    def write(self, part: CsvPart) -> None:
        """Append one chunk."""
        if self._names is None:
            self._names = part.names
            self._handle.write(_csv_bytes([part.names]))
        self._handle.write(part.data)

    def close(self) -> None:
        """Flush and close."""
        self._handle.close()


def encode_parquet(columns: Columns) -> Any:
    """A chunk as a ``pyarrow.Table`` (instants as UTC timestamps, the rest as text)."""
    pyarrow_parquet()  # a BatchError when pyarrow is missing
    import pyarrow as pa

    arrays = {}
    for name, values in columns.items():
        if name == "row":
            arrays[name] = pa.array(values, type=pa.int64())
        elif name in INSTANT_COLUMNS:
            arrays[name] = pa.array(
                [None if v is None else datetime.fromisoformat(v) for v in values],
                type=pa.timestamp("us", tz="UTC"),
            )
        else:
            arrays[name] = pa.array(values, type=pa.string())
    return pa.table(arrays)


class ParquetWriter:
    """Output as Parquet, written chunk by chunk."""

    def __init__(self, path: Path) -> None:
        self._parquet = pyarrow_parquet()
        self._path = path
        self._writer: Any = None

    def write(self, part: Any) -> None:
        """Append one chunk (a ``pyarrow.Table`` from :func:`encode_parquet`)."""
        if self._writer is None:
            self._writer = self._parquet.ParquetWriter(str(self._path), part.schema)
        self._writer.write_table(part)

    def close(self) -> None:
        """Write the footer."""
        if self._writer is not None:
            self._writer.close()


def output_format(path: Path) -> Format:
    """The format written to ``path``, by its extension (:data:`OUTPUT_FORMATS`); a
    :class:`BatchOptionError` for any other."""
    found = OUTPUT_FORMATS.get(path.suffix.lower())
    if found is None:
        raise BatchOptionError(
            f"cannot write {path}: the output must be a "
            f"{' or '.join(OUTPUT_FORMATS)} file")
    return found


def encoder_for(kind: Format) -> Callable[[Columns], Any]:
    """How chunks are encoded for an output of format ``kind``."""
    return encode_parquet if kind == "parquet" else encode_csv


def writer_for(path: Path, kind: Format) -> Writer:
    """The writer of format ``kind`` to ``path``."""
    if kind == "parquet":
        return ParquetWriter(path)
    return CsvWriter(path)
