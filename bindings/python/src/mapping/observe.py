"""Observing commits: Context.observe(fn) calls fn with a ChangeSet after every commit that changed
something (mapping_context_observe). The callback runs on the committing thread once the library has
released the context, so it may read or change the context; an exception it raises is printed by
ctypes and otherwise ignored, as for any ctypes callback.
"""
from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any, Callable, Dict, NamedTuple, Tuple

from . import _ffi
from ._handle import Handle
from .objects import Object

if TYPE_CHECKING:
    from .context import Context


class Updated(NamedTuple):
    object: Object
    changed: Tuple[str, ...]  # attribute and relationship names, in declaration order


class Deleted(NamedTuple):
    entity: str
    identity: Any  # the identification value, a dict of them for a compound one, or None


class ChangeSet(NamedTuple):
    """What one commit changed. Objects made and deleted within it appear nowhere."""
    inserted: Tuple[Object, ...]
    updated: Tuple[Updated, ...]
    deleted: Tuple[Deleted, ...]


def _read(context: Context, changes: int) -> ChangeSet:
    """The change set the library lends for the duration of the callback, copied out."""
    def count(kind: int) -> int:
        total = ctypes.c_size_t()
        _ffi.changes_count(changes, kind, ctypes.byref(total))
        return total.value

    def obj(kind: int, index: int) -> Object:
        handle = _ffi.Object()
        _ffi.changes_object(changes, kind, index, ctypes.byref(handle))
        return Object(context, handle.value)

    def text(function: Any, *arguments: Any) -> str:
        out = ctypes.c_char_p()
        function(changes, *arguments, ctypes.byref(out))
        return (out.value or b"").decode("utf-8")

    inserted = tuple(obj(_ffi.CHANGE_INSERTED, index) for index in range(count(_ffi.CHANGE_INSERTED)))
    updated = tuple(Updated(obj(_ffi.CHANGE_UPDATED, index), tuple(json.loads(text(_ffi.changes_changed, index))))
                    for index in range(count(_ffi.CHANGE_UPDATED)))
    deleted = tuple(Deleted(text(_ffi.changes_entity, _ffi.CHANGE_DELETED, index),
                            json.loads(text(_ffi.changes_identity, index)))
                    for index in range(count(_ffi.CHANGE_DELETED)))
    return ChangeSet(inserted, updated, deleted)


class Observer(Handle):
    """A registered observer. close() (or leaving its `with` block) stops it; so does closing the
    context."""

    _kind = "observer"

    def __init__(self, context: Context, callback: Callable[[ChangeSet], None]) -> None:
        def call(_context_pointer: Any, changes: int, _payload: Any) -> None:
            callback(_read(context, changes))

        self._function = _ffi.OBSERVER(call)  # kept alive as long as the observer is
        token = ctypes.c_uint64()
        _ffi.context_observe(context._ptr, self._function, None, ctypes.byref(token))
        registry: Dict[int, Any] = context._observers
        registry[token.value] = self._function
        super().__init__(token.value, _Unobserve(context, registry))


class _Unobserve:
    """The observer's destructor: holds the context weakly enough not to matter (the context keeps
    its own callbacks) and does nothing once the context is closed (its observers went with it)."""

    def __init__(self, context: Context, registry: Dict[int, Any]) -> None:
        self._context = context
        self._registry = registry

    def __call__(self, token: int) -> None:
        if not self._context.closed:
            _ffi.context_unobserve(self._context._ptr, token)
        self._registry.pop(token, None)
