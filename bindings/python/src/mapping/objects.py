"""Object and ObjectList: the graph's objects as Python sees them, and the conversions of their values."""
from __future__ import annotations

import array
import ctypes
import datetime
import decimal
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union, overload

from . import _ffi
from ._handle import Handle
from .errors import OutOfRangeError

if TYPE_CHECKING:
    from .context import Context

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _encode(text: Union[str, bytes]) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


def _json_bytes(value: Any) -> bytes:
    """Payloads and specs: bytes and str are JSON text; anything else is dumped as JSON."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value).encode("utf-8")


def _json_default(value: Any) -> Any:
    """Arguments that JSON has no form for: dates as ISO-8601 text, decimals as exact numbers."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, Object):
        raise TypeError("objects cannot be predicate arguments yet; compare an attribute instead")
    raise TypeError(f"{type(value).__name__} cannot be a predicate argument")


def _date(microseconds: int) -> datetime.datetime:
    """The instant the library holds, exactly (from integer microseconds: a float of seconds
    loses them a few centuries from 1970)."""
    try:
        return _EPOCH + datetime.timedelta(microseconds=microseconds)
    except OverflowError:
        raise OutOfRangeError(f"the date {microseconds} microseconds from 1970 is outside the years 1-9999 a Python "
                              "datetime can hold; read it as text with serialize()") from None


def _date_from_seconds_text(seconds: decimal.Decimal) -> datetime.datetime:
    """A date of `Context.values`, written as exact decimal seconds."""
    return _date(int(seconds.scaleb(6)))


_GETTERS: Dict[int, Tuple[Any, Any, Callable[[Any], Any]]] = {  # strings and json are read apart
    _ffi.TYPE_INTEGER: (_ffi.get_int64, ctypes.c_int64, int),
    _ffi.TYPE_DOUBLE: (_ffi.get_double, ctypes.c_double, float),
    _ffi.TYPE_DECIMAL: (_ffi.get_decimal, ctypes.c_char_p, lambda raw: decimal.Decimal(raw.decode("ascii"))),
    _ffi.TYPE_BOOLEAN: (_ffi.get_bool, ctypes.c_bool, bool),
    _ffi.TYPE_DATE: (_ffi.get_date_us, ctypes.c_int64, _date),
}


