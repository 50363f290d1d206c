"""Checking a job webhook the service sent (Standard Webhooks signatures, verified by the
standardwebhooks package): :func:`verify_webhook`."""

from __future__ import annotations

import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from bodygraph_client.errors import BodygraphClientError


class WebhookVerificationError(BodygraphClientError):
    """A webhook whose signature does not hold: a missing header, a signature made with
    another secret or over another body, or a timestamp more than 5 minutes off."""


def verify_webhook(payload: bytes | str, headers: Mapping[str, str],
                   secret: str | Sequence[str]) -> Any:
    """The event of a webhook (its JSON, parsed) if its ``webhook-id``,
    ``webhook-timestamp`` and ``webhook-signature`` headers sign ``payload`` (the body's
    bytes, unchanged) with ``secret``, the account's ``whsec_...`` secret
    (``GET /v2/account/webhook-secret``); several secrets are each tried (while a
    rotation settles). Else :class:`WebhookVerificationError`; a secret that is not
    ``whsec_`` and base64 is a ``ValueError``."""
    from standardwebhooks import Webhook
    from standardwebhooks import WebhookVerificationError as Refused
    from standardwebhooks.webhooks import EmptyWebhookSecretError

    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise ValueError("at least one webhook secret is needed")
    checkers = []
    for one in secrets:
        try:
            checkers.append(Webhook(one))
        except (binascii.Error, ValueError, EmptyWebhookSecretError) as exc:
            raise ValueError("a webhook secret is whsec_ followed by base64") from exc
    plain = {str(name).lower(): str(value) for name, value in headers.items()}
    reason = "no matching signature found"
    for checker in checkers:
        try:
            return checker.verify(payload, plain)
        except Refused as exc:
            reason = str(exc) or reason
        except (binascii.Error, ValueError, UnicodeDecodeError):
            reason = "malformed webhook headers or body"
    raise WebhookVerificationError(f"webhook not verified: {reason}")
