"""CSV input: the file cut into pieces of whole records without parsing them (cheap, in
the job's process), and a piece parsed into columns (in whichever process computes it);
a record holding bytes that are not text in the file's encoding is a bad row."""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import re
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from pathlib import Path
from typing import Final, Protocol, TextIO

from bodygraph.batch.errors import BatchError, BatchOptionError, UndecodableRowError
from bodygraph.batch.pieces import Chunk, Piece

#: How a CSV input is read when no encoding is given: UTF-8, a byte-order mark skipped.
DEFAULT_ENCODING: Final = "utf-8-sig"
#: A byte the encoding could not decode, as the ``surrogateescape`` error handler keeps it.
_UNDECODED: Final = re.compile(r"[\udc80-\udcff]")


def text_encoding(name: str | None) -> str:
    """The codec a CSV input is read with: ``name``, any name Python has for a text
    encoding (UTF-8 with an optional byte-order mark when None or a name of UTF-8); a
    :class:`BatchOptionError` when there is no such text encoding."""
    if name is None:
        return DEFAULT_ENCODING
    try:
        codec = codecs.lookup(name)
        io.TextIOWrapper(io.BytesIO(), encoding=name)  # a text encoding, not base64 or zlib
    except (LookupError, ValueError):
        raise BatchOptionError(f"{name!r} is not the name of a text encoding (try utf-8, "
                               "cp1252 or latin-1)") from None
    return DEFAULT_ENCODING if codec.name == "utf-8" else codec.name


def csv_pieces(path: Path, size: int,
               encoding: str = DEFAULT_ENCODING) -> tuple[list[str], Iterator[Piece]]:
    """The header of ``path`` and its data rows, ``size`` records a piece; ``encoding``
    from :func:`text_encoding`.

    A piece is ``size`` lines as they are when they hold no quote character (then every
    line is one record); otherwise the lines are counted into records by the csv module,
    so that a quoted field spanning lines stays in one piece. A byte that is not text in
    ``encoding`` is kept (as :func:`parse_csv` reports it) in a data row, and is an
    error of the job in the header."""
    handle = path.open(newline="", encoding=encoding, errors="surrogateescape")
    try:
        taken: list[str] = []
        reader = csv.reader(_taking(handle, taken))
        with csv_errors(path, 0, reader, encoding):
            header = [h.strip() for h in next(reader, [])]
        if not header:
            raise BatchError(f"{path} is empty: it needs a header row")
        if undecoded := _undecoded(",".join(header)):
            raise BatchError(f"{path} line 1 (the header) {_not_text(encoding, undecoded)}"
                             f"{_hint(encoding)}")
    except BaseException:
        handle.close()
        raise
    return header, _pieces(path, handle, size, len(taken), encoding)


def parse_csv(path: Path, header: list[str], piece: Piece, encoding: str = DEFAULT_ENCODING,
              ) -> tuple[Chunk, dict[int, UndecodableRowError]]:
    """The rows of a CSV piece as columns of text, and the rows (by their index in the
    piece) holding bytes that are not text in ``encoding``: their cells are empty but
    for ``id``, where each such byte is U+FFFD."""
    reader = csv.reader(io.StringIO(piece.data, newline=""))
    undecodable: dict[int, UndecodableRowError] = {}
    with csv_errors(path, piece.lines, reader, encoding):
        if not _undecoded(piece.data):
            rows = list(reader)
        else:
            rows = []
            before = 0
            for row in reader:
                if undecoded := next(filter(None, map(_undecoded, row)), None):
                    undecodable[len(rows)] = UndecodableRowError(
                        f"line {piece.lines + before + 1} {_not_text(encoding, undecoded)}")
                rows.append(row)
                before = reader.line_num
    out: Chunk = {name: [] for name in header}
    for row in rows:
        for i, name in enumerate(header):
            out[name].append(row[i] if i < len(row) else None)
    for index in undecodable:
        for name, cells in out.items():
            cell = cells[index]
            cells[index] = None if name != "id" or cell is None else _UNDECODED.sub(
                "\ufffd", cell)
    return out, undecodable


@contextlib.contextmanager
def csv_errors(path: Path, before: int, reader: _Counting | None = None,
               encoding: str = DEFAULT_ENCODING) -> Iterator[None]:
    """Undecodable text the ``surrogateescape`` handler cannot keep and malformed CSV as a
    :class:`BatchError` (``before``: the lines of the file before those ``reader`` reads)."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise BatchError(
            f"{path} is not {_label(encoding)} text (it holds the byte "
            f"0x{exc.object[exc.start]:02X}){_hint(encoding)}") from None
    except csv.Error as exc:
        line = before + (reader.line_num if reader is not None else 1)
        raise BatchError(f"{path} line {line} is not CSV: {exc}") from None


def _undecoded(text: str) -> str | None:
    """The first byte of ``text`` that was not decoded (as its escape), if any."""
    if text.isascii():
        return None
    found = _UNDECODED.search(text)
    return found.group() if found else None


def _not_text(encoding: str, undecoded: str) -> str:
    return f"is not {_label(encoding)} text (it holds the byte 0x{ord(undecoded) - 0xDC00:02X})"


def _hint(encoding: str) -> str:
    """What to do about a file that is not text in ``encoding``, when it was not given."""
    if encoding != DEFAULT_ENCODING:
        return ""
    return ": give its encoding (--encoding) or save it as UTF-8"


def _label(encoding: str) -> str:
    """How an encoding is named to people."""
    return "UTF-8" if encoding == DEFAULT_ENCODING else encoding


class _Counting(Protocol):
    """A csv reader: the lines it has read."""

    @property
    def line_num(self) -> int: ...


def _pieces(path: Path, handle: TextIO, size: int, lines: int,
            encoding: str) -> Iterator[Piece]:
    with handle:
        while True:
            with csv_errors(path, lines, None, encoding):
                taken = list(islice(handle, size))
            if not taken:
                return
            text, rows = "".join(taken), len(taken)
            if '"' in text:
                text, rows, taken = _records(path, handle, taken, size, lines, encoding)
            yield Piece(rows, text, lines)
            lines += len(taken)


def _records(path: Path, handle: TextIO, lines: list[str], size: int, before: int,
             encoding: str) -> tuple[str, int, list[str]]:
    """``size`` whole records starting with ``lines`` (more lines from ``handle`` when a
    quoted field spans lines): their text, their number and their lines."""
    more: list[str] = []
    reader = csv.reader(chain(lines, _taking(handle, more)))
    rows = 0
    with csv_errors(path, before, reader, encoding):
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
