"""``bodygraph batch``: CSV and Parquet in, charts out, bad rows kept and reported."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import bodygraph
import bodygraph.batch
from bodygraph.batch import BatchError, input_mode, run_batch
from bodygraph.batch.resolve import Resolver, utc_column
from bodygraph.cli.main import main
from bodygraph.columnar import ACTIVATION_COLUMNS, COLUMNS

SCRIPT = Path(sys.executable).parent / "bodygraph"
#: A Python exception's name, which a message for people never holds.
_PYTHON_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b|Traceback")


@dataclass(frozen=True)
class Done:
    """What ``bodygraph batch`` returned and printed."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> Done:
    """``bodygraph batch ARGS`` in this process."""
    status = main(["batch", *args])
    out, err = capsys.readouterr()
    return Done(status, out, err)


def run_script(*args: str) -> Done:
    """``bodygraph batch ARGS`` through the real console script, in a child process."""
    done = subprocess.run([str(SCRIPT), "batch", *args], capture_output=True, text=True,
                          timeout=300, check=False)
    return Done(done.returncode, done.stdout, done.stderr)


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


GOOD = ["1980-01-03T08:30:00Z", "1990-05-14T08:30:00+02:00", "2001-09-11T12:46:00"]


def test_console_script_with_bad_rows(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.csv", ["id", "birth_utc"], [
        ["a", GOOD[0]], ["b", "yesterday"], ["c", "1700-01-01T00:00:00Z"], ["d", GOOD[1]],
        ["e", ""], ["f", GOOD[2]],
    ])
    target = tmp_path / "out.csv"
    done = run_script(str(source), "-o", str(target), "--chunk-size", "2", "--no-progress")
    assert done.returncode == 1, done.stderr  # some rows are bad; the job still ran
    rows = _read(target)
    assert [r["row"] for r in rows] == ["1", "2", "3", "4", "5", "6"]
    assert [r["id"] for r in rows] == list("abcdef")
    assert set(COLUMNS) | {"row", "id", "error_code", "error"} == set(rows[0])
    assert len(ACTIVATION_COLUMNS) == 26
    for row_number, code, reason in ((2, "INVALID_INSTANT", "not an ISO 8601 date-time"),
                                     (3, "OUT_OF_RANGE", "outside the supported range"),
                                     (5, "EMPTY", "birth_utc is empty")):
        row = rows[row_number - 1]
        assert row["error_code"] == code and reason in row["error"] and row["type"] == ""
        assert not _PYTHON_NAME.search(row["error"]), row["error"]
        assert f"row {row_number}: {row['error']} ({code})" in done.stderr
    assert "--ephemeris BSP" in rows[2]["error"] and "ephemeris=" not in rows[2]["error"]
    for row, text in zip((rows[0], rows[3], rows[5]), GOOD, strict=True):
        moment = datetime.fromisoformat(text)
        chart = bodygraph.calculate(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
        assert row["error"] == "" and row["error_code"] == ""
        assert datetime.fromisoformat(row["birth_utc"]) == chart.birth_utc
        assert (row["type"], row["profile"], row["authority"], row["definition"]) == (
            chart.type.value, chart.profile, chart.authority.value, chart.definition.value)
        assert row["incarnation_cross"] == chart.incarnation_cross
        assert row["channels"] == ";".join(c.short for c in chart.channels)
        assert row["centers"] == ";".join(chart.centers)
        assert row["personality_sun"] == str(chart.personality.sun)
        assert row["design_pluto"] == str(chart.design.pluto)
    assert "6 rows" in done.stderr and "3 bad rows" in done.stderr


def test_all_good_exits_zero_with_progress(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = _write(tmp_path / "in.csv", ["birth_utc"], [[g] for g in GOOD])
    target = tmp_path / "out.csv"
    done = run_cli(capsys, str(source), "-o", str(target), "--progress", "--node", "mean")
    assert done.returncode == 0, done.stderr
    assert "100.0%" in done.stderr and "3/3" in done.stderr
    rows = _read(target)
    assert [r["node"] for r in rows] == ["mean"] * 3
    chart = bodygraph.calculate(datetime.fromisoformat(GOOD[0]), node="mean")
    assert rows[0]["personality_north_node"] == str(chart.personality.north_node)


def test_parquet_round_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import pyarrow as pa
    from pyarrow import parquet

    source = tmp_path / "in.parquet"
    parquet.write_table(pa.table({"birth_utc": [GOOD[0], "nonsense", GOOD[1]]}), source)
    target = tmp_path / "out.parquet"
    done = run_cli(capsys, str(source), "-o", str(target), "--no-progress")
    assert done.returncode == 1, done.stderr
    table = parquet.read_table(target).to_pylist()
    assert [r["row"] for r in table] == [1, 2, 3]
    assert table[0]["birth_utc"] == datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
    assert table[0]["profile"] == bodygraph.calculate(table[0]["birth_utc"]).profile
    assert table[1]["profile"] is None and table[1]["error_code"] == "INVALID_INSTANT"
    assert "'nonsense' is not an ISO 8601 date-time" in table[1]["error"]
    assert table[0]["error_code"] is None and table[0]["error"] is None


def test_local_times_by_zone_and_coordinates(tmp_path: Path) -> None:
    by_zone = _write(tmp_path / "zones.csv", ["date", "time", "tz"], [
        ["1990-05-14", "08:30", "Europe/Berlin"], ["1990-05-14", "08:30", "Mars/Olympus"],
        ["1990-02-30", "08:30", "Europe/Berlin"], ["1990-05-14", "8h30", "Europe/Berlin"],
        ["1990-05-14", "08:30", ""],
    ])
    by_point = _write(tmp_path / "points.csv", ["date", "time", "lat", "lng"], [
        ["1990-05-14", "08:30", "52.52", "13.405"], ["1990-05-14", "08:30", "95", "13"],
        ["1990-05-14", "08:30", "north", "13"],
    ])
    codes = {by_zone: ["", "UNKNOWN_ZONE", "INVALID_DATE", "INVALID_TIME", "EMPTY"],
             by_point: ["", "INVALID_COORDINATES", "INVALID_COORDINATES"]}
    expected = bodygraph.calculate(datetime(1990, 5, 14, 6, 30, tzinfo=UTC))
    for source in (by_zone, by_point):
        target = tmp_path / f"{source.stem}-out.csv"
        summary = run_batch(source, target, progress=False, stderr=sys.stderr)
        rows = _read(target)
        assert summary.rows == len(rows) and summary.errors == len(rows) - 1
        assert rows[0]["birth_utc"].startswith("1990-05-14T06:30:00")
        assert rows[0]["zone"] == "Europe/Berlin" and rows[0]["wall_time"] == "unique"
        assert rows[0]["profile"] == expected.profile
        assert all(r["error"] for r in rows[1:])
        assert [r["error_code"] for r in rows] == codes[source]
        assert not any(_PYTHON_NAME.search(r["error"]) for r in rows), rows


def test_location_rows_are_geocoded_once_each(tmp_path: Path) -> None:
    calls: list[str] = []

    def geocode(text: str) -> object:
        from bodygraph.geo.places import default_geocoder

        calls.append(text)
        return default_geocoder().geocode(text)

    source = _write(tmp_path / "places.csv", ["date", "time", "location"], [
        ["1990-05-14", "08:30", "Berlin, Germany"], ["1991-05-14", "08:30", "Berlin, Germany"],
        ["1990-05-14", "08:30", "Qwxzyland Nowhere"], ["1990-05-14", "08:30", ""],
        ["1990-05-14", "08:30", "Ber\x07lin"], ["1990-05-14", "08:30", "x" * 201],
    ])
    target = tmp_path / "out.csv"
    summary = run_batch(source, target, progress=False, geocode=geocode, stderr=sys.stderr)
    rows = _read(target)
    assert summary.errors == 4
    assert calls[:2] == ["Berlin, Germany", "Qwxzyland Nowhere"]
    assert rows[0]["zone"] == "Europe/Berlin" and rows[0]["error"] == ""
    assert [r["error_code"] for r in rows] == [
        "", "", "PLACE_NOT_FOUND", "EMPTY", "INVALID_LOCATION", "INVALID_LOCATION"]
    assert "no place found for 'Qwxzyland Nowhere'" in rows[2]["error"]
    assert "location is empty" in rows[3]["error"] and "U+0007" in rows[4]["error"]
    assert not any(_PYTHON_NAME.search(r["error"]) for r in rows), rows


def test_job_level_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(BatchError, match="needs one of"):
        input_mode(["name", "when"])
    with pytest.raises(BatchError, match="not found"):
        run_batch(tmp_path / "missing.csv", tmp_path / "out.csv")
    header_only = _write(tmp_path / "empty.csv", ["birth_utc"], [])
    with pytest.raises(BatchError, match="no data rows"):
        run_batch(header_only, tmp_path / "out.csv")
    done = run_cli(capsys, str(tmp_path / "missing.csv"), "-o", str(tmp_path / "o.csv"))
    assert done.returncode == 1 and "not found" in done.stderr
    for option, reason in (("--chunk-size", "the chunk size"), ("--jobs", "the number of jobs")):
        done = run_cli(capsys, str(header_only), "-o", str(tmp_path / "o.csv"), option, "0")
        assert (done.returncode, done.stderr) == (
            2, f"bodygraph: error: {reason} must be at least 1\n")


def test_plain_utc_columns_take_the_vectorized_path_with_the_same_result(tmp_path: Path) -> None:
    plain = ["1980-01-03T08:30:00Z", "2001-09-11T12:46:00.250", "1850-06-01T00:00Z"]
    fast = utc_column(list(plain))
    assert fast is not None
    slow, errors, _ = Resolver("utc").resolve({"birth_utc": [*plain, "1980"]}, 4)
    assert errors[:3] == [None] * 3 and errors[3] == (
        "INVALID_INSTANT",
        "'1980' is not an ISO 8601 date-time; write it like 1980-01-03T08:30:00Z")
    assert list(fast) == list(slow[:3])
    odds: list[list[str | None]] = [["1980"], ["1980-01-03T08:30:00+01:00"],
                                     ["1980-01-03T08:30:00-01:00"], [None], ["T"]]
    for odd in odds:
        assert utc_column(odd) is None
    source = _write(tmp_path / "in.csv", ["birth_utc"], [[p] for p in plain])
    run_batch(source, tmp_path / "out.csv", stderr=sys.stderr)
    rows = _read(tmp_path / "out.csv")
    assert [r["error"] for r in rows] == ["", "", ""]
    assert rows[1]["birth_utc"] == "2001-09-11T12:46:00.250000Z"


def test_unreadable_inputs_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    latin1 = tmp_path / "latin1.csv"  # a header that is not UTF-8: no column can be found
    latin1.write_bytes("date,time,location,stra\u00dfe\n1990-05-14,08:30,Lima,x\n".encode(
        "latin-1"))
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not a parquet file at all")
    huge = tmp_path / "huge.csv"
    huge.write_text("birth_utc\n" + "x" * 200_000 + "\n", encoding="utf-8")
    for source, reason in ((latin1, "line 1 (the header) is not UTF-8 text (it holds the "
                                    "byte 0xDF): give its encoding (--encoding)"),
                           (broken, "is not a readable Parquet file"),
                           (huge, "line 2 is not CSV: field larger than field limit")):
        for progress in ("--progress", "--no-progress"):
            done = run_cli(capsys, str(source), "-o", str(tmp_path / "out.csv"), progress)
            assert done.returncode == 1
            assert done.stderr.startswith("bodygraph: error: ") and reason in done.stderr
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
            assert not _PYTHON_NAME.search(done.stderr)
    with pytest.raises(BatchError, match="not UTF-8"):
        run_batch(latin1, tmp_path / "out.csv")


def test_every_row_error_has_a_documented_code() -> None:
    from bodygraph.batch.errors import OTHER, PLACE_ERROR_CODES, ROW_ERROR_CODES

    codes = {code for _, code in ROW_ERROR_CODES} | set(PLACE_ERROR_CODES.values())
    for code in codes | {OTHER, "GEOCODE_FAILED"}:
        assert f"``{code}``" in (bodygraph.batch.__doc__ or ""), code


def _leftovers(folder: Path, *kept: Path) -> list[str]:
    """The files in ``folder`` other than ``kept`` (a temporary output left behind)."""
    return sorted(p.name for p in folder.iterdir() if p not in kept)


def test_an_output_that_is_the_input_is_refused_and_the_input_kept(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = _write(tmp_path / "same.csv", ["birth_utc"], [[g] for g in GOOD])
    before = source.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(source)
    hard = tmp_path / "hard.csv"
    hard.hardlink_to(source)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    for given, output in (
        (str(source), str(source)),  # the same path
        ("../same.csv", str(source)),  # relative and absolute
        (str(source), "../sub/../same.csv"),
        (str(source), str(link)),  # a symbolic link to the input
        (str(link), str(source)),
        (str(source), str(hard)),  # a hard link: the same file (inode) by another name
    ):
        done = run_cli(capsys, given, "-o", output, "--no-progress")
        assert done.returncode == 2, (given, output, done.stderr)
        assert done.stderr == f"bodygraph: error: the output {output} is the input file: " \
            "write the charts to another file\n"
        assert source.read_bytes() == before
        assert _leftovers(tmp_path, source, link, hard, tmp_path / "sub") == []
    with pytest.raises(BatchError, match="is the input file"):
        run_batch(source, hard)


def test_an_output_that_is_not_csv_or_parquet_is_refused_and_nothing_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = _write(tmp_path / "in.csv", ["birth_utc"], [[g] for g in GOOD])
    for name in ("out.xlsx", "out", "out.csv.gz", "out.tsv"):
        done = run_cli(capsys, str(source), "-o", str(tmp_path / name), "--no-progress")
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"bodygraph: error: cannot write {tmp_path / name}: the output " \
            "must be a .csv or .parquet file\n"
        assert _leftovers(tmp_path, source) == []
    for folder in ("folder.csv", "a23"):
        (tmp_path / folder).mkdir()
        done = run_cli(capsys, str(source), "-o", str(tmp_path / folder))
        assert done.returncode == 2
        assert done.stderr == f"bodygraph: error: the output {tmp_path / folder} is a " \
            "folder: name a file to write\n"
    done = run_cli(capsys, str(source), "-o", str(tmp_path / "OUT.CSV"), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert len(_read(tmp_path / "OUT.CSV")) == 3
    done = run_cli(capsys, str(source), "-o", str(tmp_path / "no" / "out.csv"))
    assert done.returncode == 1
    assert done.stderr == f"bodygraph: error: cannot use {tmp_path / 'no' / 'out.csv'}: " \
        "No such file or directory\n"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_output_is_replaced_only_when_the_job_ends_well(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    suffix: str,
) -> None:
    from bodygraph.batch.work import ChunkWork

    source = _write(tmp_path / "in.csv", ["birth_utc"], [[g] for g in GOOD * 3])
    target = tmp_path / f"out{suffix}"
    target.write_bytes(b"an earlier output")
    target.chmod(0o640)
    temporary: list[str] = []
    compute = ChunkWork.__call__

    def interrupted(self: ChunkWork, task: Any) -> Any:
        temporary.extend(_leftovers(tmp_path, source, target))
        if task.first_row > 3:  # the second chunk
            raise KeyboardInterrupt
        return compute(self, task)

    monkeypatch.setattr(ChunkWork, "__call__", interrupted)
    done = run_cli(capsys, str(source), "-o", str(target), "--chunk-size", "3", "--jobs", "1")
    assert done.returncode == 130
    assert done.stderr.splitlines()[-1] == "bodygraph: interrupted"
    assert temporary[0].startswith(f".out{suffix}.") and temporary[0].endswith(".part")
    assert target.read_bytes() == b"an earlier output"
    assert _leftovers(tmp_path, source, target) == []
    monkeypatch.setattr(ChunkWork, "__call__", compute)
    done = run_cli(capsys, str(source), "-o", str(target), "--chunk-size", "3", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert target.stat().st_mode & 0o777 == 0o640  # the mode of the file it replaced
    assert _leftovers(tmp_path, source, target) == []
    if suffix == ".parquet":
        from pyarrow import parquet

        assert parquet.read_table(target).num_rows == 9
    else:
        assert len(_read(target)) == 9


def test_an_output_through_a_symbolic_link_replaces_the_file_it_points_to(
    tmp_path: Path,
) -> None:
    source = _write(tmp_path / "in.csv", ["birth_utc"], [[g] for g in GOOD])
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "charts.csv"
    real.write_bytes(b"an earlier output")
    link = tmp_path / "charts.csv"
    link.symlink_to(real)
    run_batch(source, link, stderr=sys.stderr)
    assert link.is_symlink() and len(_read(real)) == 3
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["charts.csv"]


def test_a_row_that_is_not_text_is_a_bad_row_and_the_others_are_charted(
    tmp_path: Path,
) -> None:
    source = tmp_path / "in.csv"
    source.write_bytes(b"\xef\xbb\xbfid,birth_utc\r\n"  # a byte-order mark, then line 1
                       b"a,1980-01-03T08:30:00Z\r\n"
                       b"M\xfcller,1990-05-14T08:30:00+02:00\r\n"  # line 3: 0xFC in the id
                       b'"c\r\nspans two lines",2001-09-11T12:46:00\r\n'  # lines 4-5
                       b"d,1980-01-03T08:30:00Z \xe9\r\n"  # line 6
                       b"e,1990-05-14T08:30:00+02:00\r\n")
    written = []
    for jobs in ("1", "2"):
        target = tmp_path / f"out{jobs}.csv"
        done = run_script(str(source), "-o", str(target), "--no-progress", "--chunk-size",
                          "2", "--jobs", jobs)
        assert done.returncode == 1, done.stderr  # some rows are bad; the job still ran
        rows = _read(target)
        assert [r["id"] for r in rows] == ["a", "M\ufffdller", "c\r\nspans two lines", "d", "e"]
        assert [r["error_code"] for r in rows] == ["", "INVALID_ENCODING", "", "INVALID_ENCODING",
                                                   ""]
        assert rows[1]["error"] == "line 3 is not UTF-8 text (it holds the byte 0xFC)"
        assert rows[3]["error"] == "line 6 is not UTF-8 text (it holds the byte 0xE9)"
        assert rows[1]["type"] == rows[3]["type"] == rows[1]["birth_utc"] == ""
        assert all(rows[i]["type"] for i in (0, 2, 4))
        assert "row 2: line 3 is not UTF-8 text (it holds the byte 0xFC) (INVALID_ENCODING)" \
            in done.stderr
        assert "5 rows" in done.stderr and "2 bad rows" in done.stderr
        written.append(target.read_bytes())
    assert written[0] == written[1]


def test_a_file_in_another_encoding_is_read_with_encoding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "cp1252.csv"
    source.write_bytes("id,date,time,tz\nM\u00fcller \u20ac,1990-05-14,08:30,Europe/Berlin\n"
                       .encode("cp1252") + b"x\x81,1990-05-14,08:30,Europe/Berlin\n")
    target = tmp_path / "out.csv"
    done = run_cli(capsys, str(source), "-o", str(target), "--encoding", "cp1252",
                   "--no-progress")
    assert done.returncode == 1, done.stderr
    rows = _read(target)
    assert rows[0]["id"] == "M\u00fcller \u20ac" and rows[0]["error"] == ""
    assert rows[0]["birth_utc"].startswith("1990-05-14T06:30:00")
    assert (rows[1]["id"], rows[1]["error_code"]) == ("x\ufffd", "INVALID_ENCODING")
    assert rows[1]["error"] == "line 3 is not cp1252 text (it holds the byte 0x81)"
    for name in ("utf-8", "UTF8"):
        assert run_cli(capsys, str(source), "-o", str(target), "--encoding", name,
                       "--no-progress").returncode == 1
        assert [r["error_code"] for r in _read(target)] == ["INVALID_ENCODING"] * 2
    assert run_cli(capsys, str(source), "-o", str(target), "--encoding", "latin-1",
                   "--no-progress").returncode == 0
    assert _read(target)[1]["id"] == "x\x81"  # latin-1 decodes every byte
    source.write_bytes(b"\xef\xbb\xbfbirth_utc\n1980-01-03T08:30:00Z\n")
    assert run_cli(capsys, str(source), "-o", str(target), "--encoding", "utf-8",
                   "--no-progress").returncode == 0  # a byte-order mark is skipped
    source.write_bytes("birth_utc\n1980-01-03T08:30:00Z\n".encode("utf-16") + b"A")
    done = run_cli(capsys, str(source), "-o", str(target), "--encoding", "utf-16")
    assert done.returncode == 1  # a byte the decoder cannot keep: the job fails
    assert done.stderr == f"bodygraph: error: {source} is not utf-16 text (it holds the " \
        "byte 0x41)\n"
    assert len(_read(target)) == 1  # the earlier output
    for name, reason in (("klingon", "'klingon' is not the name of a text encoding (try "
                                     "utf-8, cp1252 or latin-1)"),
                         ("base64", "'base64' is not the name of a text encoding"),
                         ("", "'' is not the name of a text encoding")):
        target.unlink(missing_ok=True)
        done = run_cli(capsys, str(source), "-o", str(target), "--encoding", name)
        assert done.returncode == 2
        assert done.stderr.startswith(f"bodygraph: error: {reason}")
        assert len(done.stderr.splitlines()) == 1 and not target.exists()


def test_an_encoding_with_a_parquet_input_is_a_usage_mistake(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "in.parquet"
    source.write_bytes(b"PAR1")
    done = run_cli(capsys, str(source), "-o", str(tmp_path / "out.csv"), "--encoding", "cp1252")
    assert done.returncode == 2
    assert done.stderr == "bodygraph: error: an encoding is for CSV input: Parquet text is " \
        "UTF-8\n"


def test_times_with_a_one_digit_hour(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.csv", ["date", "time", "tz"], [
        ["1990-05-14", "8:30", "Europe/Berlin"], ["1990-05-14", "08:30", "Europe/Berlin"],
        ["1990-05-14", " 8:30:15 ", "Europe/Berlin"], ["1990-05-14", "8:3", "Europe/Berlin"],
        ["1990-05-14", "25:30", "Europe/Berlin"], ["1990-05-14", "108:30", "Europe/Berlin"],
        ["1990-05-14", "8.30", "Europe/Berlin"],
    ])
    target = tmp_path / "out.csv"
    summary = run_batch(source, target, stderr=sys.stderr)
    rows = _read(target)
    assert summary.errors == 4
    assert [r["error_code"] for r in rows] == ["", "", ""] + ["INVALID_TIME"] * 4
    assert rows[0]["birth_utc"] == rows[1]["birth_utc"] == "1990-05-14T06:30:00.000000Z"
    assert rows[2]["birth_utc"] == "1990-05-14T06:30:15.000000Z"
    assert "there is no time '25:30'" in rows[4]["error"]
    assert rows[6]["error"] == ("a birth time must be written H:MM or HH:MM, optionally :SS "
                                "(24-hour, like 08:30), not '8.30'")


def test_a_day_not_in_the_calendar_says_why(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.csv", ["date", "time", "tz"], [
        ["1990-02-30", "08:30", "UTC"], ["1992-02-30", "08:30", "UTC"],
        ["1990-13-01", "08:30", "UTC"], ["1990-5-14", "08:30", "UTC"]])
    target = tmp_path / "out.csv"
    run_batch(source, target, stderr=sys.stderr, jobs=1)
    assert [r["error"] for r in _read(target)] == [
        "there is no day 1990-02-30 in the calendar (February has 28 days in 1990)",
        "there is no day 1992-02-30 in the calendar (February has 29 days in 1992)",
        "there is no day 1990-13-01 in the calendar (months go from 01 to 12)",
        "a birth date must be written YYYY-MM-DD (like 1990-05-14), not '1990-5-14'"]


def test_a_row_out_of_range_names_the_library_keyword_through_the_api(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.csv", ["birth_utc"], [["1500-01-01T00:00:00Z"]])
    target = tmp_path / "out.csv"
    run_batch(source, target, progress=False, stderr=sys.stderr, jobs=1)
    (row,) = _read(target)
    assert row["error_code"] == "OUT_OF_RANGE" and "ephemeris=" in row["error"]


def test_the_readme_batch_example_file_charts_every_row(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    readme = (repo / "README.md").read_text(encoding="utf-8")
    assert "bodygraph batch examples/births.csv -o charts.csv" in readme
    target = tmp_path / "charts.csv"
    summary = run_batch(repo / "examples" / "births.csv", target, stderr=sys.stderr, jobs=1)
    assert (summary.rows, summary.errors) == (4, 0)
    assert [r["id"] for r in _read(target)] == ["ada", "marie", "albert", "grace"]
