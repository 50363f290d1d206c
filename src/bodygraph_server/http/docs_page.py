"""The service's ``/docs`` page: a self-contained HTML page made from the OpenAPI
document (:mod:`bodygraph_server.http.openapi`), every endpoint, field rule and error
code."""

from __future__ import annotations

import html
from typing import Any

from bodygraph_server.http.errors import ERROR_TABLE


def _fields(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", ()))
    rows = []
    for name, spec in schema.get("properties", {}).items():
        bounds = [f"{k} {spec[k]}" for k in ("pattern", "minLength", "maxLength", "minimum",
                                              "maximum") if k in spec]
        rows.append(
            f"<tr><td><code>{html.escape(name)}</code></td>"
            f"<td>{html.escape(str(spec.get('type', '')))}</td>"
            f"<td>{'yes' if name in required else 'no'}</td>"
            f"<td>{html.escape('; '.join(bounds))} {html.escape(spec.get('description', ''))}"
            "</td></tr>"
        )
    return ("<table><tr><th>field</th><th>type</th><th>required</th><th>rule</th></tr>"
            + "".join(rows) + "</table>")


def docs_page(document: dict[str, Any]) -> str:
    """A self-contained HTML page describing every endpoint and error code."""
    schemas = document["components"]["schemas"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(document['info']['title'])}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
        "padding:.2em .5em;text-align:left}code{background:#f4f4f4}</style></head><body>",
        f"<h1>{html.escape(document['info']['title'])} {document['info']['version']}</h1>",
        f"<p>{html.escape(document['info']['description'])}</p>",
        "<p>Machine-readable description: <a href='/openapi.json'>/openapi.json</a> "
        "(OpenAPI 3.1).</p>",
        "<h2>Authentication</h2><p>v2: <code>Authorization: Bearer &lt;API_KEY&gt;</code>; "
        "v1: <code>HD-Api-Key: &lt;API_KEY&gt;</code>. Location endpoints also need "
        "<code>HD-Geocode-Key</code>. Limit: 100 requests per minute per key "
        "(headers <code>ratelimit-policy</code>, <code>ratelimit</code>, "
        "<code>Retry-After</code> on 429).</p>",
    ]
    for path, item in document["paths"].items():
        method, op = next(iter(item.items()))
        parts.append(f"<h2>{method.upper()} <code>{html.escape(path)}</code>: "
                     f"{html.escape(op['summary'])}</h2>")
        parts.append(f"<p>{html.escape(op['description'])}</p>")
        if "requestBody" in op:
            input_ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            input_schema = schemas[input_ref.rsplit("/", 1)[1]]
            parts.append("<h3>Request body</h3>" + _fields(input_schema))
        else:
            params = {"properties": {p["name"]: {**p["schema"], "description":
                                                  p["description"]}
                                     for p in op["parameters"]},
                      "required": [p["name"] for p in op["parameters"]]}
            parts.append("<h3>Parameters</h3>" + _fields(params))
        rows = "".join(
            f"<tr><td>{status}</td><td>{html.escape(resp['description'])}</td></tr>"
            for status, resp in op["responses"].items()
        )
        parts.append("<h3>Responses</h3><table><tr><th>status</th><th>meaning</th></tr>"
                     + rows + "</table>")
    rows = "".join(
        f"<tr><td><code>{code.value}</code></td><td>{spec.status}</td>"
        f"<td>{html.escape(spec.message)}</td></tr>"
        for code, spec in ERROR_TABLE.items()
    )
    parts.append("<h2>Error codes</h2><table><tr><th>errorCode</th><th>HTTP</th>"
                 "<th>default message</th></tr>" + rows + "</table></body></html>")
    return "".join(parts)
