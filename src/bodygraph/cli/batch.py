"""``bodygraph batch INPUT -o OUTPUT``: the command of the batch job (:mod:`bodygraph.batch`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bodygraph.batch
from bodygraph.batch import DEFAULT_CHUNK, BatchOptionError, default_jobs, run_batch
from bodygraph.catalog.translations import catalog
from bodygraph.cli.options import (
    EXIT_STATUS,
    LARGER_KERNEL,
    CliError,
    HelpFormatter,
    Subparsers,
    add_calculation_options,
    add_geocoder_options,
    calculator_from,
    geocoder_from,
    note_if_plain,
    plain_text,
)
from bodygraph.cli.said import said
from bodygraph.geo.providers import DEFAULT_GEOCODER

#: What else is a usage mistake (exit status 2) for ``bodygraph batch``.
USAGE_MISTAKES = """\
The output must be a .csv or .parquet file, not a folder nor the input (by any path or
link). Another output, an --encoding that names no text encoding (or comes with a
Parquet input) or a --chunk-size or --jobs below 1 is a usage mistake (2), refused
before anything is read or written."""


def add_parser(subparsers: Subparsers) -> None:
    """Add ``bodygraph batch INPUT -o OUTPUT`` to the ``bodygraph`` command line."""
    batch = subparsers.add_parser(
        "batch",
        help="calculate charts for every row of a CSV or Parquet file",
        description=plain_text((bodygraph.batch.__doc__ or "").split("\n\n", 1)[1]),
        epilog="examples:\n  bodygraph batch births.csv -o charts.csv\n"
        "  bodygraph batch births.parquet -o charts.parquet --node mean\n"
        "  bodygraph batch geburten.csv -o charts.csv --encoding cp1252\n\n"
        f"{EXIT_STATUS}\n\n{USAGE_MISTAKES}",
        formatter_class=HelpFormatter,
    )
    batch.add_argument("input", metavar="INPUT", help="CSV or .parquet file of births")
    batch.add_argument("-o", "--output", required=True, metavar="OUTPUT",
                       help="where to write the charts: a .csv or .parquet file, not the "
                       "input; it is replaced only when the job ends well")
    batch.add_argument("--encoding", metavar="NAME",
                       help="the text encoding of a CSV input, such as cp1252 or latin-1 "
                       "(default utf-8); a row that is not text in it is a bad row")
    batch.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, metavar="ROWS",
                       help=f"rows per chunk (default {DEFAULT_CHUNK:,}); bounds the memory")
    batch.add_argument("--jobs", type=int, default=None, metavar="N",
                       help="worker processes that compute the charts (default: every "
                       f"core, here {default_jobs()}; 1 computes in this process); the "
                       "output is the same whatever the number")
    add_calculation_options(batch)
    add_geocoder_options(batch, looked_up="a location column")
    shown = batch.add_mutually_exclusive_group()
    shown.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="show a progress bar on stderr (default: when stderr is a terminal)")
    shown.add_argument("--no-progress", dest="progress", action="store_false")
    batch.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph batch``: 0 when every row made a chart, 1 when some
    rows are bad (they are in the output with their error)."""
    progress = sys.stderr.isatty() if args.progress is None else bool(args.progress)
    note_if_plain("batch", args.lang)
    geocode = None  # the job looks places up offline, loading the gazetteer only if needed
    if args.geocoder != DEFAULT_GEOCODER or args.geocode_key:
        geocode = geocoder_from(args).geocode
    try:
        summary = run_batch(
            Path(args.input), Path(args.output), calculator=calculator_from(args),
            node=args.node, chunk_size=args.chunk_size, progress=progress, geocode=geocode,
            jobs=args.jobs, encoding=args.encoding, range_remedy=LARGER_KERNEL,
            say=lambda line: said(line, args.lang), lang=args.lang,
        )
    except BatchOptionError as exc:
        raise CliError(str(exc)) from None
    done = catalog(args.lang).pgettext(
        "cli", "{rows} rows -> {output}: {charts} charts, {errors} bad rows ({seconds} s)")
    print(done.format(rows=f"{summary.rows:,}", output=args.output,
                      charts=f"{summary.rows - summary.errors:,}",
                      errors=f"{summary.errors:,}", seconds=f"{summary.seconds:.1f}"),
          file=sys.stderr)
    return 1 if summary.errors else 0

