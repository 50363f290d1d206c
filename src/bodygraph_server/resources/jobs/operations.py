"""The jobs family (docs/jobs.md): ``POST /v2/jobs`` (up to 1,000,000 births), ``GET`` and
``DELETE /v2/jobs/{jobId}`` (status, cancel), ``GET /v2/jobs/{jobId}/result`` (streamed).
Advanced tier; an extension beyond the contract."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_process
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bodygraph.catalog.translations import pgettext
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.execution.chunks import KINDS
from bodygraph_server.execution.worker import job_ended, waking
from bodygraph_server.http.bodies import read_body
from bodygraph_server.http.envelope import Envelope, json_response, timestamp, v2_success
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admitted
from bodygraph_server.http.idempotency import check_replay, idempotency_key
from bodygraph_server.http.language import asked_of
from bodygraph_server.http.operation import Answer, Operation
from bodygraph_server.resources.chart_values import closed_object
from bodygraph_server.resources.computed import BODY_CODES
from bodygraph_server.resources.jobs.results import NDJSON, PARQUET, result_format, streamed
from bodygraph_server.resources.jobs.uploads import (
    CSV_TYPES,
    MAX_ROWS,
    NDJSON_TYPES,
    UploadRequest,
    read_apart,
)
from bodygraph_server.services import Services, services_of
from bodygraph_server.store import ChargeRefusal, Replay
from bodygraph_server.store.base import JobStore
from bodygraph_server.store.jobs import Created, JobRecord, NewJob
from bodygraph_server.webhooks.policy import MAX_URL_LENGTH, CallbackURLError, check_callback_url

JOBS_PATH = "/v2/jobs"
JOB_PATH = "/v2/jobs/{jobId}"
RESULT_PATH = "/v2/jobs/{jobId}/result"
JOB_ACCEPTED = "JobAccepted"
JOB_STATUS = "JobStatus"
#: Seconds an upload may take to arrive (at least; the settings' request time-out if more).
UPLOAD_SECONDS = 600.0


def _jobs(services: Services) -> JobStore:
    """The jobs' store of the worker (503 where the service keeps none)."""
    if services.jobs is None:
        raise ApiError(ErrorCode.SERVICE_UNAVAILABLE, "This service runs no jobs")
    return services.jobs


def bad_parameter(message: str) -> ApiError:
    """The 400 refusal of a query parameter."""
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message, status=400)


async def callback_url(value: str | None, services: Services) -> str | None:
    """The ``callbackUrl`` query parameter, if the webhook sender may call it
    (:func:`~bodygraph_server.webhooks.check_callback_url`: https only, no private, loopback
    or link-local address unless ``allow_private_callbacks``); 400 otherwise."""
    if value is None:
        return None
    try:
        return await check_callback_url(
            value.strip(), allow_private=services.settings.allow_private_callbacks)
    except CallbackURLError as exc:
        raise bad_parameter(str(exc)) from None


def job_kind(value: str | None) -> str:
    """The ``kind`` query parameter (default ``chart``); 400 otherwise."""
    kind = (value or "chart").strip().lower()
    if kind not in KINDS:
        raise bad_parameter(f"kind must be one of {', '.join(KINDS)}")
    return kind


def job_data(job: JobRecord) -> dict[str, Any]:
    """The ``data`` of a job's status."""
    return {
        "jobId": job.id, "status": job.status.value, "kind": job.kind, "total": job.total,
        "done": job.done, "failed": job.failed, "createdAt": timestamp(job.created_at),
        "finishedAt": None if job.finished_at is None else timestamp(job.finished_at),
        "expiresAt": None if job.expires_at is None else timestamp(job.expires_at),
    }


def not_found(job_id: str) -> ApiError:
    """404 for a job that is not the caller's (or none at all)."""
    return ApiError(ErrorCode.NOT_FOUND, f"No job {job_id} among this account's jobs")


async def _read(request: Request, services: Services) -> bytes:
    """The upload's bytes as sent (413 past ``max_job_bytes``)."""
    settings = services.settings
    try:
        with anyio.fail_after(max(settings.request_timeout, UPLOAD_SECONDS)):
            return await read_body(request, settings.max_job_bytes)
    except TimeoutError:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body too slow") from None


