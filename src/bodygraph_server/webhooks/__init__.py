"""The jobs' completion webhooks (docs/jobs.md, "Webhooks"): URL policy (:mod:`.policy`),
event (:mod:`.events`, stored with the job's end: :mod:`.job_ends`), Standard Webhooks
signature (:mod:`.signing`), delivery with retries logged per attempt (:mod:`.delivery`)."""

from bodygraph_server.webhooks.delivery import RETRY_DELAYS, Outcome, WebhookSender
from bodygraph_server.webhooks.events import FINAL_STATUSES, FinalStatus, JobEvent
from bodygraph_server.webhooks.job_ends import job_event, record_job_end
from bodygraph_server.webhooks.policy import (
    CallbackRefusal,
    CallbackURLError,
    check_callback_url,
    parse_callback_url,
)
from bodygraph_server.webhooks.signing import WebhookSecretError, new_message_id, signed_headers

__all__ = [
    "FINAL_STATUSES",
    "RETRY_DELAYS",
    "CallbackRefusal",
    "CallbackURLError",
    "FinalStatus",
    "JobEvent",
    "Outcome",
    "WebhookSecretError",
    "WebhookSender",
    "check_callback_url",
    "job_event",
    "new_message_id",
    "parse_callback_url",
    "record_job_end",
    "signed_headers",
]
