"""``bodygraph batch``: charts for a whole file of births, streamed in chunks.

The input is CSV, or Parquet when pyarrow is installed, with one of these column sets
(chosen from the header, first match wins):

* ``birth_utc``: an ISO 8601 instant (``Z`` or an offset; without one it is read as UTC);
* ``date``, ``time`` and ``tz``: a local wall time and an IANA zone;
* ``date``, ``time``, ``lat`` and ``lng``: a local wall time at a point (zone from the point);
* ``date``, ``time`` and ``location``: a local wall time at a place name (geocoded once per
  distinct name, offline by default).

An ``id`` column, if present, is copied to the output. The output (CSV or Parquet, by
the file extension) has a ``row`` column (1-based data row of the input), ``id``, the
columns of :data:`bodygraph.columnar.COLUMNS`, ``zone`` and ``wall_time`` for local times,
and ``error``. A row that cannot be read or calculated keeps its place with an empty
chart and the reason in ``error``; it is also reported on stderr with its row number.
Memory stays bounded: rows are read, calculated and written ``--chunk-size`` at a time.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from datetime import time as clock
from pathlib import Path
from typing import IO, Any, Protocol, TextIO

import numpy as np
import numpy.typing as npt

from bodygraph._time import to_aware
from bodygraph.calculator import Calculator, default_calculator
from bodygraph.columnar import COLUMNS
from bodygraph.errors import BodygraphError, OutOfRangeError
from bodygraph.model.chart import NodeKind

DEFAULT_CHUNK = 20_000
MAX_REPORTED = 20  # bad rows printed one by one on stderr; the rest are counted
_NOT_A_TIME = np.datetime64("NaT", "us")


class BatchError(BodygraphError):
    """The job cannot run at all (unreadable input, unknown columns, bad options)."""


# -- input -----------------------------------------------------------------------------------

MODES: dict[str, tuple[str, ...]] = {
    "utc": ("birth_utc",),
    "tz": ("date", "time", "tz"),
    "coordinates": ("date", "time", "lat", "lng"),
    "location": ("date", "time", "location"),
}


def input_mode(header: list[str]) -> str:
    """Which column set a header provides (see the module docstring)."""
    names = {h.strip() for h in header}
    for mode, needed in MODES.items():
        if all(n in names for n in needed):
            return mode
    wanted = " | ".join(",".join(cols) for cols in MODES.values())
    raise BatchError(f"the input has columns {sorted(names)}; it needs one of: {wanted}")


Chunk = dict[str, list[str | None]]


def _csv_chunks(path: Path, size: int) -> Iterator[tuple[list[str], Chunk]]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        header = [h.strip() for h in next(reader, [])]
        if not header:
            raise BatchError(f"{path} is empty: it needs a header row")
        rows: list[list[str]] = []
        for row in reader:
            rows.append(row)
            if len(rows) == size:
                yield header, _columns_of(header, rows)
                rows = []
        if rows:
            yield header, _columns_of(header, rows)


def _columns_of(header: list[str], rows: list[list[str]]) -> Chunk:
    out: Chunk = {name: [] for name in header}
    for row in rows:
        for i, name in enumerate(header):
            out[name].append(row[i] if i < len(row) else None)
    return out


def _parquet_chunks(path: Path, size: int) -> Iterator[tuple[list[str], Chunk]]:
    parquet = _pyarrow_parquet()
    source = parquet.ParquetFile(str(path))
    header = list(source.schema_arrow.names)
    for batch in source.iter_batches(batch_size=size):
        chunk: Chunk = {}
        for name in header:
            values = batch.column(name).to_pylist()
            chunk[name] = [None if v is None else _text(v) for v in values]
        yield header, chunk


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as parquet
    except ImportError as exc:
        raise BatchError("Parquet needs pyarrow: pip install 'bodygraph[parquet]'") from exc
    return parquet


def count_rows(path: Path) -> int | None:
    """Data rows in the input, for the progress bar (CSV: lines less the header)."""
    if path.suffix.lower() == ".parquet":
        return int(_pyarrow_parquet().ParquetFile(str(path)).metadata.num_rows)
    lines = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
    return max(lines - 1, 0)


# -- rows -> instants -------------------------------------------------------------------------

@dataclass
class Resolver:
    """Turns the rows of a chunk into UTC instants, remembering geocoded places."""

    mode: str
    geocode: Callable[[str], Any] | None = None
    places: dict[str, Any] = field(default_factory=dict)

    def resolve(self, chunk: Chunk, n: int) -> tuple[
        npt.NDArray[np.datetime64], list[str | None], dict[str, list[str | None]]
    ]:
        """UTC instants (NaT where the row is bad), an error per row, and extra columns."""
        utc = np.full(n, _NOT_A_TIME)
        errors: list[str | None] = [None] * n
        extra: dict[str, list[str | None]] = {}
        if self.mode == "utc":
            fast = _utc_column(chunk["birth_utc"])
            if fast is not None:
                return fast, errors, extra
            for i, text in enumerate(chunk["birth_utc"]):
                try:
                    utc[i] = _utc_micros(text)
                except (ValueError, BodygraphError) as exc:
                    errors[i] = _message(exc)
            return utc, errors, extra
        from bodygraph.geo.timezones import to_utc

        zones: list[str | None] = [None] * n
        walls: list[str | None] = [None] * n
        extra = {"zone": zones, "wall_time": walls}
        places = self._zones(chunk, n, errors)
        for i in range(n):
            if errors[i] is not None:
                continue
            try:
                local = datetime.combine(_date(chunk["date"][i]), _clock(chunk["time"][i]))
                zone = places[i]
                if zone is None:
                    raise BatchError("no time zone")
                resolved = to_utc(local, zone)
                utc[i] = np.datetime64(resolved.utc.replace(tzinfo=None), "us")
                zones[i], walls[i] = resolved.zone, resolved.wall_time.value
            except (ValueError, BodygraphError) as exc:
                errors[i] = _message(exc)
        return utc, errors, extra

    def _zones(self, chunk: Chunk, n: int, errors: list[str | None]) -> list[str | None]:
        if self.mode == "tz":
            return [(z or "").strip() or None for z in chunk["tz"]]
        from bodygraph.geo.timezones import zone_at

        zones: list[str | None] = [None] * n
        for i in range(n):
            try:
                if self.mode == "coordinates":
                    lat, lng = float(chunk["lat"][i] or "nan"), float(chunk["lng"][i] or "nan")
                else:
                    place = self._place((chunk["location"][i] or "").strip())
                    lat, lng = place.latitude, place.longitude
                zones[i] = zone_at(lat, lng)
            except (ValueError, BodygraphError) as exc:
                errors[i] = _message(exc)
        return zones

    def _place(self, text: str) -> Any:
        if not text:
            raise BatchError("the location is empty")
        if text not in self.places:
            if self.geocode is None:  # pragma: no cover - set for the location mode
                raise BatchError("no geocoder")
            if len(self.places) > 100_000:  # keep memory bounded on endless distinct names
                self.places.clear()
            try:
                self.places[text] = self.geocode(text)
            except BodygraphError as exc:
                self.places[text] = exc
        found = self.places[text]
        if isinstance(found, BodygraphError):
            raise found
        return found


def _message(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


def _utc_column(texts: list[str | None]) -> npt.NDArray[np.datetime64] | None:
    """The whole column at once when every value is plain UTC (``...Z`` or no offset);
    None when any value needs a closer look (offsets, blanks, errors)."""
    plain = []
    for text in texts:
        if text is None or "T" not in text or "+" in text or text.count("-") > 2:
            return None
        plain.append(text.strip().removesuffix("Z"))
    try:
        return np.array(plain, dtype="datetime64[us]")
    except ValueError:
        return None


def _utc_micros(text: str | None) -> np.datetime64:
    if text is None or not text.strip():
        raise BatchError("birth_utc is empty")
    moment = datetime.fromisoformat(text.strip())
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return np.datetime64(moment, "us")


def _date(text: str | None) -> date:
    if text is None or not text.strip():
        raise BatchError("date is empty")
    from bodygraph.geo.local import parse_date

    return parse_date(text)


def _clock(text: str | None) -> clock:
    if text is None or not text.strip():
        raise BatchError("time is empty")
    from bodygraph.geo.local import parse_time

    return parse_time(text)


# -- output -------------------------------------------------------------------------------------

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
        self._parquet = _pyarrow_parquet()
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
            elif name in ("birth_utc", "design_utc"):
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


def _writer(path: Path) -> Writer:
    if path.suffix.lower() == ".parquet":
        return ParquetWriter(path)
    return CsvWriter(path)


# -- progress -------------------------------------------------------------------------------

class Progress:
    """A one-line progress bar on a text stream (redrawn at most 5 times a second)."""

    WIDTH = 30

    def __init__(self, total: int | None, stream: IO[str], *, enabled: bool) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self.errors = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def update(self, rows: int, errors: int) -> None:
        """Count ``rows`` more rows, ``errors`` of them bad."""
        self.done += rows
        self.errors += errors
        now = time.monotonic()
        if self.enabled and now - self._drawn >= 0.2:
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.done / max(now - self.started, 1e-9)
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            text = f"[{bar}] {share:6.1%} {self.done:,}/{self.total:,}"
        else:
            text = f"{self.done:,} rows"
        self.stream.write(f"\r{text}  {rate:,.0f} rows/s  {self.errors:,} bad")
        self.stream.flush()

    def finish(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


# -- the job -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a job did."""

    rows: int
    errors: int
    seconds: float


