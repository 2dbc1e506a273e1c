"""Context: a mapping spec and the object graph it describes (importing, finding, querying, changing,
writing out, the model), and the parsers of this build."""
from __future__ import annotations

import contextlib
import ctypes
import decimal
import json
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

from . import _ffi
from ._handle import Handle
from .errors import MappingWarning, MisuseError
from .http import _ContextHTTP
from .objects import Object, ObjectList, _date_from_seconds_text, _encode, _json_bytes, _json_default, _Selection
from .observe import ChangeSet, FetchChange, Observer

__all__ = ["Context", "Object", "ObjectList", "available_parsers"]

Spec = Union[Dict[str, Any], str, bytes, bytearray, "os.PathLike[str]"]
Payload = Union[str, bytes, bytearray, Dict[str, Any], List[Any]]
Orphans = Tuple[str, Optional[str]]
EventCallback = Callable[[str, str, Optional[Object], int], None]
# An import's `warn`: False, True (not about key paths a mapping lists as "optional"), or "all".
Warn = Union[bool, Literal["all"]]
ProgressCallback = Callable[[int, int], None]


def available_parsers() -> List[str]:
    """The parsers this build of the library has: ["jansson"], plus "simdjson" when it was built
    with libsimdjson-dev."""
    return [name for name, value in _ffi.PARSERS.items() if _ffi.parser_available(value)]


@contextlib.contextmanager
def _issuing(keep: List[Any]) -> Iterator[None]:
    """Issues the MappingWarnings an import collected (the list among `keep`) once its C call is
    back, whether it succeeded or failed."""
    try:
        yield
    finally:
        for item in keep:
            if isinstance(item, list):
                for found in item:
                    warnings.warn(found, stacklevel=4)


def _spec_bytes(spec: Spec) -> bytes:
    """The spec's JSON text, told by the type given: a path-like (pathlib.Path) is a file to read;
    bytes, bytearray and a dict are the spec itself; a str is JSON text when it starts with "{"
    (after white space; a spec is a JSON object), else a file's path. That last guess is deprecated:
    a file name and JSON text are both str, so a mistyped spec would be looked for as a file."""
    path: Union[str, "os.PathLike[str]", None] = spec if isinstance(spec, os.PathLike) else None
    if isinstance(spec, str) and not spec.lstrip().startswith("{"):
        warnings.warn(f"a spec given as a str is read as a file's path ({spec!r}); that is deprecated: pass "
                      f"pathlib.Path({spec!r}) for a file, or JSON text (a str starting with '{{')",
                      DeprecationWarning, stacklevel=3)  # the caller of Context()
        path = spec
    if path is not None:
        with open(path, "rb") as file:
            return file.read()
    return _json_bytes(spec)


def _parser_value(name: Optional[str]) -> int:
    if name is None:
        return 0
    if name not in _ffi.PARSERS:
        raise ValueError(f"unknown parser {name!r}: expected one of {sorted(_ffi.PARSERS)}")
    return _ffi.PARSERS[name]


def _checks(warn: Warn, strict: bool) -> int:
    if warn not in (False, True, "all"):
        raise ValueError(f"warn={warn!r}: expected True, False or 'all'")
    checks = _ffi.CHECK_WARN if warn else 0
    if warn == "all":
        checks |= _ffi.CHECK_OPTIONAL
    return checks | (_ffi.CHECK_STRICT if strict else 0)


class _LibraryDefault:
    """The default of an argument whose default the library keeps (said once, in the header)."""


_LIBRARY_DEFAULT = _LibraryDefault()


