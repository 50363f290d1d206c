"""Property-based run of the OpenAPI document against a real uvicorn server (schemathesis):
no 5xx, every status documented, every response valid against its schema and headers.

Bounded: a fixed number of examples per operation and a pytest time-out. Many keys are
rotated so the per-key rate limit does not turn the run into a test of 429s.

Most of the module's CPU time, about four fifths of the test calls, is Hypothesis drawing
the cases: some 150 nested draws per case through schemathesis' strategies, which are built
once per test, not per case (measured 24 Nov 2026: about 96,000 draws in some 660 test
calls, 560 of them sent). The number of draws and Hypothesis' bookkeeping of each is the
cost, not rejection sampling (the invalid and overrun calls are a tenth of the drawing) nor
the phases after ``generate`` (none runs when the test passes). The same examples cannot
avoid it: what would shorten it narrows what is sent (the members beyond their own that
the open request objects may carry, a narrower ``codec``), and ``with-security-parameters``
off would lose the negative cases that send no API key (schemathesis drops a header its
mutation removed, the one passed below too: 43 of them). What is spared is around it:
one kept-alive connection for every case, not a session and a connection each (and the
heap of the collected modules frozen, tests/conftest.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

from .test_visual_live import shared_site

if TYPE_CHECKING:
    import requests

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]


def checks() -> list[Any]:
    """The checks every response must pass. schemathesis is imported by the fixture and the
    test that use it, not in every pytest worker that collects this module (its pytest
    plugin, which these tests do not use, is off: pyproject.toml's addopts)."""
    import schemathesis.checks as check

    return [
        check.not_a_server_error,
        check.status_code_conformance,
        check.content_type_conformance,
        check.response_headers_conformance,
        check.response_schema_conformance,
        check.negative_data_rejection,
    ]
#: schemathesis' statuses of a rejection, and 413: a body past the size limit (the
#: batch's: 1,000 births of 256 bytes) is refused before its fields are read.
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428",
            "429", "5xx"]
#: A request may wait 30 s (schemathesis' default is 10): on a fresh clone the first
#: sensitivity request compiles its numba kernels in the server (the shared site skips the
#: warm-up), which on a loaded box took longer than 10 s.
#: The service ignores query parameters it does not know (a v2 operation's one parameter
#: is lang, docs/api.md "Languages"): an extra one is no negative case.
CONFIG = {"checks": {"negative_data_rejection": {"expected-statuses": REJECTED}},
          "generation": {"allow-extra-parameters": False}, "request-timeout": 30}


class Target:
    """The server under test and a supply of keys."""

    def __init__(self, base_url: str, keys: list[str], session: requests.Session) -> None:
        self.base_url = base_url
        self._keys = itertools.cycle(keys)
        #: One kept-alive connection for every case (without a session schemathesis
        #: builds one, and opens a connection, per call).
        self.session = session

    def next_key(self) -> str:
        return next(self._keys)


