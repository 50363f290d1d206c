"""CSV input: the file cut into pieces of whole records without parsing them (cheap, in
the job's process), and a piece parsed into columns (in whichever process computes it)."""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from pathlib import Path
from typing import Protocol, TextIO

from bodygraph.batch.errors import BatchError
from bodygraph.batch.pieces import Chunk, Piece


def csv_pieces(path: Path, size: int) -> tuple[list[str], Iterator[Piece]]:
    """The header of ``path`` and its data rows, ``size`` records a piece.

    A piece is ``size`` lines as they are when they hold no quote character (then every
    line is one record); otherwise the lines are counted into records by the csv module,
    so that a quoted field spanning lines stays in one piece."""
    handle = path.open(newline="", encoding="utf-8-sig")
    try:
        taken: list[str] = []
        reader = csv.reader(_taking(handle, taken))
        with csv_errors(path, 0, reader):
            header = [h.strip() for h in next(reader, [])]
        if not header:
            raise BatchError(f"{path} is empty: it needs a header row")
    except BaseException:
        handle.close()
        raise
    return header, _pieces(path, handle, size, len(taken))


def parse_csv(path: Path, header: list[str], piece: Piece) -> Chunk:
    """The rows of a CSV piece as columns of text."""
    reader = csv.reader(io.StringIO(piece.data, newline=""))
    with csv_errors(path, piece.lines, reader):
        rows = list(reader)
    out: Chunk = {name: [] for name in header}
    for row in rows:
        for i, name in enumerate(header):
            out[name].append(row[i] if i < len(row) else None)
    return out


@contextlib.contextmanager
def csv_errors(path: Path, before: int, reader: _Counting | None = None) -> Iterator[None]:
    """Undecodable text and malformed CSV as a :class:`BatchError` (``before``: the lines
    of the file before those ``reader`` reads)."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise BatchError(
            f"{path} is not UTF-8 text (it holds the byte 0x{exc.object[exc.start]:02X}): "
            "save it as UTF-8 CSV") from None
    except csv.Error as exc:
        line = before + (reader.line_num if reader is not None else 1)
        raise BatchError(f"{path} line {line} is not CSV: {exc}") from None


class _Counting(Protocol):
    """A csv reader: the lines it has read."""

    @property
    def line_num(self) -> int: ...


def _pieces(path: Path, handle: TextIO, size: int, lines: int) -> Iterator[Piece]:
    with handle:
        while True:
            with csv_errors(path, lines):
                taken = list(islice(handle, size))
            if not taken:
                return
            text, rows = "".join(taken), len(taken)
            if '"' in text:
                text, rows, taken = _records(path, handle, taken, size, lines)
            yield Piece(rows, text, lines)
            lines += len(taken)


def _records(path: Path, handle: TextIO, lines: list[str], size: int,
             before: int) -> tuple[str, int, list[str]]:
    """``size`` whole records starting with ``lines`` (more lines from ``handle`` when a
    quoted field spans lines): their text, their number and their lines."""
    more: list[str] = []
    reader = csv.reader(chain(lines, _taking(handle, more)))
    rows = 0
    with csv_errors(path, before, reader):
        for _ in reader:
            rows += 1
            if rows == size:
                break
    taken = lines + more
    return "".join(taken), rows, taken


def _taking(lines: Iterable[str], taken: list[str]) -> Iterator[str]:
    """``lines``, each kept in ``taken`` as it is read."""
    for line in lines:
        taken.append(line)
        yield line
