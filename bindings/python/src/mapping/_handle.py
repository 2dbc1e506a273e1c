"""Handle: the base of every Python object that owns a pointer the library allocated (a context, a
list, a paginator), as llvmlite's ObjectRef is.

The pointer is freed exactly once: by close(), by leaving a `with` block, or by a weakref.finalize
finalizer when the object is collected or the interpreter exits, whichever comes first. The
finalizer holds the pointer and the destructor, never the object, so it does not keep it alive.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, TypeVar

from .errors import MisuseError

_Self = TypeVar("_Self", bound="Handle")


class Handle:
    """An owned library pointer with close(), context-manager support and a finalizer."""

    _kind = "handle"  # what the closed error calls it: "the context is closed"

    def __init__(self, pointer: Any, free: Callable[[Any], None]) -> None:
        self._pointer = pointer
        self._finalizer = weakref.finalize(self, free, pointer)

    def close(self) -> None:
        """Frees the library's object now. Closing twice is harmless."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def _ptr(self) -> Any:
        """The pointer, for a call; MisuseError once closed (the library would say the same, but
        without naming what was closed)."""
        if not self._finalizer.alive:
            raise MisuseError(f"the {self._kind} is closed")
        return self._pointer
