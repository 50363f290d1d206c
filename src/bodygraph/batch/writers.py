"""Writing the output chunk by chunk: CSV or Parquet, by the file extension."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from bodygraph.batch.readers import is_parquet, pyarrow_parquet

#: The output columns written as instants (UTC timestamps in Parquet).
INSTANT_COLUMNS = ("birth_utc", "design_utc")


class Writer(Protocol):
    """Where output chunks go."""

    def write(self, columns: dict[str, list[Any]]) -> None:
        """Append one chunk (same columns every time)."""
        ...

    def close(self) -> None:
        """Finish the file."""
        ...


class CsvWriter:
    """Output as CSV with a header row."""

    def __init__(self, path: Path) -> None:
        self._handle: TextIO = path.open("w", newline="", encoding="utf-8")
        self._writer = csv.writer(self._handle)
        self._header: list[str] | None = None

    def write(self, columns: dict[str, list[Any]]) -> None:
        """Append one chunk."""
        if self._header is None:
            self._header = list(columns)
            self._writer.writerow(self._header)
        self._writer.writerows(zip(*(columns[n] for n in self._header), strict=True))

    def close(self) -> None:
        """Flush and close."""
        self._handle.close()


class ParquetWriter:
    """Output as Parquet (instants as UTC timestamps, the rest as text)."""

    def __init__(self, path: Path) -> None:
        self._parquet = pyarrow_parquet()
        import pyarrow

        self._pa = pyarrow
        self._path = path
        self._writer: Any = None

    def write(self, columns: dict[str, list[Any]]) -> None:
        """Append one chunk."""
        pa = self._pa
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
        table = pa.table(arrays)
        if self._writer is None:
            self._writer = self._parquet.ParquetWriter(str(self._path), table.schema)
        self._writer.write_table(table)

    def close(self) -> None:
        """Write the footer."""
        if self._writer is not None:
            self._writer.close()


def writer_for(path: Path) -> Writer:
    """The writer for ``path``: Parquet for ``.parquet``, CSV otherwise."""
    if is_parquet(path):
        return ParquetWriter(path)
    return CsvWriter(path)
