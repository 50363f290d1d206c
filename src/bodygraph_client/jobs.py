"""The asynchronous jobs (``/v2/jobs``, an extension beyond the contract): the requests
both clients send and how their answers are read. No I/O here."""

from __future__ import annotations

import gzip
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from bodygraph_client.errors import ServerError
from bodygraph_client.extension_calls import Birth

JobKind = Literal["chart", "simple"]
ResultFormat = Literal["ndjson", "csv", "parquet"]
#: The media type asked for, by result format.
ACCEPT: dict[str, str] = {"ndjson": "application/x-ndjson", "csv": "text/csv",
                          "parquet": "application/vnd.apache.parquet"}
#: The statuses of a job that has ended.
FINAL = frozenset({"succeeded", "failed", "cancelled"})


@dataclass(frozen=True, slots=True)
class Job:
    """A job as the service reports it (``done`` rows computed, ``failed`` of them bad)."""

    job_id: str
    status: str
    total: int
    done: int = 0
    failed: int = 0
    kind: str = "chart"
    created_at: str | None = None
    finished_at: str | None = None
    expires_at: str | None = None

    @property
    def ended(self) -> bool:
        """Whether the job has ended (succeeded, failed or cancelled)."""
        return self.status in FINAL


def upload(births: Iterable[Birth]) -> bytes:
    """Births (by coordinates) as a job's gzip-compressed NDJSON upload."""
    lines = []
    for birth in births:
        if birth.location is not None:
            raise ValueError("a job takes births by coordinates (Birth.at), not by place name")
        lines.append(json.dumps(birth.body(), separators=(",", ":")))
    return gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), 6)


def submit_request(http: httpx.Client | httpx.AsyncClient, headers: dict[str, str],
                   births: Iterable[Birth] | bytes, *, content_type: str | None, gzipped: bool,
                   kind: JobKind, callback_url: str | None) -> httpx.Request:
    """``POST /v2/jobs`` with a fresh Idempotency-Key (a retry answers the same job):
    ``births`` as :func:`upload` writes them, or an upload as bytes of ``content_type``
    (default NDJSON), ``gzipped`` or not."""
    if isinstance(births, bytes):
        body, content_type = births, content_type or "application/x-ndjson"
    else:
        body, gzipped, content_type = upload(births), True, "application/x-ndjson"
    params = {"kind": kind, **({"callbackUrl": callback_url} if callback_url else {})}
    sent = {**headers, "Content-Type": content_type, "Idempotency-Key": str(uuid.uuid4()),
            **({"Content-Encoding": "gzip"} if gzipped else {})}
    return http.build_request("POST", "/v2/jobs", content=body, headers=sent, params=params)


def job_path(job_id: str, tail: str = "") -> str:
    """The path of job ``job_id`` (``tail``: ``/result``)."""
    if not job_id or "/" in job_id:
        raise ValueError(f"not a job id: {job_id!r}")
    return f"/v2/jobs/{job_id}{tail}"


def read_job(response: httpx.Response) -> Job:
    """The :class:`Job` of a 2xx answer of the jobs' endpoints."""
    try:
        data: dict[str, Any] = response.json()["data"]
        return Job(job_id=str(data["jobId"]), status=str(data["status"]),
                   total=int(data["total"]), done=int(data.get("done", 0)),
                   failed=int(data.get("failed", 0)), kind=str(data.get("kind", "chart")),
                   created_at=data.get("createdAt"), finished_at=data.get("finishedAt"),
                   expires_at=data.get("expiresAt"))
    except (ValueError, KeyError, TypeError):
        raise ServerError("the answer of /v2/jobs is not the JSON docs/jobs.md describes",
                          status=response.status_code) from None
