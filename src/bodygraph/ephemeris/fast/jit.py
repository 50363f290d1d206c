"""The two forms of the fast engine's kernels: plain Python, and compiled by numba.

A kernel is written once, as a plain function marked :func:`kernel`, and stays a plain
function: importing the engine imports no numba, and one chart runs the kernels as
Python (a few milliseconds) instead of loading the compiled code (most of a second in
a new process). :func:`compiled` gives the numba version of a kernel, built on first use
from the same code with every kernel it calls replaced by its compiled twin.

Both forms do the same IEEE 754 operations in the same order: numba compiles without
``fastmath`` (no reassociation, no fused multiply-add), and the kernels call the
``math`` functions, which numba and Python both take from the C library. So the two
give the same numbers bit for bit (tests/fast/test_plain.py proves it over random
instants). Kernels use ``*`` rather than ``**`` (Python's ``x ** 2`` calls ``pow``,
numba multiplies) and avoid division by zero (numba, with numpy's error model, returns
inf where Python raises).

numba is optional (the ``fast`` extra: ``pip install 'bodygraph[fast]'``): without it
:func:`fastest` gives the plain functions, which compute the same numbers, only slower.

Compiled functions are cached on disk (numba's ``cache=True``: next to the module in
``__pycache__`` or, where that is read-only, in numba's per-user cache), so only the
first use on a machine pays for compilation. numba checks a cached function against its
own source file only, not against the kernels it calls and has compiled into itself, so
each twin's cache name carries a digest of the source files of
:mod:`bodygraph.ephemeris` (:func:`kernel_sources`): an edit to any kernel, or to a
constant a kernel reads, compiles them all again instead of loading a stale caller (the
entries of earlier sources stay behind in ``__pycache__``).
Compiled functions run without the GIL, so threads can run them side by side.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import types
from collections.abc import Callable, Iterable
from importlib.util import find_spec
from pathlib import Path
from threading import Lock
from typing import Any, TypeVar, cast

from bodygraph.errors import EphemerisError

Function = TypeVar("Function", bound=Callable[..., Any])

#: Every kernel, by the plain function's identity.
_KERNELS: dict[int, Callable[..., Any]] = {}
#: The compiled twins, by the plain function's identity; filled on first use.
_COMPILED: dict[int, Any] = {}
_BUILDING = Lock()
#: Set when importing numba failed: the plain functions serve from then on.
_UNAVAILABLE: list[str] = []
#: What to install for the compiled engine.
FAST_EXTRA = "pip install 'bodygraph[fast]'"


def kernel(function: Function) -> Function:
    """Mark ``function`` as a kernel of the fast engine (it is returned unchanged)."""
    _KERNELS[id(function)] = function
    return function


def kernel_sources() -> list[Path]:
    """The files the compiled code is made from: every module of
    :mod:`bodygraph.ephemeris`, which holds every kernel (the mean node's in ``engine.py``)
    and every constant they read (numba freezes a global's value into the code, such as
    ``SOLAR_ARC_DEG`` of ``design.py``). A fixed set, the same whatever a process has
    imported when it compiles."""
    return sorted(Path(__file__).parents[1].rglob("*.py"))


def sources_digest(files: Iterable[Path]) -> str:
    """A short digest of ``files``: their names and contents, in the order given."""
    digest = hashlib.sha256()
    for path in files:
        for part in (path.name.encode(), path.read_bytes()):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()[:16]


def is_cached(functions: Iterable[Callable[..., Any]]) -> bool:
    """Whether numba's on-disk cache has an entry for the twin of each of ``functions``
    made from the current sources, as far as the file names tell, without importing
    numba: an index file where numba keeps them (``$NUMBA_CACHE_DIR`` where that is set,
    else ``__pycache__`` beside the module or numba's per-user cache folder)."""
    digest = sources_digest(kernel_sources())
    custom = os.environ.get("NUMBA_CACHE_DIR")
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"
    for function in functions:
        module = function.__module__.rsplit(".", 1)[-1]
        pattern = f"{module}.{function.__qualname__}_{digest}-*.nbi"
        beside = Path(inspect.getfile(function)).parent / "__pycache__"
        places = [(Path(custom), True)] if custom else [(beside, False), (user, True)]
        if not any(next(iter(folder.rglob(pattern) if nested else folder.glob(pattern)),
                        None) for folder, nested in places):
            return False
    return True


def is_compiled() -> bool:
    """Whether the compiled twins exist in this process (numba is imported)."""
    return bool(_COMPILED)


def can_compile() -> bool:
    """Whether numba is installed and importable, as far as can be told without importing
    it (a failed import, once tried, counts too)."""
    if _COMPILED:
        return True
    if _UNAVAILABLE:
        return False
    try:
        found = find_spec("numba") is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a broken entry
        found = False
    if not found:  # remembered: the engine asks on every call past its plain start
        _UNAVAILABLE.append("not installed")
    return found


def compiled(function: Function) -> Function:
    """The numba-compiled twin of a kernel (compiled, or loaded from the cache, when
    first called). Raises :class:`~bodygraph.errors.EphemerisError` where numba cannot
    be imported."""
    with _BUILDING:
        if id(function) not in _COMPILED:
            _compile_all()
    return cast(Function, _COMPILED[id(function)])


def fastest(function: Function) -> Function:
    """The compiled twin of a kernel where numba can be imported, else the kernel itself
    (the same numbers)."""
    if not can_compile():
        return function
    try:
        return compiled(function)
    except EphemerisError:
        return function


def _unavailable() -> EphemerisError:
    return EphemerisError(f"the compiled engine needs numba ({_UNAVAILABLE[0]}): {FAST_EXTRA}")


def _compile_all() -> None:
    if _UNAVAILABLE:
        raise _unavailable()
    try:
        import numba
    except ImportError as exc:  # not installed, or its LLVM cannot be loaded
        _UNAVAILABLE.append("not installed" if exc.name == "numba" else "it cannot be loaded")
        raise _unavailable() from exc

    twins: dict[int, Any] = {}
    namespaces: list[dict[str, Any]] = []
    sources = sources_digest(kernel_sources())
    for key, function in _KERNELS.items():
        if key in _COMPILED:  # built before (kernels defined later come on their own)
            continue
        # The same code over a copy of its module's namespace, in which the kernels
        # will be swapped for their twins (numba reads globals when it compiles).
        namespace = dict(function.__globals__)
        namespaces.append(namespace)
        twin = types.FunctionType(function.__code__, namespace, function.__name__,
                                  function.__defaults__, function.__closure__)
        # numba names the cache files after the qualified name (see the module's doc).
        twin.__qualname__ = f"{function.__qualname__}_{sources}"
        twins[key] = numba.njit(cache=True, nogil=True, error_model="numpy")(twin)
    for namespace in namespaces:
        for name, value in namespace.items():
            if callable(value) and _KERNELS.get(id(value)) is value:
                namespace[name] = twins.get(id(value)) or _COMPILED[id(value)]
    _COMPILED.update(twins)  # only now, complete: is_compiled() reads it without the lock
