"""Standard Webhooks signatures (https://www.standardwebhooks.com): the ``webhook-id``,
``webhook-timestamp`` and ``webhook-signature`` headers, made by the standardwebhooks
package (HMAC-SHA256 of ``id.timestamp.body`` with the account's ``whsec_`` secret)."""

from __future__ import annotations

import binascii
import secrets
from datetime import datetime

from standardwebhooks import Webhook
from standardwebhooks.webhooks import EmptyWebhookSecretError

from bodygraph_server.policy.clock import as_utc


class WebhookSecretError(ValueError):
    """A webhook secret that cannot sign (empty, or not ``whsec_`` and base64)."""


def new_message_id() -> str:
    """A new, unique ``webhook-id`` (the same for every attempt of one event)."""
    return "msg_" + secrets.token_hex(16)


def signer(secret: str) -> Webhook:
    """The standardwebhooks signer of ``secret`` (``whsec_`` and base64)."""
    try:
        return Webhook(secret)
    except EmptyWebhookSecretError as exc:
        raise WebhookSecretError("the webhook secret is empty") from exc
    except (binascii.Error, ValueError) as exc:
        raise WebhookSecretError("the webhook secret is not whsec_ followed by base64") from exc


def signed_headers(secret: str, message_id: str, body: str, at: datetime) -> dict[str, str]:
    """The headers of one attempt to send ``body``, signed at instant ``at``."""
    at = as_utc(at)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signer(secret).sign(message_id, at, body),
        "content-type": "application/json",
    }