class Object:
    """One object of a context's graph. Two Objects for the same graph object are equal and hash
    alike. Reading a deleted object raises StaleObjectError. repr() shows the entity and the
    identity: `<Person id=1>`."""

    __slots__ = ("_context", "_handle")

    def __init__(self, context: Context, handle: int) -> None:
        self._context = context
        self._handle = handle

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Object) and other._context is self._context and other._handle == self._handle

    def __hash__(self) -> int:
        return hash((id(self._context), self._handle))

    def __repr__(self) -> str:
        try:
            entity = self.entity
            names = self._context.identification(entity)
            if names:
                return "<{} {}>".format(entity, " ".join(f"{name}={self[name]!r}" for name in names))
            return f"<{entity} #{self._handle & 0xFFFFFFFF}>"  # no identification: the handle's slot
        except Exception:  # a closed context or a stale handle still gets a repr
            return f"<mapping.Object #{self._handle & 0xFFFFFFFF} (unreadable)>"

    @property
    def context(self) -> Context:
        return self._context

    @property
    def entity(self) -> str:
        name = ctypes.c_char_p()
        _ffi.entity_name(self._context._ptr, self._handle, ctypes.byref(name))
        return (name.value or b"").decode("utf-8")

    def __getitem__(self, attribute: str) -> Any:
        """The attribute's value as a Python value: str, int, float, decimal.Decimal, bool,
        datetime (UTC), the parsed JSON for json attributes, or None for null."""
        context = self._context
        # One type for the name across the model: no need to ask for this object's entity first.
        kind = context.type_by_name(attribute)
        if kind is None:
            kind = context.attribute_type(self.entity, attribute)
        name = _encode(attribute)
        pointer = context._ptr
        if kind == _ffi.TYPE_JSON:
            out = ctypes.c_void_p()
            _ffi.get_json(pointer, self._handle, name, ctypes.byref(out))
            return json.loads(_ffi.take_string(out.value))
        if kind == _ffi.TYPE_STRING:
            text, length = ctypes.c_void_p(), ctypes.c_size_t()
            if _ffi.get_string(pointer, self._handle, name, ctypes.byref(text), ctypes.byref(length)) == _ffi.ENULL:
                return None
            return ctypes.string_at(text, length.value).decode("utf-8")
        getter, holder, convert = _GETTERS[kind]
        value = holder()
        if getter(pointer, self._handle, name, ctypes.byref(value)) == _ffi.ENULL:
            return None
        return convert(value.value)

    def get(self, attribute: str, default: Any = None) -> Any:
        """The attribute's value, or `default` when it is null or was never set, as dict.get. An
        attribute the entity does not have still raises UnknownNameError."""
        value = self[attribute]
        return default if value is None else value

    def related(self, relationship: str) -> Union[Object, ObjectList, None]:
        """The target of a to-one relationship (an Object or None), or the targets of a to-many
        relationship (an ObjectList, in order)."""
        context = self._context
        if context.is_to_many(self.entity, relationship):
            result = _ffi.ListP()
            _ffi.get_related_list(context._ptr, self._handle, _encode(relationship), ctypes.byref(result))
            return ObjectList(context, result)
        target = _ffi.Object()
        _ffi.get_related(context._ptr, self._handle, _encode(relationship), ctypes.byref(target))
        return Object(context, target.value) if target.value else None

    def __setitem__(self, attribute: str, value: Any) -> None:
        """Sets an attribute (None clears it), coerced as on import."""
        _ffi.set_(self._context._ptr, self._handle, _encode(attribute),
                  json.dumps(value, default=_json_default).encode("utf-8"))

    def set_related(self, relationship: str, target: Union[Object, Iterable[Object], None]) -> None:
        """Sets a to-one relationship to an Object or None, or a to-many to Objects (a list, a tuple,
        an ObjectList, any iterable)."""
        context = self._context
        if target is None or isinstance(target, Object):
            _ffi.set_related(context._ptr, self._handle, _encode(relationship),
                             target._handle if target is not None else 0)
        else:
            with context._as_list(target) as (_, selection):
                _ffi.set_related_list(context._ptr, self._handle, _encode(relationship), selection)

    def add_related(self, relationship: str, target: Object, index: Optional[int] = None) -> None:
        """Adds `target` to a to-many relationship, at `index` of an ordered one. A target already
        there stays where it is without an index (as an ordered set's append), and moves with one."""
        _ffi.add_related(self._context._ptr, self._handle, _encode(relationship), target._handle,
                         _ffi.APPEND if index is None else index)

    def remove_related(self, relationship: str, target: Object) -> None:
        _ffi.remove_related(self._context._ptr, self._handle, _encode(relationship), target._handle)

    def move_related(self, relationship: str, source: int, destination: int) -> None:
        """Moves the target at position `source` of an ordered relationship to `destination`."""
        _ffi.move_related(self._context._ptr, self._handle, _encode(relationship), source, destination)

    def to_dict(self) -> Dict[str, Any]:
        """Every attribute's value, keyed by name."""
        return {name: self[name] for name in self._context.attributes(self.entity)}

    def is_live(self) -> bool:
        return _ffi.object_check(self._context._ptr, self._handle) == _ffi.OK


def _handles(pointer: Any) -> "array.array[int]":
    """The handles of a mapping_list, copied out in one call into a compact array (no Python int
    per handle until one is read)."""
    count = _ffi.list_count(pointer)
    handles = array.array("Q", bytes(8 * count))
    if count:
        copied = ctypes.c_size_t()
        _ffi.list_copy(pointer, (_ffi.Object * count).from_buffer(handles), count, ctypes.byref(copied))
    return handles


