"""The OpenAPI 3.1 document, made by walking the service's operations
(:class:`~bodygraph_server.http.operation.Operation`) and the schemas their families give;
in a language, its prose through the catalogs (context ``openapi``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import JSON_MEDIA_TYPE, error_schemas, place_schema
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.language import LANG, lang_schema
from bodygraph_server.http.operation import Answer, Operation

_REF = "#/components/schemas/"
#: The catalogs' context of the document's prose (summaries, descriptions).
CONTEXT = "openapi"
Say = Callable[[str], str]


class Said(str):
    """English prose made from a marked pattern and its values (``pgettext("openapi",
    "... {themes} ...")``): in a language, the pattern is translated, then filled with the
    values, each text among them said too (a value the catalogs do not hold stays)."""

    pattern: str
    values: dict[str, object]

    def __new__(cls, pattern: str, **values: object) -> Said:
        said = super().__new__(cls, pattern.format(**values))
        said.pattern, said.values = pattern, values
        return said


#: How a sentence and the next are joined (Japanese and Chinese write no space).
NEXT_SENTENCE = pgettext("openapi", "{sentence} {more}")


def sentences(first: str, *more: str) -> str:
    """Prose of several parts, each said on its own (a shared sentence, such as a tier and
    price note, is translated once), joined as the language joins sentences."""
    if not more:
        return first
    return Said(NEXT_SENTENCE, sentence=first, more=sentences(*more))


def saying(lang: str) -> Say:
    """The document's prose in ``lang`` (``en``: as written): a marked text's translation,
    an unmarked one as it is."""
    if lang == "en":
        return lambda text: text
    from bodygraph.catalog.translations import catalog

    say = catalog(lang).pgettext

    def said(text: str) -> str:
        if isinstance(text, Said):
            return say(CONTEXT, text.pattern).format(**{
                name: said(value) if isinstance(value, str) else value
                for name, value in text.values.items()})
        return say(CONTEXT, text)

    return said


def _header(description: str, type_: str = "string") -> dict[str, Any]:
    return {"description": description, "schema": {"type": type_}}


_RATE_HEADERS = {
    "ratelimit-policy": _header('e.g. "100-in-1min"; q=100; w=60; pk=:...:'),
    "ratelimit": _header('e.g. "100-in-1min"; r=99; t=60'),
    "X-Request-Id": _header("id of this request, also in the server log"),
}
_LANGUAGE = {"$ref": _REF + "Language"}
_LANGUAGE_HEADER = {"Content-Language": _header("the language of labels, when lang was given")}
#: What every operation with a body and a key may also answer: an unknown path, a body
#: too large, an outage; with an Idempotency-Key, its refusals.
_TRANSPORT_CODES = ((404, ErrorCode.NOT_FOUND), (413, ErrorCode.INVALID_REQUEST_BODY))
_IDEMPOTENCY_CODES = (ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.IDEMPOTENCY_KEY_INVALID,
                      ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE)


def _with_lang(body: dict[str, Any]) -> dict[str, Any]:
    """A JSON request body's schema with the optional ``lang`` member."""
    return {"allOf": [body, {"type": "object", "properties": {LANG: _LANGUAGE}}]}


def _response(answer: Answer, headers: Mapping[str, Any]) -> dict[str, Any]:
    content = {answer.media_type: {"schema": dict(answer.schema)}}
    content.update({media_type: {"schema": dict(schema)}
                    for media_type, schema in answer.also.items()})
    return {"description": answer.description, "headers": {**headers, **answer.headers},
            "content": content}


def _error_responses(operation: Operation) -> dict[str, Any]:
    """The contract's refusals of a keyed operation, by status."""
    by_status: dict[int, list[ErrorCode]] = {}
    for code in operation.error_codes:
        by_status.setdefault(operation.status_of(code), []).append(code)
    for status, code in _TRANSPORT_CODES:
        by_status.setdefault(status, []).append(code)
    for code in _IDEMPOTENCY_CODES if operation.idempotent else (ErrorCode.SERVICE_UNAVAILABLE,):
        by_status.setdefault(operation.status_of(code), []).append(code)
    if operation.speaks:
        by_status.setdefault(400, []).append(ErrorCode.INVALID_LANGUAGE)
    error_ref = {"$ref": _REF + ("V1Error" if operation.legacy else "ErrorEnvelope")}
    responses: dict[str, Any] = {}
    for status in sorted(by_status):
        headers = dict(_RATE_HEADERS)
        if status in (409, 429, 503):
            headers["Retry-After"] = _header("seconds to wait", "integer")
        responses[str(status)] = {
            "description": ", ".join(c.value for c in by_status[status]),
            "headers": headers,
            "content": {"application/json": {"schema": error_ref}},
        }
    return responses


