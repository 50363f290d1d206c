"""Python's cycle collector paused while a burst of long-lived objects is made."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """The cycle collector off inside the block (its passes over millions of new objects
    that hold no cycle cost more than the block's own work), on again after it if it was
    on. With ``freeze`` (and the collector on before the block), everything that exists
    then is first moved out of the collector's sight (``gc.freeze``): long-lived objects
    are not scanned by every later full pass, nor by the interpreter's collection at
    exit."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze:
                gc.freeze()
            gc.enable()