class ObjectList(Handle, Sequence[Object]):
    """The Objects a call returned (an import, a query, a to-many relationship), in order: an
    immutable sequence, as the library's list is a snapshot taken by the call.

    It supports len(), indexing (a slice is a plain list of the same Objects), iteration, `in`,
    index() and count(), and it equals a list, a tuple or another ObjectList of the same Objects in
    the same order; `+` with any of them gives a plain list. Change a copy: `list(objects)`.

    It also keeps the library's own list of the handles, so `ctx.values(objects, attr)`,
    `ctx.serialize`, `ctx.parameters` and `obj.set_related` hand that over with no work per object.
    close() (or a `with` block, or the finalizer) frees the library's list early; the ObjectList stays
    readable, and those calls then build a temporary list from its Objects instead.

    The handles are kept in a compact array and an Object is made only when one is read, so an
    import whose result is not looked at pays nothing per object for it."""

    _kind = "list"
    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __init__(self, context: Context, pointer: Any = None) -> None:
        try:
            handles = _handles(pointer) if pointer else array.array("Q")
        except BaseException:
            _ffi.list_free(pointer)
            raise
        super().__init__(pointer, _ffi.list_free)
        self._context = context
        self._handles = handles

    @property
    def _objects(self) -> Tuple[Object, ...]:
        context = self._context
        return tuple(Object(context, handle) for handle in self._handles)

    def _library_list(self, context: Context) -> Any:
        """The library's list of these objects, if it is still held and `context` made them."""
        if self._pointer and self._context is context and self._finalizer.alive:
            return self._pointer
        return None

    def __len__(self) -> int:
        return len(self._handles)

    @overload
    def __getitem__(self, index: int) -> Object: ...

    @overload
    def __getitem__(self, index: slice) -> List[Object]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Object, List[Object]]:
        context = self._context
        if isinstance(index, slice):
            return [Object(context, handle) for handle in self._handles[index]]
        return Object(context, self._handles[index])

    def __iter__(self) -> Iterator[Object]:
        context = self._context
        return (Object(context, handle) for handle in self._handles)

    def __reversed__(self) -> Iterator[Object]:
        context = self._context
        return (Object(context, handle) for handle in reversed(self._handles))

    def __contains__(self, item: object) -> bool:
        return isinstance(item, Object) and item._context is self._context and item._handle in self._handles

    def index(self, value: Any, start: int = 0, stop: Optional[int] = None) -> int:
        if isinstance(value, Object) and value._context is self._context:
            found = self._handles.index(value._handle, start, len(self._handles) if stop is None else stop)
            return found
        raise ValueError(f"{value!r} is not in the list")

    def count(self, value: Any) -> int:
        if isinstance(value, Object) and value._context is self._context:
            return self._handles.count(value._handle)
        return 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ObjectList):
            return self._context is other._context and self._handles == other._handles
        if isinstance(other, (list, tuple)):
            return len(other) == len(self._handles) and all(mine == theirs for mine, theirs in zip(self, other))
        return NotImplemented

    def __add__(self, other: Union[Sequence[Object], ObjectList]) -> List[Object]:
        if isinstance(other, (ObjectList, list, tuple)):
            return list(self._objects) + list(other)
        return NotImplemented

    def __radd__(self, other: Union[Sequence[Object], ObjectList]) -> List[Object]:
        if isinstance(other, (list, tuple)):
            return list(other) + list(self._objects)
        return NotImplemented

    def __repr__(self) -> str:
        return f"ObjectList({list(self._objects)!r})"


class _Selection(Handle):
    """A temporary mapping_list of Objects, for the calls that take a list: `with _Selection(items)
    as selection: call(selection._ptr)`."""

    _kind = "list"

    def __init__(self, items: Sequence[Object]) -> None:
        # array.array then from_buffer: several times faster than filling a ctypes array from a generator.
        handles = array.array("Q", [item._handle for item in items])
        pointer = _ffi.ListP()
        _ffi.list_new((_ffi.Object * len(items)).from_buffer(handles) if items else None, len(items),
                      ctypes.byref(pointer))
        super().__init__(pointer, _ffi.list_free)
