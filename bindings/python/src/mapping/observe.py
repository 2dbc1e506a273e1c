"""Observing commits: Context.observe(fn) calls fn with a ChangeSet after every commit that changed
something (mapping_context_observe); Context.watch(...) calls fn with a FetchChange when a fetch's
results change (mapping_context_watch). The callback runs on the committing thread once the library has
released the context, so it may read or change the context; an exception it raises is printed by
ctypes and otherwise ignored, as for any ctypes callback.
"""
from __future__ import annotations

import ctypes
import json
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, NamedTuple, Tuple

from . import _ffi
from ._handle import Handle
from .objects import Object, ObjectList

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


class FetchChange(NamedTuple):
    """A watched fetch after a commit: the new results, and positions — `removed` in the old
    results, `inserted` and `updated` in the new ones, `moved` as (old, new) pairs."""
    results: ObjectList
    removed: Tuple[int, ...]
    inserted: Tuple[int, ...]
    moved: Tuple[Tuple[int, int], ...]
    updated: Tuple[int, ...]


def _read_fetch_change(context: Context, change: int) -> FetchChange:
    def positions(kind: int) -> Tuple[Tuple[int, int], ...]:
        total = ctypes.c_size_t()
        _ffi.fetch_change_count(change, kind, ctypes.byref(total))
        found = []
        for index in range(total.value):
            position, previous = ctypes.c_size_t(), ctypes.c_size_t()
            _ffi.fetch_change_position(change, kind, index, ctypes.byref(position), ctypes.byref(previous))
            found.append((previous.value, position.value))
        return tuple(found)

    results = _ffi.ListP()
    _ffi.fetch_change_results(change, ctypes.byref(results))
    return FetchChange(ObjectList(context, results),
                       tuple(position for _, position in positions(_ffi.POSITION_REMOVED)),
                       tuple(position for _, position in positions(_ffi.POSITION_INSERTED)),
                       positions(_ffi.POSITION_MOVED),
                       tuple(position for _, position in positions(_ffi.POSITION_UPDATED)))


class Observer(Handle):
    """A registered observer. close() (or leaving its `with` block) stops it; so does closing the
    context. Not keeping it does not stop it: the context holds it until one of those."""

    _kind = "observer"

    def __init__(self, context: Context, callback: Callable[[Any], None], watch: Any = None) -> None:
        token = ctypes.c_uint64()
        # The callbacks hold the context weakly: the context holds them (through this Observer),
        # and a cycle through a ctypes callback is never collected.
        context_ref = weakref.ref(context)
        if watch is None:
            def call(_context_pointer: Any, changes: int, _payload: Any) -> None:
                owner = context_ref()
                if owner is not None:
                    callback(_read(owner, changes))

            self._function = _ffi.OBSERVER(call)  # kept alive as long as the observer is
            _ffi.context_observe(context._ptr, self._function, None, ctypes.byref(token))
        else:
            def call_watch(_context_pointer: Any, change: int, _payload: Any) -> None:
                owner = context_ref()
                if owner is not None:
                    callback(_read_fetch_change(owner, change))

            self._function = _ffi.WATCH(call_watch)
            _ffi.context_watch(context._ptr, *watch, self._function, None, ctypes.byref(token))
        # The context keeps its observers: a registration lives until close() or the context's
        # end, whether or not the caller keeps the Observer (as atexit and signal handlers do).
        registry: Dict[int, Any] = context._observers
        registry[token.value] = self
        super().__init__(token.value, _Unobserve(context, registry))


class _Unobserve:
    """The observer's destructor: holds the context weakly (a context dropped with observers
    registered is still collected) and does nothing once the context is closed or gone (its
    observers went with it)."""

    def __init__(self, context: Context, registry: Dict[int, Any]) -> None:
        self._context = weakref.ref(context)
        self._registry = registry

    def __call__(self, token: int) -> None:
        context = self._context()
        if context is not None and not context.closed:
            _ffi.context_unobserve(context._ptr, token)
        self._registry.pop(token, None)
