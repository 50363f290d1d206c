"""The compiler of the fast engine: numba's ``njit``, typed for mypy.

Compiled functions are cached on disk (numba's ``cache=True``: next to the module in
``__pycache__`` or, where that is read-only, in numba's per-user cache), so only the first
use on a machine pays for compilation. They run without the GIL and with numpy's error
model (a division by zero gives inf or nan, as in numpy, instead of raising). No
``fastmath``: every operation rounds as IEEE 754 says, in the order written, so a
result never depends on how many other charts are computed with it.

Importing this module imports numba (a few hundred milliseconds), so only the fast
engine's modules import it, and ``bodygraph.calculator`` imports those on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

Function = TypeVar("Function", bound=Callable[..., Any])


def jit(function: Function) -> Function:
    """Compile ``function`` with numba (nopython mode, cached, no GIL)."""
    compiled = numba.njit(cache=True, nogil=True, error_model="numpy")(function)
    return cast(Function, compiled)
