"""A list whose oldest items can leave memory while every index stays absolute.

Why a module of its own: the ledger's feeds and transcript and the private
deal's logs and audits all keep long histories whose old part leaves memory
once every seat is past it (docs/performance.md, "Memory over long matches"),
while the record on disk keeps everything under the same numbering.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar, overload

__all__ = ["Tail"]

T = TypeVar("T")


class Tail(Generic[T]):
    """A list whose oldest items can leave memory while every index stays absolute.

    ``len`` counts every item ever appended; ``tail[i]`` and slices use the
    same numbering as before anything was dropped; iteration yields only the
    items still held. Indexing a dropped item raises ``IndexError`` and a slice
    starts at the first item held (see :meth:`Ledger.retire`: the record on
    disk keeps everything).
    """

    __slots__ = ("base", "items")

    def __init__(self) -> None:
        self.base = 0  # items dropped from the front
        self.items: list[T] = []

    def __len__(self) -> int:
        return self.base + len(self.items)

    def __bool__(self) -> bool:
        return bool(self.base or self.items)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def append(self, item: T) -> None:
        self.items.append(item)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        base = self.base
        if isinstance(i, slice):
            start, stop, _ = i.indices(len(self))
            return self.items[max(start - base, 0) : max(stop - base, 0)]
        if i < 0:
            return self.items[i]
        if i < base:
            raise IndexError(f"item {i} left memory (the record on disk has it)")
        return self.items[i - base]

    def drop(self, upto: int) -> list[T]:
        """Forget the items before absolute index ``upto``; returns them."""
        n = upto - self.base
        if n <= 0:
            return []
        gone = self.items[:n]
        del self.items[:n]
        self.base += len(gone)
        return gone
