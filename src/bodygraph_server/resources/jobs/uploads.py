"""A job's upload read: gzip decoded, NDJSON (one batch-endpoint birth object a line) or
CSV (the ``bodygraph batch`` columns) cut into chunks of CSV rows, stored packed; or the
upload's refusal (413 too large, 422 unreadable) naming what is wrong."""

from __future__ import annotations

import csv
import io
import json
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from bodygraph.batch.errors import BatchError
from bodygraph.batch.readers import MODES, input_mode
from bodygraph_server.execution.chunks import pack
from bodygraph_server.http.errors import ApiError, ErrorCode

#: The most births of one job.
MAX_ROWS = 1_000_000
#: The media types of an NDJSON upload, and of a CSV one.
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl")
CSV_TYPES = ("text/csv",)
#: The fields of an NDJSON birth, and the CSV columns they become.
NDJSON_FIELDS = (("birthdate", "date"), ("birthtime", "time"), ("lat", "lat"), ("lng", "lng"))


@dataclass(frozen=True, slots=True)
class Upload:
    """An upload read: its header (one CSV record) and chunks (rows, packed CSV rows)."""

    header: str
    chunks: list[tuple[int, bytes]]

    @property
    def total(self) -> int:
        """Every birth of the upload."""
        return sum(rows for rows, _ in self.chunks)


def unprocessable(message: str) -> ApiError:
    """The 422 refusal of an upload."""
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message)


def too_large(message: str) -> ApiError:
    """The 413 refusal of an upload."""
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message, status=413)


def decoded(raw: bytes, encoding: str, limit: int) -> bytes:
    """The body without its ``Content-Encoding`` (``gzip`` or none): 413 past ``limit``
    bytes once decoded, 422 for another encoding or a body that is not gzip."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return raw
    if coding not in ("gzip", "x-gzip"):
        raise unprocessable(f"Content-Encoding {encoding!r} is not accepted (use gzip or none)")
    inflater = zlib.decompressobj(wbits=31)
    try:
        body = inflater.decompress(raw, limit + 1)
    except zlib.error:
        raise unprocessable("Request body is not valid gzip") from None
    if len(body) > limit or inflater.unconsumed_tail:
        raise too_large(f"Request body exceeds {limit} bytes once decoded")
    if not inflater.eof:
        raise unprocessable("Request body is not valid gzip (it ends too soon)")
    return body


def media_type(content_type: str) -> str:
    """The upload's format, ``ndjson`` or ``csv``, by its Content-Type; else 422."""
    kind = content_type.split(";")[0].strip().lower()
    if kind in NDJSON_TYPES:
        return "ndjson"
    if kind in CSV_TYPES:
        return "csv"
    raise unprocessable("Request body must be NDJSON (Content-Type: application/x-ndjson) "
                        "or CSV (Content-Type: text/csv)")


def _text(body: bytes) -> str:
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise unprocessable("Request body is not UTF-8 text") from None


def _cell(value: Any) -> str:
    """An NDJSON field's value as a CSV cell (the library reads and checks it): a number
    as JSON writes it, a string as it is, nothing as an empty cell."""
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is float or kind is int:
        return repr(value)
    if value is None:
        return ""
    return json.dumps(value)


def ndjson_rows(text: str) -> tuple[list[str], Iterator[list[str]]]:
    """The header and rows of an NDJSON upload (blank lines skipped), read as they are
    consumed; 422 naming the first line that is not a JSON object. An ``id`` column is
    kept when the upload names ``"id"`` anywhere (a line without one gets it empty)."""
    has_id = '"id"' in text
    fields = [name for name, _ in NDJSON_FIELDS] + (["id"] if has_id else [])
    header = [column for _, column in NDJSON_FIELDS] + (["id"] if has_id else [])

    def rows() -> Iterator[list[str]]:
        for number, line in enumerate(io.StringIO(text), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except (ValueError, RecursionError):
                raise unprocessable(f"line {number} is not valid JSON") from None
            if not isinstance(item, dict):
                raise unprocessable(f"line {number} is not a JSON object (a birth: "
                                    '{"birthdate", "birthtime", "lat", "lng"})')
            yield [_cell(item.get(name)) for name in fields]

    return header, rows()


def csv_rows(text: str) -> tuple[list[str], Iterator[list[str]]]:
    """The header and rows of a CSV upload, the columns of its mode (and ``id``) only;
    422 when it has no header or none of the column sets of ``bodygraph batch``."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        names = [name.strip() for name in next(reader, [])]
        if not any(names):
            raise unprocessable("the CSV upload has no header row")
        mode = input_mode(names)
    except csv.Error as exc:
        raise unprocessable(f"the CSV upload is not readable: {exc}") from None
    except BatchError as exc:
        raise unprocessable(str(exc)) from None
    header = [*MODES[mode], *(["id"] if "id" in names else [])]
    where = [names.index(name) for name in header]

    def rows() -> Iterator[list[str]]:
        try:
            for row in reader:
                if row:
                    yield [row[i] if i < len(row) else "" for i in where]
        except csv.Error as exc:
            raise unprocessable(f"the CSV upload is not readable: {exc}") from None

    return header, rows()


def chunked(rows: Iterable[list[str]], size: int) -> list[tuple[int, bytes]]:
    """``rows`` as chunks of ``size`` packed CSV rows; 413 past :data:`MAX_ROWS`."""
    chunks: list[tuple[int, bytes]] = []
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    count = 0
    for total, row in enumerate(rows, start=1):
        writer.writerow(row)
        count += 1
        if total > MAX_ROWS:
            raise too_large(f"a job takes at most {MAX_ROWS:,} births")
        if count == size:
            chunks.append((count, pack(buffer.getvalue().encode("utf-8"))))
            buffer.seek(0)
            buffer.truncate()
            count = 0
    if count:
        chunks.append((count, pack(buffer.getvalue().encode("utf-8"))))
    return chunks


def read_upload(body: bytes, content_type: str, *, chunk_rows: int) -> Upload:
    """The upload of ``body`` (already decoded) sent as ``content_type``; 422 when it is
    empty or not of its format, 413 past :data:`MAX_ROWS` births. Blocking."""
    kind = media_type(content_type)
    if not body.strip():
        raise unprocessable("Request body is empty: send at least one birth")
    text = _text(body)
    header, rows = ndjson_rows(text) if kind == "ndjson" else csv_rows(text)
    chunks = chunked(rows, chunk_rows)
    if not chunks:
        raise unprocessable("Request body holds no birth: send at least one")
    record = io.StringIO(newline="")
    csv.writer(record, lineterminator="").writerow(header)
    return Upload(record.getvalue(), chunks)


@dataclass(frozen=True, slots=True, kw_only=True)
class UploadRequest:
    """An upload as received: its bytes, ``Content-Encoding`` and ``Content-Type``, the
    largest decoded size accepted and the rows of a chunk."""

    raw: bytes
    encoding: str
    content_type: str
    limit: int
    chunk_rows: int


def read_apart(request: UploadRequest) -> Upload | tuple[str, str, int]:
    """:func:`decoded` then :func:`read_upload`, as run in a helper process: the upload,
    or its refusal as ``(errorCode, message, status)`` (an :class:`ApiError` does not
    cross processes)."""
    try:
        body = decoded(request.raw, request.encoding, request.limit)
        return read_upload(body, request.content_type, chunk_rows=request.chunk_rows)
    except ApiError as error:
        return error.code.value, error.message, error.status
