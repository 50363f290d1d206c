"""Reading the input in chunks: CSV or Parquet in, columns of text out."""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from bodygraph.batch.errors import BatchError

#: The column sets an input may have, by mode, first match wins (see :mod:`bodygraph.batch`).
MODES: dict[str, tuple[str, ...]] = {
    "utc": ("birth_utc",),
    "tz": ("date", "time", "tz"),
    "coordinates": ("date", "time", "lat", "lng"),
    "location": ("date", "time", "location"),
}

#: One chunk of the input: each column's values as text (None where a cell is missing).
Chunk = dict[str, list[str | None]]


def input_mode(header: list[str]) -> str:
    """Which column set a header provides (see :data:`MODES`)."""
    names = {h.strip() for h in header}
    for mode, needed in MODES.items():
        if all(n in names for n in needed):
            return mode
    wanted = " | ".join(",".join(cols) for cols in MODES.values())
    raise BatchError(f"the input has columns {sorted(names)}; it needs one of: {wanted}")


def is_parquet(path: Path) -> bool:
    """Whether ``path`` is read and written as Parquet (by its extension), else CSV."""
    return path.suffix.lower() == ".parquet"


def read_chunks(path: Path, size: int) -> Iterator[tuple[list[str], Chunk]]:
    """The header and the rows of ``path``, ``size`` rows at a time."""
    return _parquet_chunks(path, size) if is_parquet(path) else _csv_chunks(path, size)


def _csv_chunks(path: Path, size: int) -> Iterator[tuple[list[str], Chunk]]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        try:
            header = [h.strip() for h in next(reader, [])]
            if not header:
                raise BatchError(f"{path} is empty: it needs a header row")
            rows: list[list[str]] = []
            for row in reader:
                rows.append(row)
                if len(rows) == size:
                    yield header, _columns_of(header, rows)
                    rows = []
        except UnicodeDecodeError as exc:
            raise BatchError(
                f"{path} is not UTF-8 text (it holds the byte 0x{exc.object[exc.start]:02X}): "
                "save it as UTF-8 CSV") from None
        except csv.Error as exc:
            raise BatchError(f"{path} line {reader.line_num} is not CSV: {exc}") from None
        if rows:
            yield header, _columns_of(header, rows)


def _columns_of(header: list[str], rows: list[list[str]]) -> Chunk:
    out: Chunk = {name: [] for name in header}
    for row in rows:
        for i, name in enumerate(header):
            out[name].append(row[i] if i < len(row) else None)
    return out


def _parquet_chunks(path: Path, size: int) -> Iterator[tuple[list[str], Chunk]]:
    with _parquet_errors(path):
        source = _parquet_file(path)
        header = list(source.schema_arrow.names)
        for batch in source.iter_batches(batch_size=size):
            chunk: Chunk = {}
            for name in header:
                values = batch.column(name).to_pylist()
                chunk[name] = [None if v is None else _text(v) for v in values]
            yield header, chunk


def _parquet_file(path: Path) -> Any:
    """``path`` opened as a ``pyarrow.parquet.ParquetFile``."""
    with _parquet_errors(path):
        return pyarrow_parquet().ParquetFile(str(path))


@contextlib.contextmanager
def _parquet_errors(path: Path) -> Iterator[None]:
    """pyarrow's errors about a file that is no readable Parquet as a :class:`BatchError`."""
    pyarrow_parquet()  # a BatchError when pyarrow is missing
    import pyarrow

    try:
        yield
    except pyarrow.ArrowException as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise  # the file system's error, reported as such
        detail = str(exc).strip().splitlines()
        reason = f" ({detail[0]})" if detail else ""
        raise BatchError(f"{path} is not a readable Parquet file{reason}") from None


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def pyarrow_parquet() -> Any:
    """``pyarrow.parquet``, or a :class:`BatchError` saying how to install it."""
    try:
        import pyarrow.parquet as parquet
    except ImportError as exc:
        raise BatchError("Parquet needs pyarrow: pip install 'bodygraph[parquet]'") from exc
    return parquet


def count_rows(path: Path) -> int | None:
    """Data rows in the input, for the progress bar (CSV: lines less the header)."""
    if is_parquet(path):
        return int(_parquet_file(path).metadata.num_rows)
    lines = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
    return max(lines - 1, 0)
