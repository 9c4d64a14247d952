"""A tiny name -> object registry used by every layer (datasets, models, solvers, tasks)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from interpretopt.exceptions import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Map config strings to objects; unknown names raise an error that lists the valid ones.

    Parameters
    ----------
    kind : str
        What the registry holds ("dataset", "solver", ...), used in messages.

    Examples
    --------
    >>> MODELS = Registry("model")
    >>> @MODELS.register("LR")
    ... def make_lr(random_state=None): ...
    >>> MODELS.get("lr")
    Traceback (most recent call last):
    ...
    interpretopt.exceptions.UnknownNameError: unknown model 'lr'; valid names: LR
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, obj: T | None = None) -> Callable[[T], T] | T:
        """Register ``obj`` under ``name``; usable as a decorator when ``obj`` is omitted."""

        def add(o: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = o
            return o

        return add if obj is None else add(obj)

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, sorted(self._items)) from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def values(self) -> list[T]:
        """The registered objects in registration order."""
        return list(self._items.values())

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

    def __len__(self) -> int:
        return len(self._items)
