"""Hostile but well-formed requests: location text the JSON parser accepts but that is
not text, junk and weak place names, bodies in other encodings, the key header twice,
the edges of the supported range, and the headers every API answer carries."""

from __future__ import annotations

import json
import os
import re
import statistics
import threading
import time
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.http.fields import DATE_PATTERN, SUPPORTED_RANGE
from bodygraph_server.http.validation import input_schemas

from .conftest import new_key, v1_headers, v2_headers
from .support import shared_served, tls_context
from .test_endpoints import balance
from .test_no_5xx import Harness, harness  # noqa: F401 (the module fixture)

V2_LOCATION = ["/v2/charts", "/v2/charts/simple", "/v2/visual-charts"]
V1_LOCATION = ["/v1/bodygraphs", "/v1/bodygraphs/simple"]
LOCATION_PATHS = V2_LOCATION + V1_LOCATION

pytestmark = pytest.mark.anyio


def location_body(path: str, location_json: str) -> bytes:
    """A body whose location member is the JSON text ``location_json`` as it is."""
    date = "15-Jul-90" if path.startswith("/v1") else "1990-07-15"
    # surrogatepass: a lone surrogate written raw is invalid UTF-8, which must be refused too
    return (f'{{"birthdate":"{date}","birthtime":"14:30","location":{location_json}}}'
            ).encode("utf-8", "surrogatepass")


def headers_for(path: str, key: str) -> dict[str, str]:
    return v1_headers(key) if path.startswith("/v1") else v2_headers(key)


def code_of(path: str, response: httpx.Response) -> str:
    body = response.json()
    return str(body["message"] if path.startswith("/v1") else body["errorCode"])


@pytest.mark.parametrize("path", LOCATION_PATHS)
@pytest.mark.parametrize("text", [r'"\ud800Berlin"', r'"Berlin\udfff"', r'"Ber\u0000lin"',
                                  r'"Berlin\u001b[2J"', r'"\ud83dBerlin"'])
async def test_text_that_is_not_text_is_invalid_location(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, text: str
) -> None:
    key = new_key(book)
    before = balance(book, key)
    r = await client.post(path, content=location_body(path, text), headers=headers_for(path, key))
    assert r.status_code == 400, r.text
    if path.startswith("/v2"):
        assert r.json()["errorCode"] == "INVALID_LOCATION"
    assert "not text" in r.json()["message"]
    assert balance(book, key) == before


@pytest.mark.parametrize("path", LOCATION_PATHS)
async def test_location_is_at_most_200_characters_on_v1_and_v2(
    client: httpx.AsyncClient, book: Bookkeeper, path: str
) -> None:
    key = new_key(book)
    long = json.dumps("Berlin " + "x" * 194)  # 201 characters
    r = await client.post(path, content=location_body(path, long), headers=headers_for(path, key))
    assert r.status_code == 400
    assert "4 to 200 characters" in r.json()["message"]
    if path.startswith("/v2"):
        assert r.json()["errorCode"] == "INVALID_LOCATION"
    ok = json.dumps("Berlin, Germany" + " " * 185)  # 200 characters, trimmed to a place
    r = await client.post(path, content=location_body(path, ok), headers=headers_for(path, key))
    assert r.status_code == 200, r.text


def test_the_schemas_state_the_same_bound() -> None:
    schemas = input_schemas()
    for name in ("ChartInput", "V1Input"):
        assert schemas[name]["properties"]["location"]["maxLength"] == 200


any_text = st.text(st.characters(blacklist_categories=()), max_size=40)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=any_text, path=st.sampled_from(LOCATION_PATHS), ascii_only=st.booleans())
def test_no_location_text_gives_a_5xx(
    harness: Harness, text: str, path: str, ascii_only: bool  # noqa: F811
) -> None:
    body = location_body(path, json.dumps(text, ensure_ascii=ascii_only))
    r = harness.post(path, body, {"HD-Geocode-Key": "g"})
    assert r.status_code in (200, 400, 422), r.text


