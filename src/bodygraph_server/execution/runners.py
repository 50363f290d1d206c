"""The one thing a job needs of whatever runs its chunks: :class:`ChunkRunner`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class ChunkRunner(Protocol):
    """Runs one chunk's ``work(task)`` somewhere and hands back its result."""

    async def run(self, work: Callable[[T], R], task: T) -> R: ...   # work and task picklable

    async def aclose(self) -> None: ...