@pytest.fixture(scope="module")
def target(pytestconfig: pytest.Config,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """The server test_visual_live shares (one per test session: the Google geocoder at
    the local stand-in, links to its own /render), with 40 accounts of these tests."""
    shared = shared_site(pytestconfig, tmp_path_factory)
    with Bookkeeper(open_store(shared.db_url)) as book:
        keys = [book.create_account("scale").api_key for _ in range(40)]
    import requests

    with requests.Session() as session:
        yield Target(shared.site.server.base_url, keys, session)
    assert "Traceback" not in shared.site.server.log_text()


@pytest.fixture(scope="module")
def api_schema(target: Target) -> Any:
    import schemathesis
    from schemathesis.config import SchemathesisConfig

    return schemathesis.openapi.from_url(target.base_url + "/openapi.json",
                                         config=SchemathesisConfig.from_dict(CONFIG))


RENDER_PATH = "/render/{template}.svg"
RENDER_PNG_PATH = "/render/{template}.png"
#: The extensions beyond the contract: fewer examples each (a batch may hold 1000 births).
EXTENSION_PATHS = ["/v2/transits", "/v2/connections", "/v2/pentas", "/v2/sensitivity",
                   "/v2/cycles", "/v2/calendar", "/v2/charts/batch",
                   "/v2/hologenetic-profiles", "/v2/hologenetic-profiles/coordinates",
                   "/v2/astro/coordinates", "/v2/wheel-charts/coordinates", "/v2/stability",
                   "/v2/stability/coordinates", "/v2/rectifications"]
PATHS = ["/v2/charts", "/v2/charts/simple", "/v2/charts/coordinates", "/v2/visual-charts",
         "/v2/visual-charts/coordinates", "/v1/bodygraphs", "/v1/bodygraphs/simple",
         RENDER_PATH, RENDER_PNG_PATH, *EXTENSION_PATHS]
#: The caller's own account (free, every tier). Its key rotation is left out of the
#: property run, where each case would retire one of the shared keys (tested in
#: tests/server_store/test_account_api.py and tests/server/test_accounts_live.py).
ACCOUNT_OPERATIONS = [("GET", "/v2/account"), ("GET", "/v2/account/usage"),
                      ("GET", "/v2/account/webhook-secret"),
                      ("POST", "/v2/account/webhook-secret/rotate")]
KEY_ROTATION_PATH = "/v2/account/keys/rotate"
#: The jobs' operations (an upload is NDJSON or CSV: tests/server/test_jobs_live.py).
JOB_PATHS = ["/v2/jobs", "/v2/jobs/{jobId}", "/v2/jobs/{jobId}/result"]
#: The public operations: the pages, the document itself and the health checks.
PUBLIC_PATHS = ["/", "/docs", "/playground", "/openapi.json", "/health", "/health/live",
                "/favicon.ico"]


@pytest.mark.parametrize("mode", ["positive", "negative"])  # schemathesis.GenerationMode
@pytest.mark.parametrize("path", PATHS)
def test_api_conforms(api_schema: Any, target: Target, path: str, mode: str) -> None:
    import schemathesis

    every_check = checks()
    operation = api_schema[path]["GET" if path.startswith("/render/") else "POST"]
    few = path in EXTENSION_PATHS or path == RENDER_PNG_PATH

    # derandomize: the seed is a digest of run's source (comments and decorators left out),
    # one for every parametrization. Editing its body draws other cases, and the number of
    # draws differs by up to an eighth from seed to seed: compare costs with the same body.
    @given(case=operation.as_strategy(generation_mode=schemathesis.GenerationMode(mode)))
    @settings(max_examples=10 if few else 25, deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=True, database=None)
    def run(case: Any) -> None:
        key = target.next_key()
        headers = {"HD-Api-Key": key} if path.startswith("/v1") else {
            "Authorization": f"Bearer {key}"}
        case.call_and_validate(base_url=target.base_url, session=target.session,
                               headers=headers, checks=every_check)

    run()


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize(("method", "path"), ACCOUNT_OPERATIONS)
def test_account_operations_conform(api_schema: Any, target: Target, method: str, path: str,
                                    mode: str) -> None:
    import schemathesis

    every_check = checks()
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=schemathesis.GenerationMode(mode)))
    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True, database=None)
    def run(case: Any) -> None:
        case.call_and_validate(base_url=target.base_url, session=target.session,
                               headers={"Authorization": f"Bearer {target.next_key()}"},
                               checks=every_check)

    run()


@pytest.mark.parametrize("path", PUBLIC_PATHS)
def test_public_operations_conform(api_schema: Any, target: Target, path: str) -> None:
    """The pages, the document and the health checks answer as documented (they take no
    parameters: nothing to send in the negative mode)."""
    operation = api_schema[path]["GET"]

    @given(case=operation.as_strategy())
    @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True, database=None)
    def run(case: Any) -> None:
        case.call_and_validate(base_url=target.base_url, session=target.session,
                               checks=checks())

    run()


#: Driven by the MCP SDK's client instead (tests/server/test_mcp_remote.py).
MCP_PATHS = ["/mcp"]


def test_document_lists_every_path(api_schema: Any) -> None:
    account_paths = sorted({path for _, path in ACCOUNT_OPERATIONS} | {KEY_ROTATION_PATH})
    assert sorted(api_schema.keys()) == sorted(
        PATHS + PUBLIC_PATHS + MCP_PATHS + JOB_PATHS + account_paths)
