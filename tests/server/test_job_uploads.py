"""A job's upload read (``resources/jobs/uploads.py``): NDJSON and CSV cut into chunks of
the ``bodygraph batch`` columns, gzip decoded within the limit, and the refusals: over
1,000,000 births (413), a gzip bomb (413), a body that is not gzip, an unknown encoding
or format, no birth at all (422)."""

from __future__ import annotations

import gzip

import pytest

from bodygraph_server.execution.chunks import unpack
from bodygraph_server.http.errors import ApiError
from bodygraph_server.resources.jobs.uploads import MAX_ROWS, decoded, read_upload


def _refusal(call: object, *args: object, **kwargs: object) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value


def test_ndjson_and_csv_become_chunks_of_batch_columns() -> None:
    body = b'{"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.5, "lng": 13.4}\n' * 5
    upload = read_upload(body, "application/x-ndjson; charset=utf-8", chunk_rows=2)
    assert upload.header == "date,time,lat,lng" and upload.total == 5
    assert [rows for rows, _ in upload.chunks] == [2, 2, 1]
    assert unpack(upload.chunks[2][1]) == b"1990-07-15,14:30,52.5,13.4\r\n"
    csv = b"\xef\xbb\xbfid, birth_utc ,x\nA,1990-07-15T12:00:00Z,1\n\nB,bad,2\n"
    upload = read_upload(csv, "text/csv", chunk_rows=10)
    assert upload.header == "birth_utc,id" and upload.total == 2
    assert unpack(upload.chunks[0][1]) == b"1990-07-15T12:00:00Z,A\r\nbad,B\r\n"


def test_over_a_million_births_is_413() -> None:
    body = b"birth_utc\n" + b"x\n" * (MAX_ROWS + 1)
    error = _refusal(read_upload, body, "text/csv", chunk_rows=100_000)
    assert error.status == 413 and "1,000,000" in error.message


def test_gzip_is_decoded_within_the_limit() -> None:
    assert decoded(gzip.compress(b"abc"), "gzip", 10) == b"abc"
    assert decoded(b"abc", "", 10) == b"abc"
    bomb = gzip.compress(b"0" * 1_000_000)
    error = _refusal(decoded, bomb, "gzip", 100_000)
    assert error.status == 413 and "once decoded" in error.message
    assert _refusal(decoded, b"plain", "gzip", 100).status == 422
    assert _refusal(decoded, gzip.compress(b"abc")[:-4], "gzip", 100).status == 422
    assert _refusal(decoded, b"abc", "br", 100).status == 422


@pytest.mark.parametrize(("body", "content_type", "words"), [
    (b"", "text/csv", "empty"),
    (b"birth_utc\n\n", "text/csv", "no birth"),
    (b"\n \n", "application/x-ndjson", "empty"),
    (b"{}\n", "application/json", "NDJSON"),
    (b"\xff\xfe", "text/csv", "UTF-8"),
    (b'{"a": 1}\n"b"\n', "application/x-ndjson", "line 2"),
    (b",,\n1,2\n", "text/csv", "header"),
])
def test_unreadable_uploads_are_422(body: bytes, content_type: str, words: str) -> None:
    error = _refusal(read_upload, body, content_type, chunk_rows=10)
    assert error.status == 422 and words in error.message
