"""MappingError and its subclasses, one per status code of mapping.h."""
from . import _ffi


class MappingError(Exception):
    """A failed libmapping call: the status code, the message, and where (JSON path, attribute,
    line/column/position for parse errors)."""

    code = _ffi.ERROR

    def __init__(self, message, code=None, path="", attribute="", line=0, column=0, position=0):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.path = path
        self.attribute = attribute
        self.line = line
        self.column = column
        self.position = position


class MisuseError(MappingError):
    code = _ffi.EMISUSE


class SpecError(MappingError):
    code = _ffi.ESPEC


class ParseError(MappingError):
    code = _ffi.EPARSE


class WrongTypeError(MappingError):
    code = _ffi.ETYPE


class UnknownNameError(MappingError):
    code = _ffi.ENAME


class NotFoundError(MappingError):
    code = _ffi.ENOTFOUND


class StaleObjectError(MappingError):
    code = _ffi.ESTALE


class NullValueError(MappingError):
    code = _ffi.ENULL


class DepthError(MappingError):
    code = _ffi.EDEPTH


class OutOfRangeError(MappingError):
    code = _ffi.ERANGE


class UnmappableError(MappingError):
    code = _ffi.EMAPPING


class DeniedError(MappingError):
    code = _ffi.EDENIED


class PredicateError(MappingError):
    code = _ffi.EPREDICATE


class ConstraintError(MappingError):
    code = _ffi.ECONSTRAINT


class ResponseError(MappingError):
    """An HTTP error status; the message carries the payload's error messages."""
    code = _ffi.ERESPONSE


class UnavailableError(MappingError):
    """A feature this build of the library lacks (the simdjson parser, built without libsimdjson-dev)."""
    code = _ffi.EUNAVAILABLE


class BusyError(MappingError):
    """Another thread's transaction on the context stayed open past the busy timeout; nothing changed."""
    code = _ffi.EBUSY


_BY_CODE = {cls.code: cls for cls in (MisuseError, SpecError, ParseError, WrongTypeError, UnknownNameError,
                                      NotFoundError, StaleObjectError, NullValueError, DepthError,
                                      OutOfRangeError, UnmappableError, DeniedError, PredicateError, ConstraintError, ResponseError,
                                      UnavailableError, BusyError)}


def _text(raw):
    return raw.decode("utf-8", "replace") if raw else ""


def error_from_status(code, context_pointer):
    """The exception for a failed call, built from the calling thread's error record."""
    record = _ffi.error_last(context_pointer).contents
    cls = _BY_CODE.get(code, MappingError)
    return cls(_text(record.message) or _text(_ffi.error_name(code)), code=code, path=_text(record.path),
               attribute=_text(record.attribute), line=record.line, column=record.column,
               position=record.position)


def check(code, context_pointer=None):
    if code != _ffi.OK:
        raise error_from_status(code, context_pointer)