def run_batch(
    source: Path,
    target: Path,
    *,
    calculator: Calculator | None = None,
    node: NodeKind = "true",
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool = False,
    geocode: Callable[[str], Any] | None = None,
    stderr: IO[str] | None = None,
) -> BatchSummary:
    """Calculate a chart for every row of ``source`` and write them to ``target``."""
    err = stderr if stderr is not None else sys.stderr
    if chunk_size < 1:
        raise BatchError("the chunk size must be at least 1")
    if not source.is_file():
        raise BatchError(f"input file not found: {source}")
    calc = calculator or default_calculator(None)
    reader = _parquet_chunks if source.suffix.lower() == ".parquet" else _csv_chunks
    bar = Progress(count_rows(source) if progress else None, err, enabled=progress)
    writer = _writer(target)
    resolver: Resolver | None = None
    started = time.monotonic()
    first_row = 1
    reported = 0
    try:
        for header, chunk in reader(source, chunk_size):
            if resolver is None:
                mode = input_mode(header)
                if mode == "location" and geocode is None:
                    from bodygraph.geo.places import default_geocoder

                    geocode = default_geocoder().geocode
                resolver = Resolver(mode, geocode)
            n = len(next(iter(chunk.values())))
            columns, bad = _chunk(calc, resolver, chunk, n, first_row, node)
            clear = "\r\x1b[K" if progress and err.isatty() else ""
            for row, message in bad[: max(MAX_REPORTED - reported, 0)]:
                err.write(f"{clear}row {row}: {message}\n")
                reported += 1
            writer.write(columns)
            bar.update(n, len(bad))
            first_row += n
    finally:
        writer.close()
    if resolver is None:  # an input with a header only
        raise BatchError(f"{source} has no data rows")
    bar.finish()
    if bar.errors > MAX_REPORTED:
        err.write(f"... and {bar.errors - MAX_REPORTED:,} more bad rows (see the error column)\n")
    seconds = time.monotonic() - started
    return BatchSummary(bar.done, bar.errors, seconds)