async def serve_submit(request: Request) -> Response:
    """``POST /v2/jobs`` (see the module docstring)."""
    principal = admitted(request.scope, JOBS_PATH)
    services = services_of(request.scope)
    jobs = _jobs(services)
    settings = services.settings
    kind = job_kind(request.query_params.get("kind"))
    callback = await callback_url(request.query_params.get("callbackUrl"), services)
    key = idempotency_key(request.headers)
    raw = await _read(request, services)
    encoding = request.headers.get("content-encoding", "")
    content_type = request.headers.get("content-type", "")

    # Read in a helper process: a million lines of JSON are seconds of CPU that would
    # hold this process's GIL while it serves requests.
    upload = await anyio.to_process.run_sync(read_apart, UploadRequest(
        raw=raw, encoding=encoding, content_type=content_type,
        limit=settings.max_job_bytes, chunk_rows=settings.job_chunk_rows))
    if isinstance(upload, tuple):
        code, message, status = upload
        raise ApiError(ErrorCode(code), message, status=status)
    book = services.book
    claim = None if key is None else claim_for(
        book, principal, key, endpoint=JOBS_PATH,
        body=f"{kind}\n{callback or ''}\n{content_type}\n{encoding}\n".encode() + raw)
    new = NewJob(account_id=principal.account_id, kind=kind, header=upload.header,
                 chunks=upload.chunks, callback_url=callback, claim=claim,
                 origin=settings.public_url or str(request.base_url))
    outcome = await anyio.to_thread.run_sync(jobs.create, new, book.clock.now())
    if isinstance(outcome, ChargeRefusal):
        raise ApiError(ErrorCode(outcome.value))
    if isinstance(outcome, Replay):
        check_replay(outcome)
        raise ApiError(ErrorCode.IDEMPOTENCY_KEY_REUSED)  # pragma: no cover - only MISMATCH
    assert isinstance(outcome, Created)
    job = outcome.job
    data = {"jobId": job.id, "status": job.status.value, "total": job.total}
    body = v2_success(data, type_name=JOB_ACCEPTED, message="Job accepted")
    return json_response(body, 202, {"Location": f"{JOBS_PATH}/{job.id}"})


async def _asked_job(request: Request, path: str) -> tuple[int, Services, JobStore, JobRecord]:
    """Admission to ``path``, then the job of the path's ``jobId`` if the caller's account
    owns it (NOT_FOUND otherwise): the account, the services, the job store and the job."""
    principal = admitted(request.scope, path)
    services = services_of(request.scope)
    jobs = _jobs(services)
    job_id = str(request.path_params["jobId"])
    job = await anyio.to_thread.run_sync(jobs.get, job_id, principal.account_id)
    if job is None:
        raise not_found(job_id)
    return principal.account_id, services, jobs, job


async def serve_status(request: Request) -> Response:
    """``GET /v2/jobs/{jobId}``."""
    _, _, _, job = await _asked_job(request, JOB_PATH)
    return json_response(v2_success(job_data(job), type_name=JOB_STATUS, message="Job status"))


async def serve_cancel(request: Request) -> Response:
    """``DELETE /v2/jobs/{jobId}``: the job cancelled (or as it ended before)."""
    account_id, services, jobs, before = await _asked_job(request, JOB_PATH)
    job = await anyio.to_thread.run_sync(jobs.cancel, before.id, account_id,
                                         services.book.clock.now())
    if job is None:
        raise not_found(before.id)
    if not before.status.final and job.status.final:
        await job_ended(jobs, job, services.book.clock.now, waking(services.job_ended))
    return json_response(v2_success(job_data(job), type_name=JOB_STATUS,
                                    message="Job cancelled"))


async def serve_result(request: Request) -> Response:
    """``GET /v2/jobs/{jobId}/result``: the rows computed, in input order."""
    _, _, jobs, job = await _asked_job(request, RESULT_PATH)
    job_id = job.id
    if not job.status.final:
        raise ApiError(ErrorCode.NOT_FOUND, f"The result of job {job_id} is not ready: "
                       f"the job is {job.status.value}")
    if job.expired:
        raise ApiError(ErrorCode.NOT_FOUND, f"The result of job {job_id} has expired")
    kind, media_type = result_format(request.headers.get("accept", ""))
    extension = {"ndjson": "ndjson", "csv": "csv", "parquet": "parquet"}[kind]
    headers = {"Content-Disposition": f'attachment; filename="{job_id}.{extension}"'}
    asked = asked_of(request.scope)
    lang = asked.lang if asked is not None and asked.lang != "en" else None
    return StreamingResponse(streamed(jobs.outputs(job_id), kind, lang),
                             media_type=media_type, headers=headers)


def schemas() -> dict[str, Any]:
    """``JobUpload``, ``JobAccepted``, ``JobStatus`` and their envelopes."""
    instant = {"type": "string", "format": "date-time"}
    optional_instant = {"oneOf": [instant, {"type": "null"}]}
    statuses = ["queued", "running", "succeeded", "failed", "cancelled"]
    return {
        "JobUpload": {
            "type": "string",
            "description": f"1 to {MAX_ROWS:,} births: NDJSON, one object a line "
            '({"birthdate": "YYYY-MM-DD", "birthtime": "HH:MM", "lat", "lng"}, optional '
            '"id"), or CSV with the columns of bodygraph batch (birth_utc | date,time,tz | '
            "date,time,lat,lng | date,time,location; optional id); gzip accepted "
            "(Content-Encoding: gzip).",
        },
        JOB_ACCEPTED: closed_object({
            "jobId": {"type": "string"}, "status": {"enum": statuses},
            "total": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS}}),
        JOB_STATUS: closed_object({
            "jobId": {"type": "string"}, "status": {"enum": statuses},
            "kind": {"enum": list(KINDS)},
            "total": {"type": "integer"}, "done": {"type": "integer"},
            "failed": {"type": "integer"}, "createdAt": instant,
            "finishedAt": optional_instant, "expiresAt": optional_instant}),
        Envelope(JOB_ACCEPTED).name: Envelope(JOB_ACCEPTED).schema(),
        Envelope(JOB_STATUS).name: Envelope(JOB_STATUS).schema(),
    }