class Context(Handle, _ContextHTTP):
    """A mapping spec and the object graph it describes.

    `spec` is a dict, JSON text (bytes, or a str starting with "{"), or a pathlib.Path (any
    path-like) to a JSON file; another str is read as a path too, with a DeprecationWarning.
    `parser` ("jansson", the default, or "simdjson") parses this context's payloads; both give the
    same graph. Use it as a context manager or call close(); a finalizer frees it otherwise. One
    context may be used from several threads; a transaction belongs to the thread that began it,
    and other threads' calls wait for it to end, at most `busy_timeout` seconds (5.0 by default,
    None without limit), then raise BusyError.

    With `store` (a path), the graph is kept in that SQLite database file (mapping_context_open):
    opening reads no row (rows are read as they are touched: docs/store.md), and every commit is
    written to it before the call returns. `create` makes a
    missing file, `read_only` refuses every commit (StoreError), `durable` makes each commit survive
    power loss too. A spec that grew since the store was written brings it up to date; one changed
    otherwise raises SpecError naming what changed, unless `rebuild` drops the store's objects. A
    file open in another context raises BusyError; one that cannot be used, StoreError.

    A `store` that is a PostgreSQL URI (`postgresql://…`, optionally with `schema=NAME`) keeps the
    graph in that database's schema instead, shared with every other context that opens it, in this
    process or another (docs/scaling.md): each call first applies what the others committed to the
    rows this context holds (observers see it), refresh() asks the database at once, and a commit
    that changes an object another process changed since this context read it raises ConflictError
    and changes nothing. `follow=False` leaves other processes' commits out of the rows this graph
    holds (an importer that never looks at them). `on_warning` is given what the database says on its
    own (set_warning_handler).

    A context on a store keeps at most `cache_limit` objects read between calls (100,000 unless
    given; None for no limit): past it, the least recently used are evicted and read again when
    touched, and their Objects stay valid (the `cache_limit` property says more).
    """

    _kind = "context"

    def __init__(self, spec: Spec, *, parser: Optional[str] = None, busy_timeout: Optional[float] = 5.0,
                 max_input_size: Optional[int] = None, store: Union[str, "os.PathLike[str]", None] = None,
                 create: bool = True, read_only: bool = False, durable: bool = False, rebuild: bool = False,
                 follow: bool = True, on_warning: Optional[Callable[[str], None]] = None,
                 cache_limit: Union[int, None, "_LibraryDefault"] = _LIBRARY_DEFAULT) -> None:
        data = _spec_bytes(spec)
        pointer = _ffi.ContextP()
        if store is None:
            _ffi.context_new(data, len(data), ctypes.byref(pointer))
        else:
            flags = ((_ffi.OPEN_CREATE if create else 0) | (_ffi.OPEN_READONLY if read_only else 0)
                     | (_ffi.OPEN_DURABLE if durable else 0) | (_ffi.OPEN_REBUILD if rebuild else 0)
                     | (0 if follow else _ffi.OPEN_NO_FOLLOW))
            _ffi.context_open(data, len(data), os.fsencode(store), flags, ctypes.byref(pointer))
        super().__init__(pointer, _ffi.context_free)
        self._spec = data
        self._identifications: Dict[str, Tuple[str, ...]] = {}
        self._types: Dict[Tuple[str, str], int] = {}
        self._types_lock = threading.Lock()
        self._types_by_name: Optional[Dict[str, Optional[int]]] = None
        self._callbacks: Dict[str, Any] = {}  # keeps the ctypes callbacks alive as long as the context
        self._observers: Dict[int, Any] = {}  # registered Observers by token, kept until closed
        self._warning_handler: Any = None  # the ctypes callback of set_warning_handler, kept alive
        if on_warning is not None:
            self.set_warning_handler(on_warning)
        if parser is not None:
            self.set_parser(parser)
        if busy_timeout != 5.0:
            self.set_busy_timeout(busy_timeout)
        if max_input_size is not None:
            self.set_max_input_size(max_input_size)
        if not isinstance(cache_limit, _LibraryDefault):
            self.cache_limit = cache_limit

    @property
    def cache_limit(self) -> Optional[int]:
        """The most objects this context keeps read between calls when it has a store (None: no
        limit). At the end of a call outside a transaction, past the limit, the objects least
        recently used are evicted down to 90% of it; each reads its row again when next touched,
        and its Object stays valid (a deleted one's stays stale). Nothing uncommitted is evicted.
        A transaction (begin(), a chunked import) reads what its calls touch and evicts nothing
        until it ends; a call that scans for values the database cannot compare as memory does
        (decimals, JSON, in an identificationPredicate's mapping or a connection by attributes)
        reads every row first, and evicts at its end."""
        limit = ctypes.c_size_t()
        _ffi.context_cache_info(self._ptr, None, ctypes.byref(limit))
        return limit.value or None

    @cache_limit.setter
    def cache_limit(self, objects: Optional[int]) -> None:
        if objects is not None and objects < 1:
            raise ValueError("cache_limit must be at least 1, or None for no limit")
        _ffi.context_set_cache_limit(self._ptr, objects or 0)

    @property
    def cached_count(self) -> int:
        """How many objects the graph holds read now (rows of the store not read yet, or evicted,
        are not counted)."""
        held = ctypes.c_size_t()
        _ffi.context_cache_info(self._ptr, ctypes.byref(held), None)
        return held.value

    def set_max_input_size(self, size: Optional[int]) -> None:
        """The largest payload (in bytes) this context's imports accept; larger ones raise
        OutOfRangeError before parsing. None for no limit. Running out of memory ends the process, so
        bound payloads taken from elsewhere."""
        if size is not None and size < 0:
            raise ValueError("max_input_size must be at least 0, or None for no limit")
        _ffi.context_set_max_input(self._ptr, size or 0)

    def set_busy_timeout(self, seconds: Optional[float]) -> None:
        """How long this context's calls wait for another thread's transaction before raising
        BusyError: `seconds` (0 not at all), or None as long as it takes."""
        if seconds is None:
            milliseconds = -1
        else:
            if seconds < 0:
                raise ValueError("busy_timeout must be at least 0, or None to wait without limit")
            milliseconds = min(int(seconds * 1000), 2**31 - 1)
        _ffi.context_set_busy_timeout(self._ptr, milliseconds)

    def set_parser(self, parser: str) -> None:
        """Chooses the parser for this context's imports: "jansson" or "simdjson". Raises
        UnavailableError for one this build lacks."""
        _ffi.context_set_parser(self._ptr, _parser_value(parser))

    # -- lifetime: close(), `closed` and `with` come from Handle; close() frees the graph, after which
    #    its objects can no longer be read (MisuseError). Closing twice is harmless.

    # -- importing -------------------------------------------------------------------------------

    def import_json(self, mapping: Union[str, Sequence[str]], payload: Payload, *,
                    metadata: Optional[Dict[str, Any]] = None, on_event: Optional[EventCallback] = None,
                    on_progress: Optional[ProgressCallback] = None, progress_interval: int = 256,
                    orphans: Optional[Orphans] = None, parser: Optional[str] = None, warn: Warn = False,
                    strict: bool = False) -> ObjectList:
        """Maps a payload (JSON text as str/bytes, or a dict/list) with the named mapping — or with
        several, given as a list, each at its own rootPath — all or nothing. Returns the top-level
        objects in payload order; raises MappingError.

        `metadata` (a dict) is readable by "@metadata.<path>" key paths. `on_event(event, mapping,
        obj, count)` is called with "will_map_collection", "will_map_object", "did_map_object" and
        "did_map_collection" in that nesting order; `on_progress(done, known)` every
        `progress_interval` objects and at the end, where `known` is the total the import will map,
        counted before the first call (at the end, `done == known`). Callbacks run during the call on this thread and
        must not use this context; an exception they raise is reported once the import is done.
        `orphans=(entity, predicate or None)` deletes, after the import, the objects of that scope
        the import did not touch (RestKit's orphan deletion). `parser` overrides the context's parser
        for this import. `warn=True` issues a `MappingWarning` (through `warnings`) for each key path
        of the mappings that matched nothing in the whole payload (but those a mapping lists as
        "optional"; `warn="all"` includes them) and for representations without their
        identification; `strict=True` makes them an `UnmappableError` that changes nothing."""
        data = _json_bytes(payload)
        result = _ffi.ListP()
        if (isinstance(mapping, str) and metadata is None and on_event is None and on_progress is None
                and orphans is None and parser is None and not warn and not strict):
            _ffi.import_(self._ptr, _encode(mapping), data, len(data), ctypes.byref(result))
            return ObjectList(self, result)
        names: List[str] = [mapping] if isinstance(mapping, str) else list(mapping)
        array = (ctypes.c_char_p * len(names))(*(_encode(name) for name in names))
        options, raised, keep = self._import_options(metadata, on_event, on_progress, progress_interval, orphans, parser,
                                                     warn, strict)
        with _issuing(keep):
            _ffi.import_with(self._ptr, array, len(names), data, len(data), ctypes.byref(options), ctypes.byref(result))
        objects = ObjectList(self, result)
        if raised:
            raise raised[0]
        return objects

    def import_chunked(self, mapping: str, data: Union[bytes, str, "os.PathLike[str]"], *, lines: bool = False,
                       chunk_size: int = 10_000, metadata: Optional[Dict[str, Any]] = None,
                       on_event: Optional[EventCallback] = None, on_progress: Optional[ProgressCallback] = None,
                       progress_interval: int = 256, orphans: Optional[Orphans] = None,
                       parser: Optional[str] = None, warn: Warn = False, strict: bool = False) -> int:
        """Imports a large JSON array (or, with `lines=True`, JSON Lines) in chunks of `chunk_size`
        representations, so only one chunk's parse tree is in memory at a time; each representation
        is mapped with `mapping` as if at the root. All or nothing (one transaction, or the one open);
        parse errors carry the line and column in the whole input; progress counts across chunks.
        `data` is bytes, str or a path-like to read. Returns how many representations were mapped.
        `warn` and `strict` are as for import_json, judged on the whole input."""
        if isinstance(data, os.PathLike):
            with open(data, "rb") as source:
                data = source.read()
        data = _json_bytes(data)
        options, raised, keep = self._import_options(metadata, on_event, on_progress, progress_interval, orphans, parser,
                                                     warn, strict)
        count = ctypes.c_size_t()
        with _issuing(keep):
            _ffi.import_chunked(self._ptr, _encode(mapping), data, len(data), _ffi.CHUNKS_LINES if lines else _ffi.CHUNKS_ARRAY,
                                chunk_size, ctypes.byref(options), ctypes.byref(count))
        if raised:
            raise raised[0]
        return count.value

    def _import_options(self, metadata, on_event, on_progress, progress_interval, orphans, parser=None, warn=False,
                        strict=False):
        """The C options for an import, the list a callback's exception lands in, and the ctypes
        callbacks to keep alive for the call."""
        options = _ffi.ImportOptions(version=_ffi.IMPORT_OPTIONS_VERSION, progress_interval=progress_interval,
                                     parser=_parser_value(parser),
                                     checks=_checks(warn, strict))
        if orphans is not None:
            entity, predicate = orphans
            options.orphan_entity = _encode(entity)
            options.orphan_predicate = _encode(predicate) if predicate is not None else None
        if metadata is not None:
            options.metadata = json.dumps(metadata).encode("utf-8")
            options.metadata_len = len(options.metadata)
        raised: List[BaseException] = []
        keep = []
        if on_event is not None:
            def event(code, name, handle, count, _payload):
                if raised:
                    return
                try:
                    on_event(_ffi.EVENT_NAMES.get(code, str(code)), name.decode("utf-8"),
                             Object(self, handle) if handle else None, count)
                except Exception as error:  # re-raised after the import
                    raised.append(error)
            options.on_event = _ffi.EVENT(event)
            keep.append(options.on_event)
        if on_progress is not None:
            def progress(done, known, _payload):
                if raised:
                    return
                try:
                    on_progress(done, known)
                except Exception as error:  # re-raised after the import
                    raised.append(error)
            options.on_progress = _ffi.PROGRESS(progress)
            keep.append(options.on_progress)
        if warn:
            found: List[MappingWarning] = []

            def warning(kind, name, element, where, count, message, _payload):
                # Collected, and issued once the C call is back: an exception raised inside a ctypes
                # callback (`-W error`) would be swallowed there.
                found.append(MappingWarning(_ffi.WARNING_NAMES.get(kind, str(kind)), name.decode("utf-8"),
                                            element.decode("utf-8"), where.decode("utf-8"), count,
                                            message.decode("utf-8")))
            options.on_warning = _ffi.WARNING(warning)
            keep += [options.on_warning, found]
        return options, raised, keep

    # -- host transformers -----------------------------------------------------------------------

    def register_transformer(self, name: str, forward: Callable[[Any], Any],
                             reverse: Optional[Callable[[Any], Any]] = None) -> None:
        """Registers a transformer the spec can name (`"transformer": name`). `forward` takes the
        incoming value (already parsed from JSON; never None) and returns the value to store;
        `reverse`, if given, does the opposite when serializing (without it the attribute is left
        out). An exception rejects the value: the import fails with WrongTypeError naming the path
        and the attribute, and the exception's text. The callables run during import_json and
        serialize, on the calling thread, and must not use this context."""
        callbacks = (_wrap_transformer(forward), _wrap_transformer(reverse) if reverse else _ffi.TRANSFORMER())
        _ffi.register_transformer(self._ptr, _encode(name), callbacks[0], callbacks[1], None)
        self._callbacks[name] = callbacks

    def observe(self, callback: Callable[[ChangeSet], None]) -> Observer:
        """Calls `callback` with a ChangeSet (inserted objects, updated objects with the names that
        changed, deleted entities and identities) after every later commit that changed something:
        imports, changes, committed transactions, chunked imports, mapped responses. Rollbacks,
        failed calls and re-imports of the same data call nothing. The callback runs on the
        committing thread after the library has released the context, so it may use the context.
        Returns an Observer: close() it, or use it as a context manager, to stop; the registration
        lasts until then or until the context is closed, whether or not the Observer is kept."""
        return Observer(self, callback)

    def set_warning_handler(self, handler: Optional[Callable[[str], None]]) -> None:
        """Calls `handler` with each warning no call returns: what the store's database says on its
        own (a PostgreSQL server's notices and warnings), one line each, naming the store. None
        drops them (the default). It runs after the call that received the warning has released
        the context, on that thread, so it may use the context. `on_warning=` in the constructor
        sets it before anything else runs."""
        if handler is None:
            _ffi.context_set_warning_handler(self._ptr, _ffi.CONTEXT_WARNING(), None)
            self._warning_handler = None
            return

        def call(_context_pointer: Any, message: bytes, _payload: Any) -> None:
            handler(message.decode("utf-8", "replace"))

        callback = _ffi.CONTEXT_WARNING(call)
        _ffi.context_set_warning_handler(self._ptr, callback, None)
        self._warning_handler = callback

    def watch(self, callback: Callable[[FetchChange], None], entity: str, predicate: Union[str, bytes, None] = None,
              *arguments: Any, sort: Union[str, bytes, Sequence[str], None] = None,
              subentities: bool = True) -> Observer:
        """Watches a fetch (as `fetch`, without limit and offset): after every later commit that
        changes its results or updates an object in them, `callback` gets a FetchChange with the new
        results and the removed, inserted, moved and updated positions. Returns an Observer: close()
        it, or use it as a context manager, to stop. The request is checked now."""
        order = sort if sort is None or isinstance(sort, (str, bytes)) else ",".join(sort)
        request = (_encode(entity), _encode(predicate) if predicate is not None else None,
                   json.dumps(list(arguments), default=_json_default).encode("utf-8"),
                   _encode(order) if order else None, 0 if subentities else _ffi.FETCH_EXACT_ENTITY)
        return Observer(self, callback, watch=request)

    # -- finding ---------------------------------------------------------------------------------

    def get(self, entity: str, identity: Any) -> Optional[Object]:
        """The object of `entity` with this identity (a value, or a list/dict for compound
        identifications), or None."""
        found = _ffi.Object()
        if _ffi.get(self._ptr, _encode(entity), json.dumps(identity).encode("utf-8"),
                    ctypes.byref(found)) == _ffi.ENOTFOUND:
            return None
        return Object(self, found.value)

    def all(self, entity: str) -> ObjectList:
        """Every object of `entity` and its sub-entities."""
        result = _ffi.ListP()
        _ffi.all_(self._ptr, _encode(entity), ctypes.byref(result))
        return ObjectList(self, result)

    def count(self, entity: str, predicate: Optional[str] = None, *arguments: Any) -> int:
        """How many objects `entity` and its sub-entities have, or how many match `predicate`."""
        total = ctypes.c_size_t()
        if predicate is None:
            _ffi.count(self._ptr, _encode(entity), ctypes.byref(total))
        else:
            _ffi.count_where(self._ptr, _encode(entity), _encode(predicate),
                             json.dumps(list(arguments), default=_json_default).encode("utf-8"), ctypes.byref(total))
        return total.value

    def fetch(self, entity: str, predicate: Union[str, bytes, None] = None, *arguments: Any,
              sort: Union[str, bytes, Sequence[str], None] = None, limit: Optional[int] = None, offset: int = 0,
              subentities: bool = True) -> ObjectList:
        """The objects of `entity` (sub-entities too) matching `predicate`, whose `%@` placeholders
        take `arguments` in order (bound as values, never pasted into the text). `sort` is
        "key,-key" or a list of such keys. Raises PredicateError with the column for a bad predicate."""
        order = sort if sort is None or isinstance(sort, (str, bytes)) else ",".join(sort)
        if (limit is not None and limit < 0) or offset < 0:
            raise ValueError("limit and offset must be at least 0 (limit None for no limit)")
        result = _ffi.ListP()
        _ffi.fetch(self._ptr, _encode(entity), _encode(predicate) if predicate is not None else None,
                   json.dumps(list(arguments), default=_json_default).encode("utf-8"),
                   _encode(order) if order else None, offset, limit or 0,
                   0 if subentities else _ffi.FETCH_EXACT_ENTITY, ctypes.byref(result))
        return ObjectList(self, result)

    # -- changes ---------------------------------------------------------------------------------

    def create(self, entity: str, values: Optional[Dict[str, Any]] = None, **more: Any) -> Object:
        """A new object of `entity` with these attribute values (coerced as on import)."""
        merged = dict(values or {}, **more)
        found = _ffi.Object()
        _ffi.create(self._ptr, _encode(entity), json.dumps(merged, default=_json_default).encode("utf-8"),
                    ctypes.byref(found))
        return Object(self, found.value)

    def delete(self, obj: Object) -> None:
        """Deletes an object, applying delete rules (DeniedError when a deny rule refuses)."""
        self._own(obj)
        _ffi.delete(self._ptr, obj._handle)

    def begin(self) -> None:
        _ffi.begin(self._ptr)

    def refresh(self) -> None:
        """Brings the graph up to everything other processes had committed to this context's
        PostgreSQL store by now (one round trip), telling observers as for a commit. Every call does
        this with what the database has announced already; nothing for other contexts."""
        _ffi.context_refresh(self._ptr)

    def commit(self) -> None:
        _ffi.commit(self._ptr)

    def rollback(self) -> None:
        _ffi.rollback(self._ptr)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Context]:
        """`with ctx.transaction():` groups changes and imports; they are committed at the end (count
        rules checked then) or rolled back if the block raises. A failing call inside rolls the
        transaction back at once; if the block catches that error and goes on, later changes are
        refused (MisuseError) and the block's end raises the failure: nothing is committed."""
        self.begin()
        try:
            yield self
        except BaseException:
            try:
                self.rollback()
            except MisuseError:
                pass  # a failing call already rolled it back
            raise
        self.commit()

    # -- writing out -----------------------------------------------------------------------------

    def serialize(self, mapping: str, objects: Union[Object, Iterable[Object]], *, include_nulls: bool = False,
                  pretty: bool = False, root: bool = True, form: bool = False) -> str:
        """JSON text for one Object, or for a list of Objects (a JSON array); with `form=True`,
        application/x-www-form-urlencoded text instead."""
        flags = ((_ffi.SERIALIZE_NULLS if include_nulls else 0) | (_ffi.SERIALIZE_PRETTY if pretty else 0)
                 | (0 if root else _ffi.SERIALIZE_NO_ROOT) | (_ffi.SERIALIZE_FORM if form else 0))
        out = ctypes.c_void_p()
        if isinstance(objects, Object):
            self._own(objects)
            _ffi.serialize(self._ptr, _encode(mapping), objects._handle, flags, ctypes.byref(out))
        else:
            with self._as_list(objects) as (_, selection):
                _ffi.serialize_list(self._ptr, _encode(mapping), selection, flags, ctypes.byref(out))
        return _ffi.take_string(out.value)

    def values(self, objects: Iterable[Object], attribute: str) -> List[Any]:
        """One attribute of many Objects in one call, as a list of Python values (typed as `obj[attr]`
        types them; None for null): the way to read a column without a ctypes call per object. The
        objects may be of several entities that give `attribute` the same type."""
        out = ctypes.c_void_p()
        with self._as_list(objects) as (items, selection):
            if not items:
                return []
            _ffi.get_values(self._ptr, selection, _encode(attribute), ctypes.byref(out))
        text = _ffi.take_string(out.value)
        kind = self.attribute_type(items[0].entity, attribute)
        if kind == _ffi.TYPE_DECIMAL:
            return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
        if kind == _ffi.TYPE_DATE:  # exact decimal seconds
            column = json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
            return [None if value is None else _date_from_seconds_text(value) for value in column]
        column = json.loads(text)
        if kind == _ffi.TYPE_DOUBLE:
            return [None if value is None else float(value) for value in column]
        return column

    def _own(self, item: Any) -> None:
        if not isinstance(item, Object) or item._context is not self:
            raise MisuseError("expected Objects of this context")

    @contextlib.contextmanager
    def _as_list(self, objects: Iterable[Object]) -> Iterator[Tuple[Sequence[Object], Any]]:
        """`objects` as a Python sequence and as a mapping_list, for the calls that take a list. An
        ObjectList of this context that still holds the library's list hands it over, with no work per
        object; anything else is checked object by object and copied into a temporary list."""
        if isinstance(objects, ObjectList):
            library_list = objects._library_list(self)
            if library_list is not None:
                yield objects, library_list
                return
        items = list(objects)
        for item in items:
            self._own(item)
        with _Selection(items) as selection:
            yield items, selection._ptr

    # -- model -----------------------------------------------------------------------------------

    def attribute_type(self, entity: str, attribute: str) -> int:
        """The attribute's MAPPING_TYPE_* number (1 string … 7 json)."""
        key = (entity, attribute)
        with self._types_lock:
            cached = self._types.get(key)
        if cached is None:
            value = ctypes.c_int()
            _ffi.attribute_type(self._ptr, _encode(entity), _encode(attribute), ctypes.byref(value))
            cached = value.value
            with self._types_lock:
                self._types[key] = cached
        return cached

    def type_by_name(self, attribute: str) -> Optional[int]:
        """The attribute's MAPPING_TYPE_* number when every entity that has an attribute of this
        name gives it the same type (most models), else None. Lets `obj[attr]` read with one call
        instead of first asking for the object's entity."""
        table = self._types_by_name
        if table is None:
            table = {}
            entities = json.loads(self._spec).get("entities")
            for entity in entities if isinstance(entities, dict) else ():
                for name in self.attributes(entity):
                    kind = self.attribute_type(entity, name)
                    table[name] = kind if table.get(name, kind) == kind else None
            self._types_by_name = table
        return table.get(attribute)

    def attributes(self, entity: str) -> List[str]:
        """The attribute names of an entity, inherited ones first."""
        return self._names(entity, _ffi.entity_attribute_count, _ffi.entity_attribute_name)

    def relationships(self, entity: str) -> List[str]:
        """The relationship names of an entity, inherited ones first."""
        return self._names(entity, _ffi.entity_relationship_count, _ffi.entity_relationship_name)

    def _names(self, entity, count_function, name_function) -> List[str]:
        total = ctypes.c_size_t()
        count_function(self._ptr, _encode(entity), ctypes.byref(total))
        names = []
        name = ctypes.c_char_p()
        for index in range(total.value):
            name_function(self._ptr, _encode(entity), index, ctypes.byref(name))
            names.append((name.value or b"").decode("utf-8"))
        return names

    def is_to_many(self, entity: str, relationship: str) -> bool:
        flag = ctypes.c_bool()
        _ffi.relationship_is_to_many(self._ptr, _encode(entity), _encode(relationship), ctypes.byref(flag))
        return flag.value

    def identification(self, entity: str) -> Tuple[str, ...]:
        """The attributes whose values identify the entity's objects, as the library settled them
        when it loaded the spec (declared, inherited or inferred); empty when they have no identity."""
        cached = self._identifications.get(entity)
        if cached is None:
            cached = tuple(self._names(entity, _ffi.entity_identification_count, _ffi.entity_identification_name))
            self._identifications[entity] = cached
        return cached

def _wrap_transformer(function: Callable[[Any], Any]) -> Any:
    """A C transformer calling a Python callable with parsed JSON and writing back its result."""
    def call(data, length, output, _payload):
        try:
            result = function(json.loads(ctypes.string_at(data, length)))
            text = json.dumps(result).encode("utf-8")
            return _ffi.value_set_json(output, text, len(text))
        except Exception as error:  # reported by the import as a rejected value
            _ffi.value_set_error(output, f"{type(error).__name__}: {error}".encode("utf-8", "replace"))
            return 1
    return _ffi.TRANSFORMER(call)
