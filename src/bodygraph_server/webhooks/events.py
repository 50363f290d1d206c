"""The event a job's end sends to its callback URL: JSON in the Standard Webhooks
shape (``type``, ``timestamp``, ``data``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from bodygraph_server.policy.clock import as_utc, timestamp_text

#: How a job ends.
FinalStatus = Literal["succeeded", "failed", "cancelled"]
FINAL_STATUSES: tuple[FinalStatus, ...] = ("succeeded", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class JobEvent:
    """A job's end: its id, final status, counts of rows (all, done, failed), when it
    ended and where its result is downloaded."""

    job_id: str
    status: FinalStatus
    total: int
    done: int
    failed: int
    finished_at: datetime
    result_url: str

    def __post_init__(self) -> None:
        if self.status not in FINAL_STATUSES:
            raise ValueError(f"a job event's status is one of {FINAL_STATUSES}, "
                             f"not {self.status!r}")

    @property
    def type(self) -> str:
        """The event type: ``job.succeeded``, ``job.failed`` or ``job.cancelled``."""
        return f"job.{self.status}"

    def payload(self) -> dict[str, Any]:
        """The event as JSON values."""
        finished = timestamp_text(as_utc(self.finished_at))
        return {
            "type": self.type,
            "timestamp": finished,
            "data": {
                "jobId": self.job_id,
                "status": self.status,
                "total": self.total,
                "done": self.done,
                "failed": self.failed,
                "finishedAt": finished,
                "resultUrl": self.result_url,
            },
        }

    def body(self) -> str:
        """The event's JSON text, as sent and signed (ASCII, no spaces)."""
        return json.dumps(self.payload(), separators=(",", ":"))
