"""The language of a v2 request: ``?lang=`` or the body's ``"lang"``, never Accept-Language;
with one, the answer gets ``labels`` beside ``data``, a ``&lang=`` on its ``svgRenderUrl``
and ``Content-Language`` (docs/api.md, "Languages"). Every v2 operation gets it here."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from bodygraph.catalog.translations import LANGUAGES
from bodygraph_server.http.envelope import LABELS_FIELD, RENDER_URL_FIELD
from bodygraph_server.http.error_words import named_language, translated
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admitted

LANG = "lang"
LANGUAGE_KEY = "bodygraph.language"
Handler = Callable[[Request], Awaitable[Response]]


def lang_schema() -> dict[str, Any]:
    """The JSON Schema of ``lang`` (query parameter or body member)."""
    return {"type": "string", "enum": list(LANGUAGES),
            "description": "The language of the answer's labels (and of its image's "
            "words): data stays the contract's English values; labels beside it hold "
            "data's words in this language under the same keys. Never taken from "
            "Accept-Language. An extension (docs/api.md, Languages)."}


def invalid_language(problem: str = "lang is not a supported language") -> ApiError:
    """INVALID_LANGUAGE, listing the supported codes."""
    return ApiError(ErrorCode.INVALID_LANGUAGE,
                    f"{problem}; use one of {', '.join(LANGUAGES)}")


def checked(value: object) -> str:
    """``value`` if it is a supported code, else INVALID_LANGUAGE."""
    if isinstance(value, str) and value in LANGUAGES:
        return value
    raise invalid_language()


@dataclass(slots=True)
class Asked:
    """The language a v2 request asked for (None: none, the answer as without)."""

    lang: str | None = None

    def settle(self, value: object) -> None:
        """The body's ``"lang"`` (None or absent: not given); it must agree with the
        query's."""
        if value is None:
            return
        lang = checked(value)
        if self.lang is not None and self.lang != lang:
            raise invalid_language("lang is given twice (query and body) with two values")
        self.lang = lang


def asked_of(scope: Scope) -> Asked | None:
    """The language state of a v2 request (None outside v2 operations: v1 has none)."""
    asked = scope.get(LANGUAGE_KEY)
    return asked if isinstance(asked, Asked) else None


def answer_language(request: Request) -> str | None:
    """The language of a refusal's message on v2: the one asked, once checked, else a
    supported ``?lang=`` (a body not yet read has no say)."""
    asked = asked_of(request.scope)
    if asked is not None and asked.lang is not None:
        return asked.lang
    return named_language(request.scope) if request.url.path.startswith("/v2/") else None


def query_language(request: Request) -> str | None:
    """``?lang=``: None when absent; INVALID_LANGUAGE when unknown or given twice."""
    given = request.query_params.getlist(LANG)
    if not given:
        return None
    if len(given) > 1:
        raise invalid_language("give lang once")
    return checked(given[0])


def _compact(value: object) -> bytes:
    """JSON as :func:`~bodygraph_server.http.envelope.json_response` writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _labelled(body: bytes, lang: str) -> bytes | None:
    """The success envelope ``body`` with ``labels`` and the link's ``&lang=`` (None: not
    a success envelope; answered as it is). The rest of the body's bytes are kept: the
    link is replaced in place and ``labels`` written before the closing brace. Labels the
    handler wrote (a library result's own ``labels(lang)``) are kept; else they are the
    chart's words of ``data`` (:func:`bodygraph.i18n.labels.labels_of`)."""
    from bodygraph.i18n.labels import labels_of

    try:
        envelope: Any = json.loads(body)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or envelope.get("success") is not True \
            or "data" not in envelope:
        return None
    given = LABELS_FIELD in envelope
    labels = envelope[LABELS_FIELD] if given else labels_of(  # a batch slot's refusal
        envelope["data"], lang, more={"message": lambda text: translated(text, lang)})
    link = envelope.get(RENDER_URL_FIELD)
    member = _compact({RENDER_URL_FIELD: link})[1:-1]
    if given and not isinstance(link, str):
        return body
    if not body.endswith(b"}") or given or (
            isinstance(link, str) and body.count(member) != 1):  # not written as ours are
        if isinstance(link, str):
            envelope[RENDER_URL_FIELD] = f"{link}&{LANG}={lang}"
        envelope[LABELS_FIELD] = labels
        return _compact(envelope)
    if isinstance(link, str):
        body = body.replace(member, _compact({RENDER_URL_FIELD: f"{link}&{LANG}={lang}"})[1:-1])
    return body[:-1] + b',"' + LABELS_FIELD.encode() + b'":' + _compact(labels) + b"}"


async def in_language(response: Response, lang: str) -> Response:
    """A 200 JSON answer with its labels in ``lang`` and ``Content-Language`` (in place:
    a charged answer keeps its settling)."""
    whole = getattr(response, "body", None)  # a streamed answer is sent as it is
    if response.status_code != 200 or not isinstance(whole, bytes | memoryview) or not \
            response.headers.get("content-type", "").startswith("application/json"):
        return response
    body = await anyio.to_thread.run_sync(_labelled, bytes(whole), lang)
    if body is not None:
        response.body = body
        response.headers["content-length"] = str(len(body))
        response.headers["Content-Language"] = lang
    return response


def speaking(handler: Handler, path: str, keyed: bool) -> Handler:
    """``handler`` of a v2 operation at ``path``, taking ``lang``: the query's is checked
    after the admission (``keyed``), the body's as the body is read
    (:func:`bodygraph_server.http.bodies.read_raw_body`)."""

    async def serve(request: Request) -> Response:
        asked = Asked()
        request.scope[LANGUAGE_KEY] = asked
        if b"lang" in request.scope.get("query_string", b""):
            if keyed:
                admitted(request.scope, path)
            asked.lang = query_language(request)
        response = await handler(request)
        return response if asked.lang is None else await in_language(response, asked.lang)

    serve.__name__ = getattr(handler, "__name__", "serve")
    return serve
