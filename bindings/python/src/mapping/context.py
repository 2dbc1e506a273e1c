"""Context and Object: the pythonic face of a libmapping context and its graph."""
import array
import contextlib
import ctypes
import datetime
import decimal
import json
import os
import threading
import weakref

from . import _ffi
from .errors import MisuseError, NotFoundError, NullValueError, check

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _encode(text):
    return text.encode("utf-8") if isinstance(text, str) else text


def _json_bytes(value):
    """Payloads and specs: bytes and str are JSON text; anything else is dumped as JSON."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value).encode("utf-8")


def _handles(pointer):
    """The handles of a mapping_list, copied out in one call."""
    count = _ffi.list_count(pointer)
    buffer = (_ffi.Object * count)()
    copied = ctypes.c_size_t()
    check(_ffi.list_copy(pointer, buffer, count, ctypes.byref(copied)))
    return list(buffer)


class ObjectList(list):
    """A list of Objects as the library returned them (imports, queries, to-many relationships).
    While it is unchanged it keeps the library's own list of their handles, so `ctx.values(objects,
    attr)` hands that over instead of rebuilding it from Python; any change to the list lets it go.
    It is a plain list in every other way."""

    def __init__(self, context, pointer):
        try:
            super().__init__(Object(context, handle) for handle in _handles(pointer))
        except BaseException:
            _ffi.list_free(pointer)
            raise
        self._context = context
        self._pointer = pointer
        self._release = weakref.finalize(self, _ffi.list_free, pointer)

    def _detach(self):
        self._release()
        self._pointer = None

    def _library_list(self, context):
        """The library's list of these objects, if it still matches them and `context` made them."""
        return self._pointer if self._pointer is not None and self._context is context else None


def _detaching(name):
    method = getattr(list, name)

    def change(self, *args, **kwargs):
        self._detach()
        return method(self, *args, **kwargs)
    change.__name__ = name
    return change


for _name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):
    setattr(ObjectList, _name, _detaching(_name))


def available_parsers():
    """The parsers this build of the library has: ["jansson"], plus "simdjson" when it was built
    with libsimdjson-dev."""
    return [name for name, value in _ffi.PARSERS.items() if _ffi.parser_available(value)]


def _parser_value(name):
    if name is None:
        return 0
    if name not in _ffi.PARSERS:
        raise ValueError(f"unknown parser {name!r}: expected one of {sorted(_ffi.PARSERS)}")
    return _ffi.PARSERS[name]


class Context:
    """A mapping spec and the object graph it describes.

    `spec` is a dict, JSON text (str or bytes), or a path to a JSON file. `parser` ("jansson", the
    default, or "simdjson") parses this context's payloads; both give the same graph. Use it as a
    context manager or call close(); a finalizer frees it otherwise. One context may be used from
    several threads; a transaction belongs to the thread that began it, and other threads' calls wait
    for it to end, at most `busy_timeout` seconds (5.0 by default, None without limit), then raise
    BusyError.
    """

    def __init__(self, spec, *, parser=None, busy_timeout=5.0, max_input_size=None):
        if isinstance(spec, os.PathLike) or (isinstance(spec, str) and not spec.lstrip().startswith("{")):
            with open(spec, "rb") as file:
                spec = file.read()
        data = _json_bytes(spec)
        pointer = _ffi.ContextP()
        check(_ffi.context_new(ctypes.byref(pointer), data, len(data)))
        self._pointer = pointer
        self._finalizer = weakref.finalize(self, _ffi.context_free, pointer)
        self._types = {}
        self._types_lock = threading.Lock()
        self._callbacks = {}  # keeps the ctypes callbacks alive as long as the context
        if parser is not None:
            self.set_parser(parser)
        if busy_timeout != 5.0:
            self.set_busy_timeout(busy_timeout)
        if max_input_size is not None:
            self.set_max_input_size(max_input_size)

    def set_max_input_size(self, size):
        """The largest payload (in bytes) this context's imports accept; larger ones raise
        OutOfRangeError before parsing. None for no limit. Running out of memory ends the process, so
        bound payloads taken from elsewhere."""
        if size is not None and size < 0:
            raise ValueError("max_input_size must be at least 0, or None for no limit")
        self._check(_ffi.context_set_max_input(self._ptr, size or 0))

    def set_busy_timeout(self, seconds):
        """How long this context's calls wait for another thread's transaction before raising
        BusyError: `seconds` (0 not at all), or None as long as it takes."""
        if seconds is None:
            milliseconds = -1
        else:
            if seconds < 0:
                raise ValueError("busy_timeout must be at least 0, or None to wait without limit")
            milliseconds = min(int(seconds * 1000), 2**31 - 1)
        self._check(_ffi.context_set_busy_timeout(self._ptr, milliseconds))

    def set_parser(self, parser):
        """Chooses the parser for this context's imports: "jansson" or "simdjson". Raises
        UnavailableError for one this build lacks."""
        self._check(_ffi.context_set_parser(self._ptr, _parser_value(parser)))

    # -- lifetime --------------------------------------------------------------------------------

    def close(self):
        """Frees the context; its objects can no longer be read. Closing twice is harmless."""
        self._finalizer()

    @property
    def closed(self):
        return not self._finalizer.alive

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def _ptr(self):
        if not self._finalizer.alive:
            raise MisuseError("the context is closed")
        return self._pointer

    def _check(self, code):
        check(code, self._pointer)

    # -- importing -------------------------------------------------------------------------------

    def import_json(self, mapping, payload, *, metadata=None, on_event=None, on_progress=None,
                    progress_interval=256, orphans=None, parser=None):
        """Maps a payload (JSON text as str/bytes, or a dict/list) with the named mapping — or with
        several, given as a list, each at its own rootPath — all or nothing. Returns the top-level
        objects in payload order; raises MappingError.

        `metadata` (a dict) is readable by "@metadata.<path>" key paths. `on_event(event, mapping,
        obj, count)` is called with "will_map_collection", "will_map_object", "did_map_object" and
        "did_map_collection" in that nesting order; `on_progress(done, known)` every
        `progress_interval` objects and at the end. Callbacks run during the call on this thread and
        must not use this context; an exception they raise is reported once the import is done.
        `orphans=(entity, predicate or None)` deletes, after the import, the objects of that scope
        the import did not touch (RestKit's orphan deletion). `parser` overrides the context's parser
        for this import."""
        data = _json_bytes(payload)
        result = _ffi.ListP()
        if (isinstance(mapping, str) and metadata is None and on_event is None and on_progress is None
                and orphans is None and parser is None):
            self._check(_ffi.import_(self._ptr, _encode(mapping), data, len(data), ctypes.byref(result)))
            return ObjectList(self, result)
        names = [mapping] if isinstance(mapping, str) else list(mapping)
        array = (ctypes.c_char_p * len(names))(*(_encode(name) for name in names))
        options, raised, _keep = self._import_options(metadata, on_event, on_progress, progress_interval, orphans, parser)
        code = _ffi.import_with(self._ptr, array, len(names), data, len(data), ctypes.byref(options),
                                ctypes.byref(result))
        self._check(code)
        objects = ObjectList(self, result)
        if raised:
            raise raised[0]
        return objects

    def import_chunked(self, mapping, data, *, lines=False, chunk_size=10_000, metadata=None, on_event=None,
                       on_progress=None, progress_interval=256, orphans=None, parser=None):
        """Imports a large JSON array (or, with `lines=True`, JSON Lines) in chunks of `chunk_size`
        representations, so only one chunk's parse tree is in memory at a time; each representation
        is mapped with `mapping` as if at the root. All or nothing (one transaction, or the one open);
        parse errors carry the line and column in the whole input; progress counts across chunks.
        `data` is bytes, str or a path-like to read. Returns how many representations were mapped."""
        if isinstance(data, os.PathLike):
            with open(data, "rb") as source:
                data = source.read()
        data = _json_bytes(data)
        options, raised, _keep = self._import_options(metadata, on_event, on_progress, progress_interval, orphans, parser)
        count = ctypes.c_size_t()
        self._check(_ffi.import_chunked(self._ptr, _encode(mapping), data, len(data),
                                        _ffi.CHUNKS_LINES if lines else _ffi.CHUNKS_ARRAY, chunk_size,
                                        ctypes.byref(options), ctypes.byref(count)))
        if raised:
            raise raised[0]
        return count.value

    def _import_options(self, metadata, on_event, on_progress, progress_interval, orphans, parser=None):
        """The C options for an import, the list a callback's exception lands in, and the ctypes
        callbacks to keep alive for the call."""
        options = _ffi.ImportOptions(version=_ffi.IMPORT_OPTIONS_VERSION, progress_interval=progress_interval,
                                     parser=_parser_value(parser))
        if orphans is not None:
            entity, predicate = orphans
            options.orphan_entity = _encode(entity)
            options.orphan_predicate = _encode(predicate) if predicate is not None else None
        if metadata is not None:
            options.metadata = json.dumps(metadata).encode("utf-8")
            options.metadata_len = len(options.metadata)
        raised = []
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
        return options, raised, keep

    # -- host transformers -----------------------------------------------------------------------

    def register_transformer(self, name, forward, reverse=None):
        """Registers a transformer the spec can name (`"transformer": name`). `forward` takes the
        incoming value (already parsed from JSON; never None) and returns the value to store;
        `reverse`, if given, does the opposite when serializing (without it the attribute is left
        out). An exception rejects the value: the import fails with WrongTypeError naming the path
        and the attribute, and the exception's text. The callables run during import_json and
        serialize, on the calling thread, and must not use this context."""
        callbacks = (_wrap_transformer(forward), _wrap_transformer(reverse) if reverse else _ffi.TRANSFORMER())
        self._check(_ffi.register_transformer(self._ptr, _encode(name), callbacks[0], callbacks[1], None))
        self._callbacks[name] = callbacks

    # -- finding ---------------------------------------------------------------------------------

    def get(self, entity, identity):
        """The object of `entity` with this identity (a value, or a list/dict for compound
        identifications), or None."""
        found = _ffi.Object()
        code = _ffi.get(self._ptr, _encode(entity), json.dumps(identity).encode("utf-8"), ctypes.byref(found))
        if code == _ffi.ENOTFOUND:
            return None
        self._check(code)
        return Object(self, found.value)

    def all(self, entity):
        """Every object of `entity` and its sub-entities."""
        result = _ffi.ListP()
        self._check(_ffi.all_(self._ptr, _encode(entity), ctypes.byref(result)))
        return ObjectList(self, result)

    def count(self, entity, predicate=None, *arguments):
        """How many objects `entity` and its sub-entities have, or how many match `predicate`."""
        total = ctypes.c_size_t()
        if predicate is None:
            self._check(_ffi.count(self._ptr, _encode(entity), ctypes.byref(total)))
        else:
            self._check(_ffi.count_where(self._ptr, _encode(entity), _encode(predicate),
                                         json.dumps(list(arguments), default=_json_default).encode("utf-8"),
                                         ctypes.byref(total)))
        return total.value

    def fetch(self, entity, predicate=None, *arguments, sort=None, limit=None, offset=0, subentities=True):
        """The objects of `entity` (sub-entities too) matching `predicate`, whose `%@` placeholders
        take `arguments` in order (bound as values, never pasted into the text). `sort` is
        "key,-key" or a list of such keys. Raises PredicateError with the column for a bad predicate."""
        if isinstance(sort, (list, tuple)):
            sort = ",".join(sort)
        if (limit is not None and limit < 0) or offset < 0:
            raise ValueError("limit and offset must be at least 0 (limit None for no limit)")
        result = _ffi.ListP()
        self._check(_ffi.fetch(self._ptr, _encode(entity), _encode(predicate) if predicate is not None else None,
                               json.dumps(list(arguments), default=_json_default).encode("utf-8"),
                               _encode(sort) if sort else None, offset, limit or 0,
                               0 if subentities else _ffi.FETCH_EXACT_ENTITY, ctypes.byref(result)))
        return ObjectList(self, result)

    # -- changes ---------------------------------------------------------------------------------

    def create(self, entity, values=None, **more):
        """A new object of `entity` with these attribute values (coerced as on import)."""
        merged = dict(values or {}, **more)
        found = _ffi.Object()
        self._check(_ffi.create(self._ptr, _encode(entity), json.dumps(merged, default=_json_default).encode("utf-8"),
                                ctypes.byref(found)))
        return Object(self, found.value)

    def delete(self, obj):
        """Deletes an object, applying delete rules (DeniedError when a deny rule refuses)."""
        self._own(obj)
        self._check(_ffi.delete(self._ptr, obj._handle))

    def begin(self):
        self._check(_ffi.begin(self._ptr))

    def commit(self):
        self._check(_ffi.commit(self._ptr))

    def rollback(self):
        self._check(_ffi.rollback(self._ptr))

    @contextlib.contextmanager
    def transaction(self):
        """`with ctx.transaction():` groups changes and imports; they are committed at the end (count
        rules checked then) or rolled back if the block raises. A failing call inside rolls the
        transaction back at once."""
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

    def serialize(self, mapping, objects, *, include_nulls=False, pretty=False, root=True, form=False):
        """JSON text for one Object, or for a list of Objects (a JSON array); with `form=True`,
        application/x-www-form-urlencoded text instead."""
        flags = ((_ffi.SERIALIZE_NULLS if include_nulls else 0) | (_ffi.SERIALIZE_PRETTY if pretty else 0)
                 | (0 if root else _ffi.SERIALIZE_NO_ROOT) | (_ffi.SERIALIZE_FORM if form else 0))
        out = ctypes.c_void_p()
        if isinstance(objects, Object):
            self._own(objects)
            self._check(_ffi.serialize(self._ptr, _encode(mapping), objects._handle, flags, ctypes.byref(out)))
        else:
            with self._as_list(objects) as (_, selection):
                self._check(_ffi.serialize_list(self._ptr, _encode(mapping), selection, flags, ctypes.byref(out)))
        return _ffi.take_string(out.value)

    def _own(self, item):
        if not isinstance(item, Object) or item._context is not self:
            raise MisuseError("expected Objects of this context")

    @contextlib.contextmanager
    def _as_list(self, objects):
        """`objects` as a Python list and as a mapping_list, for the calls that take a list. An
        unchanged ObjectList of this context hands over the library's own list, with no work per
        object; anything else is checked object by object and copied into a temporary list."""
        if isinstance(objects, ObjectList) and objects._library_list(self) is not None:
            yield objects, objects._library_list(self)
            return
        items = list(objects)
        for item in items:
            self._own(item)
        with _selection(items) as selection:
            yield items, selection

    # -- routes ----------------------------------------------------------------------------------

    def route_path(self, obj=None, method="GET", *, name=None, relationship=None, escape=False):
        """The path of a route of the spec: the named one, or the one for `obj` (and its
        `relationship`) and `method`, filled from `obj`. Raises NotFoundError without a route."""
        if obj is not None:
            self._own(obj)
        out = ctypes.c_void_p()
        self._check(_ffi.route_path(self._ptr, _encode(name) if name else None, obj._handle if obj is not None else 0,
                                    _encode(relationship) if relationship else None, _encode(method),
                                    _ffi.PATH_ESCAPE if escape else 0, ctypes.byref(out)))
        return _ffi.take_string(out.value)

    def parameters(self, objects, method="POST", *, form=False):
        """Request parameters for one Object or a list, by the spec's request descriptors: JSON text,
        or form-encoded text with `form=True`."""
        out = ctypes.c_void_p()
        with self._as_list([objects] if isinstance(objects, Object) else objects) as (_, selection):
            self._check(_ffi.parameters(self._ptr, selection, _encode(method), _ffi.SERIALIZE_FORM if form else 0,
                                        ctypes.byref(out)))
        return _ffi.take_string(out.value)

    def values(self, objects, attribute):
        """One attribute of many Objects in one call, as a list of Python values (typed as `obj[attr]`
        types them; None for null): the way to read a column without a ctypes call per object. The
        objects may be of several entities that give `attribute` the same type."""
        out = ctypes.c_void_p()
        with self._as_list(objects) as (items, selection):
            if not items:
                return []
            self._check(_ffi.get_values(self._ptr, selection, _encode(attribute), ctypes.byref(out)))
        text = _ffi.take_string(out.value)
        kind = self.attribute_type(items[0].entity, attribute)
        if kind == _ffi.TYPE_DECIMAL:
            return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
        column = json.loads(text)
        if kind == _ffi.TYPE_DATE:
            return [None if value is None else _date(value) for value in column]
        if kind == _ffi.TYPE_DOUBLE:
            return [None if value is None else float(value) for value in column]
        return column

    def map_response(self, method, url, status, body, *, headers=None, base_url=None, orphans=None, target=None):
        """Maps an HTTP response with the spec's response descriptors (see the README): returns the
        objects; raises ResponseError for an error status (with the payload's error messages).
        For a GET, `orphans=(entity, predicate or None)` deletes the objects of that scope the
        response did not touch. `target=obj` (the object sent) maps a single top-level
        representation into `obj` whatever its identity, so a new object learns its server id."""
        data = _json_bytes(body) if body not in (None, b"", "") else b""
        response = _ffi.Response(version=_ffi.RESPONSE_VERSION, method=_encode(method), url=_encode(url), status=status,
                                 headers=json.dumps(headers).encode("utf-8") if headers is not None else None,
                                 body=data, body_len=len(data), base_url=_encode(base_url) if base_url else None)
        if target is not None:
            self._own(target)
            response.target = target._handle
        if orphans is not None:
            response.orphan_entity = _encode(orphans[0])
            response.orphan_predicate = _encode(orphans[1]) if orphans[1] is not None else None
        result = _ffi.ListP()
        self._check(_ffi.map_response(self._ptr, ctypes.byref(response), ctypes.byref(result)))
        return ObjectList(self, result)

    # -- model -----------------------------------------------------------------------------------

    def attribute_type(self, entity, attribute):
        key = (entity, attribute)
        with self._types_lock:
            cached = self._types.get(key)
        if cached is None:
            value = ctypes.c_int()
            self._check(_ffi.attribute_type(self._ptr, _encode(entity), _encode(attribute), ctypes.byref(value)))
            cached = value.value
            with self._types_lock:
                self._types[key] = cached
        return cached

    def attributes(self, entity):
        """The attribute names of an entity, inherited ones first."""
        return self._names(entity, _ffi.entity_attribute_count, _ffi.entity_attribute_name)

    def relationships(self, entity):
        """The relationship names of an entity, inherited ones first."""
        return self._names(entity, _ffi.entity_relationship_count, _ffi.entity_relationship_name)

    def _names(self, entity, count_function, name_function):
        total = ctypes.c_size_t()
        self._check(count_function(self._ptr, _encode(entity), ctypes.byref(total)))
        names = []
        name = ctypes.c_char_p()
        for index in range(total.value):
            self._check(name_function(self._ptr, _encode(entity), index, ctypes.byref(name)))
            names.append(name.value.decode("utf-8"))
        return names

    def is_to_many(self, entity, relationship):
        flag = ctypes.c_bool()
        self._check(_ffi.relationship_is_to_many(self._ptr, _encode(entity), _encode(relationship),
                                                 ctypes.byref(flag)))
        return flag.value


class Object:
    """One object of a context's graph. Two Objects for the same graph object are equal and hash
    alike. Reading a deleted object raises StaleObjectError."""

    __slots__ = ("_context", "_handle")

    def __init__(self, context, handle):
        self._context = context
        self._handle = handle

    def __eq__(self, other):
        return isinstance(other, Object) and other._context is self._context and other._handle == self._handle

    def __hash__(self):
        return hash((id(self._context), self._handle))

    def __repr__(self):
        try:
            return f"<mapping.Object {self.entity} #{self._handle & 0xFFFFFFFF}>"
        except Exception:  # a closed context or a stale handle still gets a repr
            return f"<mapping.Object #{self._handle & 0xFFFFFFFF} (unreadable)>"

    @property
    def context(self):
        return self._context

    @property
    def entity(self):
        name = ctypes.c_char_p()
        self._context._check(_ffi.entity_name(self._context._ptr, self._handle, ctypes.byref(name)))
        return name.value.decode("utf-8")

    def __getitem__(self, attribute):
        """The attribute's value as a Python value: str, int, float, decimal.Decimal, bool,
        datetime (UTC), the parsed JSON for json attributes, or None for null."""
        context = self._context
        kind = context.attribute_type(self.entity, attribute)
        name = _encode(attribute)
        pointer = context._ptr
        if kind == _ffi.TYPE_JSON:
            out = ctypes.c_void_p()
            context._check(_ffi.get_json(pointer, self._handle, name, ctypes.byref(out)))
            return json.loads(_ffi.take_string(out.value))
        getter, holder, convert = _GETTERS[kind]
        value = holder()
        args = (pointer, self._handle, name, ctypes.byref(value))
        if kind == _ffi.TYPE_STRING:
            length = ctypes.c_size_t()
            args += (ctypes.byref(length),)
        code = getter(*args)
        if code == _ffi.ENULL:
            return None
        context._check(code)
        if kind == _ffi.TYPE_STRING:
            return ctypes.string_at(value.value, length.value).decode("utf-8")
        return convert(value.value)

    def get(self, attribute, default=None):
        value = self[attribute]
        return default if value is None else value

    def related(self, relationship):
        """The target of a to-one relationship (an Object or None), or the targets of a to-many
        relationship (a list of Objects, in order)."""
        context = self._context
        if context.is_to_many(self.entity, relationship):
            result = _ffi.ListP()
            context._check(_ffi.get_related_list(context._ptr, self._handle, _encode(relationship),
                                                 ctypes.byref(result)))
            return ObjectList(context, result)
        target = _ffi.Object()
        context._check(_ffi.get_related(context._ptr, self._handle, _encode(relationship), ctypes.byref(target)))
        return Object(context, target.value) if target.value else None

    def __setitem__(self, attribute, value):
        """Sets an attribute (None clears it), coerced as on import."""
        context = self._context
        context._check(_ffi.set_(context._ptr, self._handle, _encode(attribute),
                                 json.dumps(value, default=_json_default).encode("utf-8")))

    def set_related(self, relationship, target):
        """Sets a to-one relationship to an Object or None, or a to-many to a list of Objects."""
        context = self._context
        if isinstance(target, (list, tuple)):
            with context._as_list(target) as (_, selection):
                context._check(_ffi.set_related_list(context._ptr, self._handle, _encode(relationship), selection))
        else:
            context._check(_ffi.set_related(context._ptr, self._handle, _encode(relationship),
                                            target._handle if target is not None else 0))

    def add_related(self, relationship, target, index=None):
        """Adds `target` to a to-many relationship, at `index` of an ordered one."""
        context = self._context
        context._check(_ffi.add_related(context._ptr, self._handle, _encode(relationship), target._handle,
                                        _ffi.APPEND if index is None else index))

    def remove_related(self, relationship, target):
        context = self._context
        context._check(_ffi.remove_related(context._ptr, self._handle, _encode(relationship), target._handle))

    def move_related(self, relationship, source, destination):
        """Moves the target at position `source` of an ordered relationship to `destination`."""
        context = self._context
        context._check(_ffi.move_related(context._ptr, self._handle, _encode(relationship), source, destination))

    def to_dict(self):
        """Every attribute's value, keyed by name."""
        return {name: self[name] for name in self._context.attributes(self.entity)}

    def is_live(self):
        return _ffi.object_check(self._context._ptr, self._handle) == _ffi.OK


def _json_default(value):
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


def _wrap_transformer(function):
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


@contextlib.contextmanager
def _selection(items):
    """A temporary mapping_list of `items` (Objects) for the calls that take a list."""
    # array.array then from_buffer: several times faster than filling a ctypes array from a generator.
    handles = array.array("Q", [item._handle for item in items])
    selection = _ffi.ListP()
    pointer = (_ffi.Object * len(items)).from_buffer(handles) if items else None
    check(_ffi.list_new(pointer, len(items), ctypes.byref(selection)))
    try:
        yield selection
    finally:
        _ffi.list_free(selection)


def _date(seconds):
    return _EPOCH + datetime.timedelta(seconds=seconds)


_GETTERS = {
    _ffi.TYPE_STRING: (_ffi.get_string, ctypes.c_void_p, None),
    _ffi.TYPE_INTEGER: (_ffi.get_int64, ctypes.c_int64, int),
    _ffi.TYPE_DOUBLE: (_ffi.get_double, ctypes.c_double, float),
    _ffi.TYPE_DECIMAL: (_ffi.get_decimal, ctypes.c_char_p, lambda raw: decimal.Decimal(raw.decode("ascii"))),
    _ffi.TYPE_BOOLEAN: (_ffi.get_bool, ctypes.c_bool, bool),
    _ffi.TYPE_DATE: (_ffi.get_date, ctypes.c_double, _date),
}
