"""SIGTERM while a command runs: unwound as Ctrl-C is (what the command made is cleaned
up: a batch job's unfinished output removed), then exit status 143."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

#: The exit status after SIGTERM (128 + its number, as a shell reports a process it ended).
TERMINATED_STATUS = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived within :func:`terminable`: a kind of interruption, so whatever
    cleans up after Ctrl-C cleans up after it too."""


@contextmanager
def terminable() -> Iterator[None]:
    """Within the block, the first SIGTERM raises :class:`Terminated` and later ones are
    ignored while it unwinds; the handler before is put back at the end. Outside the
    main thread (where no handler can be set) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
