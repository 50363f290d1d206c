"""A job's end as its webhook: the event stored in the outbox within the transaction that
ends the job (:class:`~bodygraph_server.store.jobs.SqlJobs`' ``on_end``)."""

from __future__ import annotations

from datetime import datetime

from bodygraph_server.store.connections import Tx
from bodygraph_server.store.job_records import JobRecord
from bodygraph_server.store.jobs import result_path
from bodygraph_server.store.webhook_deliveries import WebhookRepository
from bodygraph_server.webhooks.events import FINAL_STATUSES, JobEvent
from bodygraph_server.webhooks.signing import new_message_id


def job_event(job: JobRecord, now: datetime) -> JobEvent:
    """The event of the ended ``job``."""
    status = next(final for final in FINAL_STATUSES if final == job.status.value)
    return JobEvent(job_id=job.id, status=status, total=job.total, done=job.done,
                    failed=job.failed, finished_at=job.finished_at or now,
                    result_url=job.result_url or result_path(job.id))


def record_job_end(tx: Tx, job: JobRecord, now: datetime) -> None:
    """Store the webhook of the ended ``job`` in the outbox (``tx``: the one that ended
    it), when it has a callback URL; a job ends once, so it has one event at most."""
    if job.callback_url is None:
        return
    WebhookRepository(tx).enqueue(
        message_id=new_message_id(), account_id=job.account_id, job_id=job.id,
        url=job.callback_url, body=job_event(job, now).body(), now=now)
