"""Reading the input: CSV or Parquet (by the file extension) cut into pieces of whole rows
in the job's process, each piece parsed into columns of text where it is computed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bodygraph.batch.csv_input import DEFAULT_ENCODING, csv_pieces, parse_csv
from bodygraph.batch.errors import BatchError, UndecodableRowError
from bodygraph.batch.parquet_input import parquet_file, parquet_pieces, parse_parquet
from bodygraph.batch.pieces import Chunk, Piece

__all__ = ["MODES", "Chunk", "Piece", "count_rows", "input_mode", "is_parquet", "parse_piece",
           "read_pieces"]

#: The column sets an input may have, by mode, first match wins (see :mod:`bodygraph.batch`).
MODES: dict[str, tuple[str, ...]] = {
    "utc": ("birth_utc",),
    "tz": ("date", "time", "tz"),
    "coordinates": ("date", "time", "lat", "lng"),
    "location": ("date", "time", "location"),
}


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


def read_pieces(path: Path, size: int,
                encoding: str = DEFAULT_ENCODING) -> tuple[list[str], Iterator[Piece]]:
    """The header of ``path`` and its rows, pieces of ``size`` rows (the last may be
    shorter), not yet parsed: :func:`parse_piece` does that. ``encoding``: a CSV file's
    (:func:`~bodygraph.batch.csv_input.text_encoding`)."""
    if is_parquet(path):
        return parquet_pieces(path, size)
    return csv_pieces(path, size, encoding)


def parse_piece(path: Path, header: list[str], piece: Piece, encoding: str = DEFAULT_ENCODING,
                ) -> tuple[Chunk, dict[int, UndecodableRowError]]:
    """The rows of a piece of ``path`` as columns of text, and those (by their index in
    the piece) that are not text in the encoding of a CSV file, with their cells empty."""
    if is_parquet(path):
        return parse_parquet(header, piece), {}
    return parse_csv(path, header, piece, encoding)


def count_rows(path: Path) -> int | None:
    """Data rows in the input, for the progress bar (CSV: lines less the header)."""
    if is_parquet(path):
        return int(parquet_file(path).metadata.num_rows)
    lines = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
    return max(lines - 1, 0)