def _chunk(calc: Calculator, resolver: Resolver, chunk: Chunk, n: int, first_row: int,
           node: NodeKind) -> tuple[dict[str, list[Any]], list[tuple[int, str]]]:
    utc, errors, extra = resolver.resolve(chunk, n)
    ok = ~np.isnat(utc)
    in_range = np.zeros(n, dtype=bool)
    in_range[ok] = calc.in_range(utc[ok])
    for i in np.flatnonzero(ok & ~in_range).tolist():
        errors[i] = _message(OutOfRangeError(to_aware(utc[i]), calc.first_birth,
                                             calc.last_birth))
    good = np.flatnonzero(in_range)
    table = calc.calculate_many(utc[good], node=node)
    computed = table.columns()
    columns: dict[str, list[Any]] = {"row": list(range(first_row, first_row + n))}
    if "id" in chunk:
        columns["id"] = list(chunk["id"])
    iso = {name: _iso(computed[name]) for name in ("birth_utc", "design_utc")}
    for name in COLUMNS:
        values = np.full(n, None, dtype=object)
        values[good] = iso.get(name, computed[name])
        columns[name] = values.tolist()
    columns.update(extra)
    columns["error"] = errors
    bad = [(first_row + i, e) for i, e in enumerate(errors) if e is not None]
    return columns, bad