@pytest.mark.parametrize("location", ["ab, ab", "qq, qq", "zzzz"])
async def test_a_weak_match_is_not_found_and_free(
    client: httpx.AsyncClient, book: Bookkeeper, location: str
) -> None:
    key = new_key(book)
    before = balance(book, key)
    r = await client.post("/v2/charts", content=location_body("/v2", json.dumps(location)),
                          headers=v2_headers(key))
    assert r.status_code == 400
    assert r.json()["errorCode"] == "GEOCODE_LOCATION_NOT_FOUND"
    assert balance(book, key) == before


async def test_junk_location_text_is_cheap(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    junk = [("qzx" * 70)[:200], "a, " * 66, "".join(chr(0x4E00 + i) for i in range(200)),
            ("ab cd ef " * 30)[:200], "x" * 200]
    costs = []  # CPU seconds of this process (client and app), not wall time: robust on
    for text in junk * 2:  # a busy machine
        for path in ("/v2/charts", "/v1/bodygraphs"):
            started = time.process_time()
            r = await client.post(path, content=location_body(path, json.dumps(text)),
                                  headers=headers_for(path, key))
            costs.append(time.process_time() - started)
            assert r.status_code == 400, r.text
    # the library bounds its close-match search to a few ms; the request as a whole,
    # with its bookkeeping, stays far below the ~1 s junk cost once seen
    assert statistics.median(costs) < 0.05, costs
    assert max(costs) < 0.3, costs


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "utf-8-sig"])
async def test_bodies_not_in_plain_utf8_are_422(
    client: httpx.AsyncClient, book: Bookkeeper, encoding: str
) -> None:
    key = new_key(book)
    text = '{"birthdate":"1990-07-15","birthtime":"14:30","lat":52.52,"lng":13.405}'
    r = await client.post("/v2/charts/coordinates", content=text.encode(encoding),
                          headers=v2_headers(key, None))
    assert r.status_code == 422 and r.json()["errorCode"] == "INVALID_REQUEST_BODY"
    r = await client.post("/v2/charts/coordinates", content=text.encode(),
                          headers=v2_headers(key, None))
    assert r.status_code == 200


async def test_the_key_header_twice_is_refused(client: httpx.AsyncClient,
                                               book: Bookkeeper) -> None:
    key, other = new_key(book), new_key(book)
    body = location_body("/v2", '"Berlin"')
    for pair in ((key, other), (key, key), (other, "nonsense")):
        r = await client.post(
            "/v2/charts/coordinates",
            content=b'{"birthdate":"1990-07-15","birthtime":"14:30","lat":1,"lng":1}',
            headers=[("Authorization", f"Bearer {pair[0]}"),
                     ("Authorization", f"Bearer {pair[1]}")])
        assert r.status_code == 401 and r.json()["errorCode"] == "UNAUTHORIZED"
        assert "exactly one" in r.json()["message"]
        r = await client.post("/v1/bodygraphs", content=location_body("/v1", '"Berlin"'),
                              headers=[("HD-Api-Key", pair[0]), ("HD-Api-Key", pair[1]),
                                       ("HD-Geocode-Key", "g")])
        assert r.status_code == 401 and r.json()["code"] == 401
    assert body  # the v2 location body is well formed (used above for the shape only)
    assert balance(book, key) == balance(book, other)


async def test_api_answers_are_not_cached_nor_sniffed(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    coords = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
    for r in (
        await client.post("/v2/charts/coordinates", json=coords, headers=v2_headers(key)),
        await client.post("/v2/charts/coordinates", json={}, headers=v2_headers(key)),
        await client.post("/v2/charts/coordinates", json=coords),
        await client.post("/v1/bodygraphs", json={}, headers=v1_headers(key)),
        await client.get("/v2/nowhere", headers=v2_headers(key)),
    ):
        assert r.headers["cache-control"] == "no-store", r.request.url
        assert r.headers["x-content-type-options"] == "nosniff"
    health = await client.get("/health")
    assert health.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("birthdate", "birthtime", "lat", "lng", "status"),
    [
        ("1800-04-04", "00:00", 0.0, 0.0, 200),  # 1800-04-04 00:00 UTC: the first instant
        ("1800-04-03", "23:00", 0.0, 0.0, 400),
        ("1800-04-03", "23:00", 40.7, -74.0, 200),  # New York: already 04-04 in UTC
        ("2199-12-31", "00:00", 0.0, 0.0, 200),  # the last instant
        ("2199-12-31", "00:01", 0.0, 0.0, 400),
        ("2199-12-31", "09:00", 35.7, 139.7, 200),  # Tokyo: still 12-31 00:00 UTC
    ],
)
async def test_the_supported_range_edges(
    client: httpx.AsyncClient, book: Bookkeeper, birthdate: str, birthtime: str,
    lat: float, lng: float, status: int,
) -> None:
    key = new_key(book)
    r = await client.post("/v2/charts/coordinates", headers=v2_headers(key, None),
                          json={"birthdate": birthdate, "birthtime": birthtime,
                                "lat": lat, "lng": lng})
    assert r.status_code == status, r.text
    if status == 400:
        assert r.json()["errorCode"] == "INVALID_BIRTHDATE"
        assert SUPPORTED_RANGE in r.json()["message"]
    assert re.fullmatch(DATE_PATTERN, birthdate)


