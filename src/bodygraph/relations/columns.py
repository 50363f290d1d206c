"""What the tables of many results share: rows read by index, and joining tables
computed block by block (blocks sized for the processor's cache)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np

from bodygraph.errors import InvalidOptionError

Table = TypeVar("Table")
Row = TypeVar("Row")


class Rows(Generic[Row]):
    """A table read as a sequence of its rows: ``len``, iteration and ``table[i]``
    (negative ``i`` from the end, ``IndexError`` outside). A table states its length
    and how to build the row at an index in ``range(len(table))``."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def row(self, i: int) -> Row:
        """The row at index ``i``, ``0 <= i < len(self)``."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[Row]:
        for i in range(len(self)):
            yield self.row(i)

    def __getitem__(self, i: int) -> Row:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return self.row(i % len(self))


def concat_blocks(parts: Sequence[Table]) -> Table:
    """One table from blocks of the same dataclass: array fields (and nested dataclasses
    of arrays only) joined along their last axis (time); every other field must be the
    same in all blocks."""
    first = parts[0]
    if len(parts) == 1:
        return first
    joined: dict[str, Any] = {}
    for field in fields(first):  # type: ignore[arg-type]
        values = [getattr(part, field.name) for part in parts]
        head = values[0]
        if isinstance(head, np.ndarray):
            joined[field.name] = np.concatenate(values, axis=-1)
        elif _columns_only(head) and all(type(value) is type(head) for value in values):
            joined[field.name] = concat_blocks(values)
        elif any(value != head for value in values[1:]):
            raise InvalidOptionError(f"cannot join tables of different {field.name}")
    return replace(first, **joined)  # type: ignore[type-var]


def _columns_only(value: object) -> bool:
    """Whether ``value`` is a dataclass instance whose fields are all arrays."""
    return (is_dataclass(value) and not isinstance(value, type)
            and all(isinstance(getattr(value, f.name), np.ndarray) for f in fields(value)))
