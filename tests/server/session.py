"""Things the tests start once and share: once per test process
(:func:`once_per_process`), or once per pytest session for all its xdist workers
(:func:`once_per_session`).

A server that the workers share is started by the first worker that asks for it, under a
file lock in the session's common temporary folder (the parent of every worker's
``basetemp``), which publishes what the others need to reach it (JSON). Workers end at
different times, so such a server does not end with the worker that started it: it ends
when the session's pytest process (the workers' parent) does, at the end of the run or if
it is killed. Without xdist it is once per process, ended at the end of the session.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
Record = dict[str, Any]

_SHARED: dict[str, Any] = {}


def once_per_process(config: pytest.Config, name: str, start: Callable[[ExitStack], T]) -> T:
    """``start(stack)``, made by the first test of this process (each xdist worker) that
    asks for ``name`` and shared with the later ones; ``stack`` (what ``start`` opened) is
    closed at the end of the session."""
    if name not in _SHARED:
        stack = ExitStack()
        try:
            _SHARED[name] = start(stack)
        except BaseException:
            stack.close()
            raise
        config.add_cleanup(stack.close)
        config.add_cleanup(lambda: _SHARED.pop(name, None))
    shared: T = _SHARED[name]
    return shared


class Outliving(subprocess.Popen[bytes]):
    """A child process meant to outlive this one (it ends with the session's pytest
    process): ``Popen``'s finalizer would warn, when this process ends first, that the
    child still runs (an error under the suite's warning filter)."""

    def __del__(self) -> None:
        return


def session_process() -> int | None:
    """The process id of the session's pytest process when this is an xdist worker (its
    parent), else None."""
    return os.getppid() if os.environ.get("PYTEST_XDIST_WORKER") else None


def once_per_session(config: pytest.Config, factory: pytest.TempPathFactory, name: str,
                     start: Callable[[Path, ExitStack, int | None], Record]) -> Record:
    """The record of ``start(folder, stack, until)``, called once per session for ``name``:
    under xdist by the first worker that asks, with ``until`` the session's pytest process
    (what ``start`` runs must end with it, in :class:`Outliving` processes; ``stack`` is
    closed only if ``start`` fails, so it must hold callbacks, not context managers that
    end what they made when they are garbage);
    otherwise with ``until`` None, ``stack`` closed at the end of the session. Call it once
    per process (the callers do, through :func:`once_per_process`)."""
    key = f"session:{name}"
    until = session_process()
    if until is None:
        return once_per_process(config, key, lambda stack: start(factory.mktemp(name), stack,
                                                                 None))
    root = factory.getbasetemp().parent
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        published = root / f"{name}.json"
        if published.exists():
            record: Record = json.loads(published.read_text())
        else:
            folder = root / name
            folder.mkdir(exist_ok=True)  # a worker's failed attempt may have made it
            with ExitStack() as stack:
                record = start(folder, stack, until)
                stack.pop_all()  # what it made outlives this process: closed on failure only
            published.write_text(json.dumps(record))
    return record


def google_process(until: int, stack: ExitStack) -> str:
    """The Google Geocoding API stand-in (:mod:`server.google_api`) in a process of its
    own that ends with process ``until``, stopped when ``stack`` is closed; its
    ``http://127.0.0.1:port`` address."""
    script = Path(__file__).with_name("google_api.py")
    process = Outliving([sys.executable, "-I", str(script), str(until)],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stack.callback(_stop, process)
    assert process.stdout is not None
    with process.stdout:
        port = int(process.stdout.readline())
    return f"http://127.0.0.1:{port}"


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(10)
