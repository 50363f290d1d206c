"""A job's stored chunk encoded for download (``resources/jobs/results.py``): the NDJSON
lines are ``json.dumps`` of each row's columns and the Parquet table is
``encode_parquet`` of them, for cells with quotes, commas, line breaks, non-ASCII text,
empty cells and instants."""

from __future__ import annotations

import csv
import io
import json

from bodygraph.batch.writers import encode_parquet
from bodygraph_server.execution.chunks import pack
from bodygraph_server.resources.jobs.results import (
    _columns,
    _split,
    csv_part,
    ndjson_part,
    parquet_table,
    said_part,
)

NAMES = ["row", "id", "birth_utc", "design_utc", "type", "error_code", "error"]
ROWS = [
    ["1", "a", "1990-07-15T12:30:00Z", "1990-04-16T09:01:02.500000Z", "Generator", "", ""],
    ["2", 'say "hi", then\nleave', "", "", "", "INVALID_DATE", "month 13 is not a month"],
    ["3", "Zoë 東京 \\ / \t", "2001-01-01T00:00:00Z", "2000-10-03T23:59:59Z", "Projector",
     "", ""],
    ["4", "", "", "", "", "OUT_OF_RANGE", "lat, lng: 95 is past 90"],
]


def _part(rows: list[list[str]]) -> bytes:
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(NAMES)
    writer.writerows(rows)
    return pack(text.getvalue().encode("utf-8"))


def test_ndjson_lines_are_json_dumps_of_each_row() -> None:
    lines = ndjson_part(_part(ROWS), True).decode("ascii").splitlines()
    expected = [{name: (int(cell) if name == "row" else cell or None)
                 for name, cell in zip(NAMES, row, strict=True)} for row in ROWS]
    assert lines == [json.dumps(item, separators=(",", ":")) for item in expected]
    assert [json.loads(line) for line in lines] == expected
    assert ndjson_part(_part([]), False) == b""


def test_csv_keeps_the_header_of_the_first_chunk_only() -> None:
    assert csv_part(_part(ROWS), True).startswith(b"row,id,")
    assert csv_part(_part(ROWS), False).startswith(b"1,a,")


def test_the_parquet_table_is_that_of_encode_parquet() -> None:
    part = _part(ROWS)
    table = parquet_table(part)
    expected = encode_parquet(_columns(*_split(part)))
    assert table.schema == expected.schema
    assert table.equals(expected)
    assert table.column("id").to_pylist()[1] == 'say "hi", then\nleave'
    assert parquet_table(_part([])).equals(encode_parquet(_columns(NAMES, "")))


def test_the_error_cells_in_the_asked_language() -> None:
    """``?lang=``: the ``error`` cells said as ``bodygraph batch --lang`` writes them, the
    ``error_code`` and every other cell as stored; a chunk with nothing to say is kept."""
    rows = [*ROWS, ["5", "b", "", "", "", "EMPTY", "location is empty"],
            ["6", "c", "", "", "", "INVALID_COORDINATES", "latitude 95.0 is outside -90 to 90"]]
    part = _part(rows)
    german = list(csv.reader(io.StringIO(csv_part(said_part(part, "de"), True).decode())))
    assert german[0] == NAMES
    assert [row[-1] for row in german[1:]] == [
        "", "month 13 is not a month", "", "lat, lng: 95 is past 90", "location ist leer",
        "Breite 95.0 liegt außerhalb von -90 bis 90"]
    assert [row[:-1] for row in german[1:]] == [row[:-1] for row in rows]
    assert said_part(_part(ROWS), "ja") == _part(ROWS)  # no message the catalogs hold
    assert said_part(_part([]), "ja") == _part([])
