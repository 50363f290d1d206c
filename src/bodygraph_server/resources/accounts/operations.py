"""The caller's own account under ``/v2/account``, every tier, free of credit: figures,
usage by day, key rotation, webhook secret (docs/accounts.md, "Self-service")."""

from __future__ import annotations

from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph_server.billing.accounts import Denial, Denied, IssuedKey, Principal
from bodygraph_server.billing.idempotency import KEY_LIFETIME
from bodygraph_server.billing.keys import ROTATION_ID_LENGTH
from bodygraph_server.http.bodies import parse_json_object, read_raw_body
from bodygraph_server.http.body import whole_number_field
from bodygraph_server.http.envelope import (
    JSON_MEDIA_TYPE,
    LABELS_FIELD,
    Envelope,
    json_response,
    v2_success,
)
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admission_of, admitted
from bodygraph_server.http.idempotency import idempotency_key
from bodygraph_server.http.language import LANG, asked_of
from bodygraph_server.http.negotiation import NOT_ACCEPTABLE, negotiate
from bodygraph_server.http.openapi import Said, sentences
from bodygraph_server.http.operation import Answer, Handler, Method, Operation
from bodygraph_server.resources.accounts.results import (
    ACCOUNT_RESULT,
    KEY_RESULT,
    SECRET_RESULT,
    USAGE_RESULT,
    account_data,
    account_labels,
    result_schemas,
    usage_data,
)
from bodygraph_server.resources.chart_values import REF
from bodygraph_server.services import Services, services_of

ACCOUNT_PATH = "/v2/account"
USAGE_PATH = "/v2/account/usage"
KEY_ROTATE_PATH = "/v2/account/keys/rotate"
SECRET_PATH = "/v2/account/webhook-secret"
SECRET_ROTATE_PATH = "/v2/account/webhook-secret/rotate"

#: ``days`` of the usage: the default and the bounds.
DEFAULT_DAYS = 30
MAX_DAYS = 90

#: What an account operation can answer besides success.
ACCOUNT_CODES: tuple[ErrorCode, ...] = (
    ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
    ErrorCode.ACCOUNT_INACTIVE, ErrorCode.INVALID_REQUEST_BODY,
    ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.INTERNAL_ERROR,
)


def _shape(message: str) -> ApiError:
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message)


