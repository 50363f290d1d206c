"""Every route of the app is an operation in the OpenAPI document (static files aside);
one Operation describes a charged POST, a free GET, a DELETE and a download alike."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bodygraph_server.app import create_app
from bodygraph_server.http.openapi import openapi_document
from bodygraph_server.http.operation import Answer, Operation, routes_of
from bodygraph_server.settings import Settings


def _document(app: Starlette) -> dict[str, Any]:
    from starlette.testclient import TestClient

    with TestClient(app, base_url="http://localhost") as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


def test_every_route_but_static_files_is_documented(tmp_path: Any) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/x.db", geocoder="offline",
                              warm_up=False))
    document = _document(app)
    by_route: dict[tuple[str, str], list[Operation]] = {}
    for operation in app.state.operations:
        by_route.setdefault((operation.route_path or operation.path, operation.method),
                            []).append(operation)
    seen = 0
    for route in app.routes:
        if isinstance(route, Mount):
            assert isinstance(route.app, StaticFiles), route.path
            continue
        assert isinstance(route, Route), route
        for method in sorted((route.methods or set()) - {"HEAD"}):
            for operation in by_route[(route.path, method)]:
                assert method.lower() in document["paths"][operation.path], operation.path
                seen += 1
    assert seen == len(app.state.operations)
    paths = document["paths"]
    for path, method in (("/health", "get"), ("/health/live", "get"), ("/", "get"),
                         ("/docs", "get"), ("/playground", "get"), ("/openapi.json", "get"),
                         ("/render/{template}.svg", "get"), ("/render/{template}.png", "get"),
                         ("/v2/charts", "post"), ("/v1/bodygraphs", "post")):
        assert method in paths[path], path
    assert "503" in paths["/health"]["get"]["responses"]
    assert set(paths["/docs"]["get"]["responses"]["200"]["content"]) == {"text/html"}


@pytest.mark.anyio
async def test_one_path_serves_a_get_and_a_delete() -> None:
    async def show(request: Request) -> Response:
        return PlainTextResponse("shown")

    async def remove(request: Request) -> Response:
        return PlainTextResponse("removed")

    common: dict[str, Any] = {"path": "/things/{id}", "summary": "a thing", "tags": ("x",),
                              "success": Answer(description="ok", schema={"type": "string"})}
    every = (Operation(method="GET", description="show", handler=show, **common),
             Operation(method="DELETE", description="remove", handler=remove, **common))
    document = openapi_document(every, {})
    assert set(document["paths"]["/things/{id}"]) == {"get", "delete"}
    app = Starlette(routes=routes_of(every))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://test") as client:
        assert (await client.get("/things/1")).text == "shown"
        assert (await client.delete("/things/1")).text == "removed"
        assert (await client.post("/things/1")).status_code == 405
