"""What the batch job passes between reading and computing: a piece of the input as read
(whole rows, not yet parsed) and a chunk of rows parsed into columns of text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: One chunk of the input: each column's values as text (None where a cell is missing).
Chunk = dict[str, list[str | None]]


@dataclass(frozen=True, slots=True)
class Piece:
    """Whole rows of the input, cut out cheaply and parsed later (maybe in another
    process): CSV text (``data`` a str of whole records, ``lines`` the file's lines
    before it, for error messages) or a Parquet record batch (``data`` a
    ``pyarrow.RecordBatch``)."""

    rows: int
    data: Any
    lines: int = 0