def _query(request: Request, names: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, each among ``names`` and given at most once (else 422);
    ``lang``, every v2 operation's, is read by :mod:`~bodygraph_server.http.language`."""
    found: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name == LANG:
            continue
        if name not in names:
            takes = ", ".join(names) if names else "none"
            raise _shape(f"Unknown query parameter {name!r} (this endpoint takes: {takes})")
        if name in found:
            raise _shape(f"Query parameter {name!r} given more than once")
        found[name] = value
    return found


async def _no_body(request: Request, services: Services) -> None:
    """A GET takes no body; a POST takes none or an empty JSON object (else 422)."""
    raw = await read_raw_body(request, services)
    if not raw:
        return
    if request.method in ("GET", "HEAD"):
        raise _shape(f"{request.method} {request.url.path} takes no request body")
    if set(parse_json_object(raw)) - {LANG}:
        raise _shape(f"POST {request.url.path} takes no members in its body but lang")


async def _caller(request: Request, path: str,
                  params: tuple[str, ...] = ()) -> tuple[Principal, Services, dict[str, str]]:
    """The caller, refused in the order of checks (authentication, rate limit), then by
    ``Accept`` (406), the query and the body; the worker's services; the query."""
    principal = admitted(request.scope, path)
    negotiate(request.headers, (JSON_MEDIA_TYPE,))
    query = _query(request, params)
    services = services_of(request.scope)
    await _no_body(request, services)
    return principal, services, query


def _answer(data: dict[str, Any], type_name: str, message: str) -> Response:
    return json_response(v2_success(data, type_name=type_name, message=message))


DAYS = whole_number_field(name="days", bounds=(1, MAX_DAYS), schema={}, optional=True,
                          default=DEFAULT_DAYS)
"""``days`` of the usage, defined once: its reader and its schema (the query parameter's)."""


def parse_days(query: dict[str, str]) -> int:
    """``days``: a whole number from 1 to :data:`MAX_DAYS` (default :data:`DEFAULT_DAYS`),
    read by :data:`DAYS` from its decimal text (anything else is refused as out of range)."""
    raw = query.get("days")
    if raw is None:
        return DEFAULT_DAYS
    text = raw.strip()
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else -1
    days: int = DAYS.read(number, date.today())
    return days


async def account(request: Request) -> Response:
    """``GET /v2/account``."""
    principal, services, _ = await _caller(request, ACCOUNT_PATH)
    book = services.book
    overview = await services.run_bookkeeping(book.overview, principal.account_id)
    status = overview.account.status(book.clock.now())
    decision = admission_of(request.scope).decision
    data = account_data(overview, status, decision)
    asked = asked_of(request.scope)
    words = ({} if asked is None or asked.lang is None
             else {LABELS_FIELD: account_labels(data, asked.lang)})
    return json_response(v2_success(data, type_name=ACCOUNT_RESULT, message="Account",
                                    extra=words))


async def usage(request: Request) -> Response:
    """``GET /v2/account/usage?days=N``."""
    principal, services, query = await _caller(request, USAGE_PATH, ("days",))
    days = parse_days(query)
    first, found = await services.run_bookkeeping(services.book.usage_by_day,
                                                  principal.account_id, days)
    return _answer(usage_data(first, days, found), USAGE_RESULT, "Usage")


async def rotate_key(request: Request) -> Response:
    """``POST /v2/account/keys/rotate``. With an ``Idempotency-Key`` (of at least
    :data:`ROTATION_ID_LENGTH` characters) the new key is derived from the key presented
    and that key, and a replay of the rotation (the same two, the
    old key now rotated away) is answered the same key again (docs/accounts.md)."""
    asked = idempotency_key(request.headers)
    if asked is not None and len(asked) < ROTATION_ID_LENGTH:
        asked = None  # too easy to guess: a random key, not replayable
    admission = admission_of(request.scope)
    credential = admission.credential
    if (asked is not None and isinstance(credential, str) and admission.decision.allowed
            and admission.denied is not None
            and admission.denied.reason is Denial.API_KEY_INVALID):
        replayed = await _replayed(request, credential, asked)
        if replayed is not None:
            return _key_answer(replayed)
    principal, services, _ = await _caller(request, KEY_ROTATE_PATH)
    given = None if asked is None or not isinstance(credential, str) else (credential, asked)
    issued = await services.run_bookkeeping(services.book.rotate_own_key, principal, given)
    if isinstance(issued, Denied):  # rotated away by a request that came first
        replayed = None if given is None else await _replay_of(services, *given)
        if replayed is None:
            raise ApiError(ErrorCode.API_KEY_INVALID, issued.message)
        issued = replayed
    return _key_answer(issued)


async def _replayed(request: Request, api_key: str, asked: str) -> IssuedKey | None:
    """The key an answered rotation with ``api_key`` and Idempotency-Key ``asked`` made,
    within the keys' idempotency window; the request checked as any other first."""
    negotiate(request.headers, (JSON_MEDIA_TYPE,))
    _query(request, ())
    services = services_of(request.scope)
    await _no_body(request, services)
    return await _replay_of(services, api_key, asked)


async def _replay_of(services: Services, api_key: str, asked: str) -> IssuedKey | None:
    """The key an answered rotation with ``api_key`` and ``asked`` made, if any (the
    request already checked)."""
    found: IssuedKey | None = await services.run_bookkeeping(
        services.book.replay_rotation, api_key, asked, KEY_LIFETIME)
    return found


def _key_answer(issued: IssuedKey) -> Response:
    return _answer({"apiKey": issued.api_key, "keyPrefix": issued.account.key_prefix or ""},
                   KEY_RESULT, "API key rotated")


async def webhook_secret(request: Request) -> Response:
    """``GET /v2/account/webhook-secret``."""
    principal, services, _ = await _caller(request, SECRET_PATH)
    secret = await services.run_bookkeeping(services.book.webhook_secret,
                                            principal.account_id)
    return _answer({"secret": secret}, SECRET_RESULT, "Webhook secret")


async def rotate_webhook_secret(request: Request) -> Response:
    """``POST /v2/account/webhook-secret/rotate``."""
    principal, services, _ = await _caller(request, SECRET_ROTATE_PATH)
    secret = await services.run_bookkeeping(services.book.rotate_webhook_secret,
                                            principal.account_id)
    return _answer({"secret": secret}, SECRET_RESULT, "Webhook secret rotated")


_NOT_ACCEPTABLE = Answer(
    description="INVALID_REQUEST_BODY: the Accept header names no media type the "
    "endpoint answers (it answers application/json)",
    schema={"$ref": REF + "ErrorEnvelope"})
FREE_NOTE = pgettext("openapi", "Every tier. Free: no credit, but the request counts toward "
                     "the rate limit. An extension beyond the contract.")


def _operation(method: Method, path: str, *, summary: str, description: str,
               handler: Handler, type_name: str, message: str,
               parameters: tuple[dict[str, Any], ...] = (),
               codes: tuple[ErrorCode, ...] = ()) -> Operation:
    return Operation(
        method=method, path=path, summary=summary, description=sentences(description, FREE_NOTE),
        handler=handler, tags=("v2",), key="bearer", cost=0,
        error_codes=(*ACCOUNT_CODES, *codes),
        success=Answer(description=message,
                       schema={"$ref": f"{REF}{type_name}Envelope"}),
        parameters=parameters, refusals={NOT_ACCEPTABLE: _NOT_ACCEPTABLE})


_DAYS = {"name": "days", "in": "query", "required": False,
         "description": Said(pgettext(
             "openapi", "how many UTC days, today included (default {days})"),
             days=DEFAULT_DAYS),
         "schema": DAYS.schema}

_ROTATION_KEY = {"name": "Idempotency-Key", "in": "header", "required": False,
                 "description": Said(pgettext(
                     "openapi", "A random value of at least {least} characters (a UUID) "
                     "naming this rotation: a retry with the same value and the key the "
                     "rotation replaced, within {hours} hours, is answered the same new key "
                     "again."),
                     least=ROTATION_ID_LENGTH, hours=int(KEY_LIFETIME.total_seconds()) // 3600),
                 "schema": {"type": "string", "minLength": 1, "maxLength": 255}}

OPERATIONS: tuple[Operation, ...] = (
    _operation("GET", ACCOUNT_PATH, summary=pgettext("openapi", "Your account"),
               description=pgettext(
                   "openapi", "The plan, tier and status of the account the key belongs to, its "
                   "current credit period (remaining = rolledOver + allocated - used), overage "
                   "and this key's rate-limit window."),
               handler=account, type_name=ACCOUNT_RESULT, message="Account"),
    _operation("GET", USAGE_PATH, summary=pgettext("openapi", "Your usage by day"),
               description=pgettext(
                   "openapi", "For each of the last `days` UTC days (today included), the "
                   "successful calls and the credits charged, by endpoint."),
               handler=usage, type_name=USAGE_RESULT, message="Usage", parameters=(_DAYS,)),
    _operation("POST", KEY_ROTATE_PATH, summary=pgettext("openapi", "Rotate your API key"),
               description=pgettext(
                   "openapi", "A new API key, shown this once. From this answer on, the key the "
                   "request was made with (and any other key of the account) is refused with 401 "
                   "API_KEY_INVALID on every worker and instance."),
               handler=rotate_key, type_name=KEY_RESULT, message="API key rotated",
               parameters=(_ROTATION_KEY,), codes=(ErrorCode.IDEMPOTENCY_KEY_INVALID,)),
    _operation("GET", SECRET_PATH, summary=pgettext("openapi", "Your webhook secret"),
               description=pgettext(
                   "openapi", "The secret that signs the account's webhooks (Standard Webhooks: "
                   "`whsec_` + base64), made on the first ask."),
               handler=webhook_secret, type_name=SECRET_RESULT, message="Webhook secret"),
    _operation("POST", SECRET_ROTATE_PATH,
               summary=pgettext("openapi", "Rotate your webhook secret"),
               description=pgettext(
                   "openapi", "A new webhook secret; webhooks sent from now on are signed with "
                   "it only."),
               handler=rotate_webhook_secret, type_name=SECRET_RESULT,
               message="Webhook secret rotated"),
)
"""The account operations."""
ENVELOPES = tuple(Envelope(name) for name in (ACCOUNT_RESULT, USAGE_RESULT, KEY_RESULT,
                                              SECRET_RESULT))


def schemas() -> dict[str, Any]:
    """The results and envelopes of the account operations."""
    return {**result_schemas(), **{e.name: e.schema() for e in ENVELOPES}}
