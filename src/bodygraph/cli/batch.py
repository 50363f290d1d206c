"""``bodygraph batch INPUT -o OUTPUT``: the command of the batch job (:mod:`bodygraph.batch`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bodygraph.batch import DEFAULT_CHUNK, BatchOptionError, default_jobs, run_batch
from bodygraph.catalog.batch_lines import ROWS
from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import catalog
from bodygraph.cli.options import (
    LARGER_KERNEL,
    CliError,
    Subparsers,
    add_calculation_options,
    add_geocoder_options,
    calculator_from,
    examples_text,
    exit_status,
    geocoder_from,
    note_if_plain,
)
from bodygraph.cli.said import said
from bodygraph.geo.providers import DEFAULT_GEOCODER


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Add ``bodygraph batch INPUT -o OUTPUT`` to the ``bodygraph`` command line, its help
    in ``lang`` (what :mod:`bodygraph.batch` documents, for a reader of the command)."""
    tr = catalog(lang)
    column_sets = [
        tr.pgettext("help", "birth_utc: an ISO 8601 instant (Z or an offset; without one it "
                    "is read as UTC);"),
        tr.pgettext("help", "date, time and tz: a local wall time and an IANA zone;"),
        tr.pgettext("help", "date, time, lat and lng: a local wall time at a point (zone from "
                    "the point);"),
        tr.pgettext("help", "date, time and location: a local wall time at a place name "
                    "(geocoded once per distinct name, offline by default)."),
    ]
    description = "\n\n".join([
        tr.pgettext("help", "The input is CSV (UTF-8, or the text encoding given with "
                    "--encoding), or Parquet when pyarrow is installed, with one of these "
                    "column sets (chosen from the header, first match wins):"),
        "\n".join(f"* {text}" for text in column_sets),
        tr.pgettext("help", "A date is YYYY-MM-DD, a time H:MM or HH:MM (24-hour; :SS may "
                    "follow). An id column, if present, is copied to the output. The output "
                    "(CSV or Parquet, by the file extension .csv or .parquet; never the input "
                    "file) has a row column (1-based data row of the input), id, the chart "
                    "columns (bodygraph.columnar.COLUMNS), zone and wall_time for local "
                    "times, error_code and error. It is written to a temporary file in the "
                    "same folder and renamed into place when the job ends well: a job that "
                    "fails or is interrupted leaves an earlier output file as it was. A row "
                    "that cannot be read or calculated keeps its place with an empty chart, a "
                    "stable code in error_code (EMPTY, INVALID_ENCODING (bytes that are not "
                    "text in the input's encoding; only id is kept, each such byte as "
                    "U+FFFD), INVALID_INSTANT, INVALID_DATE, INVALID_TIME, OUT_OF_RANGE, "
                    "INVALID_COORDINATES, UNKNOWN_ZONE, INVALID_LOCATION, PLACE_NOT_FOUND, "
                    "GEOCODE_FAILED or INVALID_ROW) and the reason in words in error; it is "
                    "also reported on stderr with its row number. Memory stays bounded: rows "
                    "are read, calculated and written --chunk-size at a time. With --jobs N > "
                    "1 (default: every core) N worker processes parse, resolve, calculate and "
                    "format the chunks while this process cuts the input into chunks and "
                    "writes the results in input order, a few chunks in flight; the output is "
                    "the same byte for byte whatever the number of jobs."),
    ])
    usage_mistakes = tr.pgettext(
        "help", "The output must be a .csv or .parquet file, not a folder nor the input (by "
        "any path or link). Another output, an --encoding that names no text encoding (or "
        "comes with a Parquet input) or a --chunk-size or --jobs below 1 is a usage mistake "
        "(2), refused before anything is read or written.")
    batch = subparsers.add_parser(
        "batch", lang=lang,
        help=tr.pgettext("help", "calculate charts for every row of a CSV or Parquet file"),
        description=description,
        epilog=examples_text(lang, ["bodygraph batch births.csv -o charts.csv",
                                    "bodygraph batch births.parquet -o charts.parquet --node "
                                    "mean",
                                    "bodygraph batch geburten.csv -o charts.csv --encoding "
                                    "cp1252"])
        + f"\n\n{exit_status(lang)}\n\n{usage_mistakes}",
    )
    batch.add_argument("input", metavar="INPUT",
                       help=tr.pgettext("help", "CSV or .parquet file of births"))
    batch.add_argument("-o", "--output", required=True, metavar="OUTPUT",
                       help=tr.pgettext("help", "where to write the charts: a .csv or "
                                        ".parquet file, not the input; it is replaced only "
                                        "when the job ends well"))
    batch.add_argument("--encoding", metavar="NAME",
                       help=tr.pgettext("help", "the text encoding of a CSV input, such as "
                                        "cp1252 or latin-1 (default utf-8); a row that is not "
                                        "text in it is a bad row"))
    batch.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, metavar="ROWS",
                       help=tr.pgettext("help", "rows per chunk (default {rows}); bounds the "
                                        "memory").format(rows=number_text(DEFAULT_CHUNK, lang)))
    batch.add_argument("--jobs", type=int, default=None, metavar="N",
                       help=tr.pgettext("help", "worker processes that compute the charts "
                                        "(default: every core, here {count}; 1 computes in "
                                        "this process); the output is the same whatever the "
                                        "number").format(count=default_jobs()))
    add_calculation_options(batch, lang)
    add_geocoder_options(batch, lang, looked_up="a location column")
    shown = batch.add_mutually_exclusive_group()
    shown.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help=tr.pgettext("help", "show a progress bar on stderr (default: when "
                                        "stderr is a terminal)"))
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
    tr, lang = catalog(args.lang), args.lang
    charts = summary.rows - summary.errors
    done = tr.pgettext("cli", "{rows} -> {output}: {charts}, {errors} ({seconds} s)")
    print(done.format(
        rows=ROWS.said(lang, summary.rows).format(count=number_text(summary.rows, lang)),
        output=args.output,
        charts=tr.npgettext("cli", "{count} chart", "{count} charts", charts).format(
            count=number_text(charts, lang)),
        errors=tr.npgettext("cli", "{count} bad row", "{count} bad rows", summary.errors)
        .format(count=number_text(summary.errors, lang)),
        seconds=number_text(summary.seconds, lang, 1)), file=sys.stderr)
    return 1 if summary.errors else 0

