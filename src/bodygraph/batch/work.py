"""One piece of the input to one encoded piece of output: parse, resolve, calculate,
build the columns, encode. Runs in the job's process or in a worker process alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware
from bodygraph.batch.csv_input import DEFAULT_ENCODING
from bodygraph.batch.errors import UndecodableRowError, row_error
from bodygraph.batch.readers import Chunk, Piece, parse_piece
from bodygraph.batch.resolve import NOT_A_TIME, Resolver
from bodygraph.batch.writers import INSTANT_COLUMNS, Columns
from bodygraph.calculator import Calculator
from bodygraph.catalog.said import said
from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.columnar import COLUMNS
from bodygraph.errors import OutOfRangeError
from bodygraph.model.chart import NodeKind

#: Bad rows printed one by one on stderr; the rest are counted.
MAX_REPORTED = 20


@dataclass(frozen=True, slots=True)
class Task:
    """A piece of the input and the number of its first row (1-based)."""

    piece: Piece
    first_row: int


@dataclass(frozen=True, slots=True)
class Done:
    """A piece computed: its rows, the encoded output, how many rows are bad and the
    messages of the first :data:`MAX_REPORTED` of them (``row N: reason (CODE)``)."""

    rows: int
    part: Any
    errors: int
    reported: list[str]


@dataclass(frozen=True, slots=True)
class ChunkWork:
    """What the job does to each piece (``threads``: the threads of the engine; ``lang``:
    the language of the ``error`` column, whose ``error_code`` stays the code)."""

    source: Path
    header: list[str]
    resolver: Resolver
    calculator: Calculator
    node: NodeKind
    encode: Callable[[Columns], Any]
    threads: int = 1
    encoding: str = DEFAULT_ENCODING
    range_remedy: str | None = None  # how a row out of range gets a larger kernel
    lang: str = SOURCE_LANGUAGE

    def __call__(self, task: Task) -> Done:
        """The piece of ``task`` computed and encoded."""
        chunk, undecodable = parse_piece(self.source, self.header, task.piece, self.encoding)
        n = len(next(iter(chunk.values())))
        columns, bad = self.columns(chunk, n, task.first_row, undecodable)
        reported = [f"row {row}: {message}" for row, message in bad[:MAX_REPORTED]]
        return Done(n, self.encode(columns), len(bad), reported)

    def columns(self, chunk: Chunk, n: int, first_row: int,
                undecodable: dict[int, UndecodableRowError] | None = None,
                ) -> tuple[Columns, list[tuple[int, str]]]:
        """The output columns of ``n`` rows and the bad ones (row number, message);
        ``undecodable``: the rows that could not be read as text (by index)."""
        calc = self.calculator
        utc, errors, extra = self.resolver.resolve(chunk, n)
        for i, error in (undecodable or {}).items():
            utc[i], errors[i] = NOT_A_TIME, row_error(error)
        ok = ~np.isnat(utc)
        in_range = np.zeros(n, dtype=bool)
        in_range[ok] = calc.in_range(utc[ok])
        remedy = {"remedy": self.range_remedy} if self.range_remedy else {}
        for i in np.flatnonzero(ok & ~in_range).tolist():
            errors[i] = row_error(OutOfRangeError(to_aware(utc[i]), calc.first_birth,
                                                  calc.last_birth, **remedy))
        good = np.flatnonzero(in_range)
        table = calc.calculate_many(utc[good], node=self.node, workers=self.threads)
        computed = table.columns()
        columns: Columns = {"row": list(range(first_row, first_row + n))}
        if "id" in chunk:
            columns["id"] = list(chunk["id"])
        iso = {name: _iso(computed[name]) for name in INSTANT_COLUMNS}
        for name in COLUMNS:
            values = np.full(n, None, dtype=object)
            values[good] = iso.get(name, computed[name])
            columns[name] = values.tolist()
        columns.update(extra)
        columns["error_code"] = [None if e is None else e[0] for e in errors]
        columns["error"] = [None if e is None else said(e[1], self.lang) for e in errors]
        bad = [(first_row + i, f"{e[1]} ({e[0]})") for i, e in enumerate(errors)
               if e is not None]
        return columns, bad


def _iso(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    text = np.datetime_as_string(values.astype("datetime64[us]"), unit="us")
    return np.char.add(text, "Z") if text.size else text