def _header_parameters(operation: Operation, geocode_key_required: bool,
                       say: Say) -> list[Any]:
    """``HD-Geocode-Key`` (as this service needs it) and ``Idempotency-Key``."""
    parameters: list[Any] = []
    optional = operation.geocode_key == "optional"
    if operation.geocode_key != "none" and not geocode_key_required:
        parameters.append({
            "name": "HD-Geocode-Key", "in": "header", "required": False,
            "description": say(pgettext(
                "openapi", "Not needed on this service: it looks places up in its own "
                "gazetteer (the header is ignored).")),
            "schema": {"type": "string"},
        })
    elif operation.geocode_key != "none":
        parameters.append({
            "name": "HD-Geocode-Key", "in": "header", "required": not optional,
            "description": say(pgettext(
                "openapi", "The caller's key of the geocoding service. Needed when a birth "
                "is given by location.") if optional else pgettext(
                "openapi", "The caller's key of the geocoding service.")),
            "schema": {"type": "string", "minLength": 0 if optional else 1},
        })
    if operation.idempotent:
        parameters.append({
            "name": "Idempotency-Key", "in": "header", "required": False,
            "description": say(pgettext(
                "openapi", "A retry with the same key and body within 24 hours is answered "
                "again and charged once (docs/api.md, Idempotent retries; an extension of "
                "the contract).")),
            "schema": {"type": "string", "minLength": 1, "maxLength": 255},
        })
    if operation.speaks:
        parameters.append({"name": LANG, "in": "query", "required": False,
                           "description": say(pgettext(
                               "openapi", "The language of labels (or the body's lang).")),
                           "schema": _LANGUAGE})
    return parameters


def _parameter(parameter: Mapping[str, Any], say: Say) -> dict[str, Any]:
    """A declared parameter object with its description said."""
    said = dict(parameter)
    if isinstance(said.get("description"), str):
        said["description"] = say(said["description"])
    return said


def operation_object(operation: Operation, geocode_key_required: bool = True,
                     lang: str = "en") -> dict[str, Any]:
    """The OpenAPI operation object of ``operation``, its prose in ``lang``;
    ``geocode_key_required`` False (a service with the offline gazetteer) makes
    ``HD-Geocode-Key`` optional."""
    say = saying(lang)
    keyed = operation.key != "none"
    description = say(operation.description)
    if keyed:
        tiers = ", ".join(tier.value.capitalize() for tier in operation.tiers)
        description = f"{description}\n\n" + say(Said(pgettext(
            "openapi", "Access tiers: {tiers}."), tiers=tiers))
    document: dict[str, Any] = {
        "summary": say(operation.summary),
        "description": description,
        "operationId": operation.identifier,
        "tags": list(operation.tags),
        "security": ([{"v1ApiKey": []}] if operation.legacy else [{"bearerAuth": []}])
        if keyed else [],
        "parameters": [*(_parameter(parameter, say) for parameter in operation.parameters),
                       *_header_parameters(operation, geocode_key_required, say)],
    }
    if operation.request_body is not None:
        body: dict[str, Any] = {"$ref": _REF + operation.request_body}
        document["requestBody"] = {"required": True, "content": {
            media_type: {"schema": _with_lang(body) if operation.speaks
                         and media_type == JSON_MEDIA_TYPE else body}  # a JSON body may carry lang
            for media_type in operation.body_media_types}}
    headers = _RATE_HEADERS if keyed else {}
    labelled = (operation.speaks and operation.success_status == 200
                and operation.success.media_type == JSON_MEDIA_TYPE)  # 202, streams: no labels
    responses = {str(operation.success_status): _response(operation.success, {
        **headers, **(_LANGUAGE_HEADER if labelled else {})})}
    if keyed:
        responses.update(_error_responses(operation))
    for status, answer in sorted(operation.refusals.items()):
        responses[str(status)] = _response(answer, headers)
    document["responses"] = responses
    return document


def openapi_document(operations: Iterable[Operation], schemas: Mapping[str, Any], *,
                     geocode_key_required: bool = True, lang: str = "en") -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``operations``, with ``schemas`` (the families') and the
    envelope's own among its components; its prose (summaries, descriptions) in ``lang``,
    its keys, schemas, codes and examples the contract's."""
    from bodygraph import __version__

    say = saying(lang)
    paths: dict[str, Any] = {}
    for operation in operations:
        paths.setdefault(operation.path, {})[operation.method.lower()] = operation_object(
            operation, geocode_key_required, lang)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "bodygraph service",
            "version": __version__,
            "description": say(pgettext(
                "openapi", "Human Design charts (bodygraphs) from birth data. v2 answers in "
                "an envelope; v1 is the legacy flat form. Every successful call costs 1 "
                "credit. See /docs for the rules.")),
        },
        "paths": paths,
        "components": {
            "schemas": {**schemas, **error_schemas(), "PlaceTaken": place_schema(),
                        "Language": lang_schema()},
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "Authorization: Bearer <API_KEY> (v2)"},
                "v1ApiKey": {"type": "apiKey", "in": "header", "name": "HD-Api-Key",
                             "description": say(pgettext(
                                 "openapi", "the same API key, v1 header"))},
            },
        },
    }