_JOB_ID = {"name": "jobId", "in": "path", "required": True,
           "description": pgettext("openapi", "the job's id (POST /v2/jobs answered it)"),
           "schema": {"type": "string"}}
_READ_CODES = (ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
               ErrorCode.ACCESS_DENIED, ErrorCode.ACCOUNT_INACTIVE,
               ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.NOT_FOUND, ErrorCode.INTERNAL_ERROR)


def _envelope(type_name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{type_name}Envelope"}


SUBMIT = Operation(
    method="POST", path=JOBS_PATH, summary=pgettext("openapi", "Submit a job"),
    description=pgettext(
        "openapi", "Up to 1,000,000 births computed asynchronously (docs/jobs.md): answered 202 "
        "with the job's id and its Location at once. 1 credit per birth, every one held at once "
        "(402 CREDITS_EXHAUSTED and nothing held when the account cannot pay for all); the "
        "credits of rows that fail are given back when the job ends. Query parameters: kind "
        "(chart: every column of bodygraph batch, or simple) and callbackUrl (a webhook POSTed "
        "when the job ends). With an Idempotency-Key, a retry answers the same job. 413 for a "
        "body over the limit or over 1,000,000 births, 422 for a body that is empty or neither "
        "NDJSON nor CSV, 400 for a bad parameter. Advanced tier. An extension beyond the "
        "contract."),
    handler=serve_submit, success_status=202,
    success=Answer(description="Job accepted", schema=_envelope(JOB_ACCEPTED),
                   headers={"Location": {"description": "the job's status URL",
                                         "schema": {"type": "string"}}}),
    tags=("jobs",), key="bearer", cost=1, idempotent=True, request_body="JobUpload",
    body_media_types=(NDJSON_TYPES[0], CSV_TYPES[0]),
    error_codes=BODY_CODES,
    parameters=(
        {"name": "kind", "in": "query", "required": False,
         "description": pgettext(
             "openapi", "chart (default: every column of bodygraph batch) or simple"),
         "schema": {"enum": list(KINDS)}},
        {"name": "callbackUrl", "in": "query", "required": False,
         "description": pgettext(
             "openapi", "where the job's end is POSTed (a Standard Webhooks event signed "
             "with the account's secret): an https URL whose host is public (docs/jobs.md)"),
         "schema": {"type": "string", "format": "uri", "maxLength": MAX_URL_LENGTH}},
    ),
    refusals={413: Answer(description="The upload exceeds max_job_bytes or "
                          "1,000,000 births (errorCode INVALID_REQUEST_BODY)",
                          schema={"$ref": "#/components/schemas/ErrorEnvelope"})},
)
STATUS = Operation(
    method="GET", path=JOB_PATH, summary=pgettext("openapi", "A job's status"),
    description=pgettext(
        "openapi", "Where the job is: queued, running, succeeded, failed or cancelled, with its "
        "rows done and failed. Only the account that submitted it sees it (404 otherwise). No "
        "credit. An extension beyond the contract."),
    handler=serve_status, parameters=(_JOB_ID,),
    success=Answer(description="Job status", schema=_envelope(JOB_STATUS)),
    tags=("jobs",), key="bearer", error_codes=_READ_CODES,
)
CANCEL = Operation(
    method="DELETE", path=JOB_PATH, summary=pgettext("openapi", "Cancel a job"),
    description=pgettext(
        "openapi", "Stops the job: its rows not done are not computed and their credits are "
        "given back; the rows done stay downloadable. A job that has ended is answered as it is. "
        "No credit. An extension beyond the contract."),
    handler=serve_cancel, parameters=(_JOB_ID,), operation_id="v2_jobs_cancel",
    success=Answer(description="Job cancelled", schema=_envelope(JOB_STATUS)),
    tags=("jobs",), key="bearer", error_codes=_READ_CODES,
)
RESULT = Operation(
    method="GET", path=RESULT_PATH, summary=pgettext("openapi", "A job's result"),
    description=pgettext(
        "openapi", "The rows of an ended job in input order, streamed: NDJSON (default), CSV "
        "(Accept: text/csv) or Parquet (Accept: application/vnd.apache.parquet), with the "
        "columns of bodygraph batch (a bad row: its error_code and error; with lang, the error "
        "in that language, as bodygraph batch --lang writes it). 404 while the job runs, and "
        "once its result expired (docs/jobs.md, Retention). No credit. An extension beyond the "
        "contract."),
    handler=serve_result, parameters=(_JOB_ID,),
    success=Answer(description="The rows", media_type=NDJSON,
                   schema={"type": "string", "description": f"also text/csv, {PARQUET}"}),
    tags=("jobs",), key="bearer", error_codes=_READ_CODES,
)
OPERATIONS: tuple[Operation, ...] = (SUBMIT, STATUS, CANCEL, RESULT)
