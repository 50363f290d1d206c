"""Suite-wide settings.

Hypothesis explores new random examples on every developer run; under CI (the ``CI``
environment variable) it replays a fixed, derandomized sequence so that a submission's
result does not depend on chance. Whatever it finds locally is fixed, not skipped.

The suite runs in pytest-xdist workers (``scripts/test.sh`` starts one more than there are
cores): every worker loads this file. A derandomized test's seed is a hash of the test
itself, but Hypothesis also draws constants from the project's modules already imported,
and the test modules import some packages only in the tests that use them: the examples
can differ with what the worker ran before, not from run to run of the same order.
The ``ci`` profile builds on Hypothesis's own: no example database (``derandomize``
implies it, so workers share no files) and no per-example deadline, since wall-clock time
on a machine whose cores are all busy with workers measures the load, not the code (the
developer's ``dev`` profile has no deadline either, for the same reason); every test still
has the global ``timeout`` of pyproject.toml.

Since every worker collects (imports) every test module, a third-party package that only
some tests need (mcp, schemathesis, psycopg, redis, jsonschema, PIL, ...) is imported in
the tests and fixtures that use it, with a ``TYPE_CHECKING`` import for annotations, not
at the top of the module.
"""

from __future__ import annotations

import atexit
import gc
import os
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import chromium
import compiled_engine
import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from server.databases import DatabaseFiles

# ``--doctest-modules`` would import this file as a module named ``conftest`` while
# src/conftest.py holds that name: it has no doctests, leave it out.
collect_ignore = ["conftest.py"]

settings.register_profile("ci", settings.get_profile("ci"), derandomize=True, print_blob=True)
# A developer's run explores new examples, and like CI's has no per-example deadline: its
# workers share the cores too (a 200 ms deadline failed render/test_tokens.py on a loaded box).
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


#: New container objects between two runs of the cyclic garbage collector while tests run.
GC_THRESHOLD = 20_000

# When pytest is done with a process (its own last collections, which report what a
# finalizer raised, have run), the interpreter's exit would collect the whole heap once
# more, for nothing anyone reads (0.48-0.68 CPU-seconds against 0.08-0.10 frozen, in one
# process that ran tests/server, tests/places and tests/render; docs/performance.md).
atexit.register(gc.freeze)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Before any test (and before xdist starts its workers), make sure numba's cache
    holds the fast engine's compiled code (tests/compiled_engine.py): compiling it is no
    test's work, and must not count against a test's time limit."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: its controller did it
        return
    try:
        note = compiled_engine.ensure_cached()
    except RuntimeError as failure:
        pytest.exit(str(failure), returncode=1)
    if note is not None:
        session.config.get_terminal_writer().line(note)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The worker's headless chromium for a module's tests (tests/chromium.py: shared with
    the next module that asks; such tests must be marked ``browser``)."""
    with chromium.chromium() as instance:
        yield instance


@pytest.fixture(scope="session")
def database_files(tmp_path_factory: pytest.TempPathFactory) -> DatabaseFiles:
    """The session's folder of the tests' SQLite files (server/databases.py)."""
    from server.databases import DatabaseFiles  # the service: imported by its tests only

    return DatabaseFiles(tmp_path_factory.mktemp("databases"))


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A freshly migrated SQLite database, made once per test process
    (server/databases.py)."""
    from server.databases import migrated_sqlite

    return migrated_sqlite(tmp_path_factory.mktemp("migrated"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    """Collect with the cyclic garbage collector off, then freeze what collection made.

    Every worker collects every module: the imports, the test items and their fixture
    closures are some 10^5 long-lived objects, and the collector's full passes over them
    were about a sixth of a worker's collection time. Collection leaves little cyclic
    garbage (pytest's bookkeeping of parametrized functions, no open files or sockets);
    ``gc.freeze`` keeps all of it out of the collector's later passes while the tests run,
    as the service does with its own start-up (bodygraph_server.app).

    Then the collector runs after 20,000 new container objects instead of 700: the tests
    make millions (Hypothesis, schemathesis, the gazetteer, pandas), and with the default
    the three workers spent 5.2-5.8 CPU-seconds in about 5,600 collections per run, with
    20,000 2.0-3.0 in about 180 (24 Nov 2026, full runs alternated). Cyclic garbage is still
    collected, a little later; pytest still reports what a finalizer raised.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if enabled:
            gc.freeze()
            gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
            gc.enable()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, start every worker on its share of the modules with ``slow`` tests.

    ``--dist worksteal`` (scripts/test.sh) hands worker ``k`` of ``n`` the ``k``-th of ``n``
    consecutive runs of the collected tests, and idle workers later steal from the end of
    the longest queue. The modules that hold a test marked ``slow`` are dealt out, one run
    each in turn, to the start of the runs, and the other modules fill the runs in their
    usual order: the long tests start at once, side by side, instead of meeting at the end.
    The scheduler (``pytest_xdist_make_scheduler`` below) ends each run, and each steal, at
    a boundary between modules, so a module's fixtures are made once. The slow modules
    that use the browser are dealt as one, one after the other, so that they share their
    worker's chromium (tests/chromium.py: about a CPU-second each).
    """
    chromium.note_users(items)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2:
        return
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    slow = [name for name, group in modules.items()
            if any(item.get_closest_marker("slow") for item in group)]
    browsing = [name for name in slow if any(
        chromium.FIXTURE in getattr(item, "fixturenames", ()) for item in modules[name])]
    deals = [browsing if name in browsing else [name]
             for name in slow if name not in browsing[1:]]
    rest = deque(item for name, group in modules.items() if name not in slow for item in group)
    ordered: list[pytest.Item] = []
    remaining = len(items)
    for run in range(workers):
        size = remaining // (workers - run)  # as xdist's worksteal scheduler sends them
        remaining -= size
        end = len(ordered) + size
        for deal in deals[run::workers]:
            for name in deal:
                ordered.extend(modules[name])
        while rest and len(ordered) < end:
            ordered.append(rest.popleft())
    ordered.extend(rest)
    items[:] = ordered


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist worksteal`` that moves its cuts to module boundaries (module_stealing)."""
    if config.getvalue("dist") != "worksteal":
        return None
    from module_stealing import ModuleStealing

    return ModuleStealing(config, log)  # type: ignore[arg-type]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Once a test's fixtures are torn down, close the worker's chromium unless the next
    test's module uses it (tests/chromium.py)."""
    chromium.after_test(nextitem)
