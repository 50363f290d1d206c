"""Parquet input: the file read in record batches (in the job's process, by pyarrow) and a
batch turned into columns of text (in whichever process computes it)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from bodygraph.batch.errors import BatchError
from bodygraph.batch.pieces import Chunk, Piece


def parquet_pieces(path: Path, size: int) -> tuple[list[str], Iterator[Piece]]:
    """The column names of ``path`` and its rows, record batches of ``size`` rows."""
    source = parquet_file(path)
    return list(source.schema_arrow.names), _pieces(path, source, size)


def parse_parquet(header: list[str], piece: Piece) -> Chunk:
    """The rows of a record batch as columns of text."""
    chunk: Chunk = {}
    for name in header:
        values = piece.data.column(name).to_pylist()
        chunk[name] = [None if v is None else _text(v) for v in values]
    return chunk


def parquet_file(path: Path) -> Any:
    """``path`` opened as a ``pyarrow.parquet.ParquetFile``."""
    with _parquet_errors(path):
        return pyarrow_parquet().ParquetFile(str(path))


def pyarrow_parquet() -> Any:
    """``pyarrow.parquet``, or a :class:`BatchError` saying how to install it."""
    try:
        import pyarrow.parquet as parquet
    except ImportError as exc:
        raise BatchError("Parquet needs pyarrow: pip install 'bodygraph[parquet]'") from exc
    return parquet


def _pieces(path: Path, source: Any, size: int) -> Iterator[Piece]:
    with _parquet_errors(path):
        for batch in source.iter_batches(batch_size=size):
            yield Piece(batch.num_rows, batch)


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