def _iso(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    text = np.datetime_as_string(values.astype("datetime64[us]"), unit="us")
    return np.char.add(text, "Z") if text.size else text


# -- the command --------------------------------------------------------------------------

def add_batch_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bodygraph batch INPUT -o OUTPUT`` to the ``bodygraph`` command line."""
    batch = subparsers.add_parser(
        "batch",
        help="calculate charts for every row of a CSV or Parquet file",
        description=(__doc__ or "").split("\n\n", 1)[1],
        epilog="examples:\n  bodygraph batch births.csv -o charts.csv\n"
        "  bodygraph batch births.parquet -o charts.parquet --node mean",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    batch.add_argument("input", metavar="INPUT", help="CSV or .parquet file of births")
    batch.add_argument("-o", "--output", required=True, metavar="OUTPUT",
                       help="where to write the charts (.csv or .parquet)")
    batch.add_argument("--node", choices=("true", "mean"), default="true",
                       help="lunar node: true (osculating, default) or mean")
    batch.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, metavar="ROWS",
                       help=f"rows per chunk (default {DEFAULT_CHUNK:,}); bounds the memory")
    batch.add_argument("--ephemeris", metavar="BSP",
                       help="JPL kernel (default: $BODYGRAPH_EPHEMERIS or the shipped DE440)")
    batch.add_argument("--geocoder", choices=("offline", "google"), default="offline",
                       help="how a location column is looked up (default: the offline gazetteer)")
    batch.add_argument("--geocode-key", metavar="KEY", help="your Google geocoding key")
    shown = batch.add_mutually_exclusive_group()
    shown.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="show a progress bar on stderr (default: when stderr is a terminal)")
    shown.add_argument("--no-progress", dest="progress", action="store_false")
    batch.set_defaults(handler=run_batch_command)


def run_batch_command(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph batch``: 0 when every row made a chart, 1 when some
    rows are bad (they are in the output with their error)."""
    progress = sys.stderr.isatty() if args.progress is None else bool(args.progress)
    calculator = Calculator(args.ephemeris) if args.ephemeris else default_calculator(None)
    geocode = None
    if args.geocoder != "offline" or args.geocode_key:
        from bodygraph.geo.places import geocoder_for

        geocode = geocoder_for(args.geocoder, args.geocode_key).geocode
    summary = run_batch(
        Path(args.input), Path(args.output), calculator=calculator, node=args.node,
        chunk_size=args.chunk_size, progress=progress, geocode=geocode,
    )
    print(
        f"{summary.rows:,} rows -> {args.output}: {summary.rows - summary.errors:,} charts, "
        f"{summary.errors:,} bad rows ({summary.seconds:.1f} s)",
        file=sys.stderr,
    )
    return 1 if summary.errors else 0