def test_documented_range_agrees() -> None:
    pattern = re.compile(DATE_PATTERN)
    assert pattern.fullmatch("1800-04-03") and not pattern.fullmatch("1800-04-02")
    assert pattern.fullmatch("2199-12-31") and not pattern.fullmatch("2200-01-01")
    description = input_schemas()["ChartInput"]["properties"]["birthdate"]["description"]
    assert SUPPORTED_RANGE in description
    assert SUPPORTED_RANGE == "births from 1800-04-04 00:00 UTC to 2199-12-31 00:00 UTC"


JUNK = [("qzx" * 70)[:200], "a, " * 66, "".join(chr(0x4E00 + i) for i in range(200)),
        ("ab cd ef " * 30)[:200], "x" * 200, "ab, ab", "zq" * 100]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_junk_clients_do_not_slow_down_others(
    pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Four clients sending junk location text at once against a real uvicorn worker (the
    one the test session shares, :func:`shared_served`): each junk request costs the
    worker milliseconds of CPU (it was about 1 s), and other callers' median stays in the
    same range as without them (it went from 4 to 561 ms). The CPU bound is the robust
    one on a busy machine (it also counts what other test processes ask of the worker
    meanwhile, a few milliseconds a request); the latency bound is loose."""
    server, book = shared_served(pytestconfig, tmp_path_factory)
    keys = [book.create_account("developer").api_key for _ in range(9)]
    coords = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}

    def timed(http: httpx.Client, key: str, count: int) -> list[float]:
        out = []
        for _ in range(count):
            started = time.perf_counter()
            r = http.post("/v2/charts/coordinates", json=coords, headers=v2_headers(key, None))
            out.append(time.perf_counter() - started)
            assert r.status_code == 200, r.text
        return out

    junk_answers: list[int] = []

    def junk_client(n: int) -> None:
        with httpx.Client(base_url=server.base_url, timeout=60, verify=tls_context()) as http:
            for i in range(len(JUNK) * 3):
                r = http.post("/v2/charts", headers=v2_headers(keys[4 + n]),
                              json={**coords, "location": JUNK[i % len(JUNK)]})
                junk_answers.append(r.status_code)

    with httpx.Client(base_url=server.base_url, timeout=60, verify=tls_context()) as http:
        timed(http, keys[0], 5)  # warm the connection
        # The shared server starts without the warm-up: a place found once loads the
        # gazetteer (as the warm-up would) before the junk's CPU is counted.
        found = http.post("/v2/charts", headers=v2_headers(keys[8]),
                          json={**coords, "location": "Berlin, Germany"})
        assert found.status_code == 200, found.text
        alone = statistics.median(timed(http, keys[1], 25))
        clients = [threading.Thread(target=junk_client, args=(n,)) for n in range(4)]
        cpu_before = cpu_seconds(server.pid)
        for thread in clients:
            thread.start()
        loaded = statistics.median(timed(http, keys[2], 25))
        for thread in clients:
            thread.join(120)
        cpu = cpu_seconds(server.pid) - cpu_before
    assert junk_answers == [400] * (4 * 3 * len(JUNK))
    assert cpu / len(junk_answers) < 0.05, (cpu, len(junk_answers))
    assert loaded < max(0.5, 10 * alone), (alone, loaded)  # loose: the machine may be busy
