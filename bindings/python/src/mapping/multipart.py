"""multipart/form-data bodies (RFC 7578) for ObjectManager.multipart_request: the form fields (the
object's request parameters, form-encoded by the engine, and extra parameters flattened the same
way) and the attachments, between a boundary that occurs in none of them. Only bytes and names here;
no HTTP, no graph."""
from __future__ import annotations

import secrets
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, List, Tuple

from .errors import MisuseError

Field = Tuple[str, bytes]


@dataclass(frozen=True)
class Attachment:
    """A file part of a multipart form: the field `name`, the bytes, the `filename` the server is told
    and its `content_type` (RestKit's appendPartWithFileData:name:fileName:mimeType:)."""
    name: str
    data: bytes
    filename: str
    content_type: str = "application/octet-stream"

    def __post_init__(self) -> None:
        for what in ("name", "filename", "content_type"):
            if not isinstance(getattr(self, what), str):
                raise MisuseError(f"Attachment {what} must be a str, not {type(getattr(self, what)).__name__}")
        if not isinstance(self.data, (bytes, bytearray, memoryview)):
            raise MisuseError(f"Attachment {self.name!r}: data must be bytes, not {type(self.data).__name__} "
                              "(read a file with open(path, 'rb').read(), encode text with .encode())")


def form_fields(text: str) -> List[Field]:
    """The fields of form-encoded text as the engine writes it (`user[name]=Ada%20L`; a bare key is a
    null, which becomes an empty field, as AFNetworking sends NSNull): names and values decoded."""
    fields = []
    for pair in text.split("&") if text else ():
        name, _, value = pair.partition("=")
        fields.append((urllib.parse.unquote(name, errors="strict"),
                       urllib.parse.unquote_to_bytes(value)))
    return fields


def flatten(params: Mapping[str, Any]) -> List[Field]:
    """Extra parameters as fields, by the engine's form rules: keys sorted, `a[b]` for a nested dict,
    `a[]` for each item of a list, an empty value for None, `true`/`false`, bytes as they are."""
    if not isinstance(params, Mapping):
        raise MisuseError(f"multipart params must be a dict of field names, not {type(params).__name__}")
    return list(_flatten_value(None, params))


def _flatten_value(prefix: Any, value: Any) -> Iterator[Field]:
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            yield from _flatten_value(f"{prefix}[{key}]" if prefix is not None else str(key), value[key])
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten_value(f"{prefix}[]", item)
    elif prefix is None:
        raise MisuseError(f"multipart params must be a dict of field names, not {type(value).__name__}")
    elif value is None:
        yield prefix, b""
    elif isinstance(value, bool):
        yield prefix, b"true" if value else b"false"
    elif isinstance(value, (bytes, bytearray, memoryview)):
        yield prefix, bytes(value)
    else:
        yield prefix, str(value).encode("utf-8")


def merge(fields: Sequence[Field], extra: Sequence[Field]) -> List[Field]:
    """The object's fields, less those an extra field names again, then the extra ones (RestKit merges
    the extra parameters over the object's)."""
    replaced = {name for name, _ in extra}
    return [field for field in fields if field[0] not in replaced] + list(extra)


def _quoted(what: str, text: str) -> str:
    """`text` as a quoted-string (RFC 7578 §4.2 with RFC 2045/7230 quoting): `"` and `\\` escaped with a
    backslash; line breaks and other control characters cannot be quoted and are refused."""
    bad = [c for c in text if ord(c) < 32 or ord(c) == 127]
    if bad:
        raise MisuseError(f"the multipart {what} {text!r} holds the control character {bad[0]!r}, which no "
                          f"Content-Disposition header can carry: remove it from the {what}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _part_headers(name: str, filename: Any, content_type: Any) -> bytes:
    disposition = f"Content-Disposition: form-data; name={_quoted('field name', name)}"
    if filename is not None:
        disposition += f"; filename={_quoted('filename', filename)}"
    lines = [disposition] + ([f"Content-Type: {content_type}"] if content_type is not None else [])
    if content_type is not None and any(ord(c) < 32 or ord(c) == 127 for c in content_type):
        raise MisuseError(f"the content type {content_type!r} holds a control character: give one such as image/png")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def boundary_for(contents: Sequence[bytes], make: Callable[[], str] = lambda: secrets.token_hex(16)) -> str:
    """A boundary that occurs in none of `contents` (random, so it almost never needs a second try)."""
    for _ in range(100):
        boundary = "mapping-" + make()
        marker = boundary.encode("ascii")
        if not any(marker in content for content in contents):
            return boundary
    raise MisuseError("no multipart boundary could be found that the content does not hold")


def encode(fields: Sequence[Field], attachments: Sequence[Attachment],
           make: Callable[[], str] = lambda: secrets.token_hex(16)) -> Tuple[bytes, str]:
    """The body and its Content-Type (`multipart/form-data; boundary=…`): the fields in order, each a
    part without a Content-Type (text/plain by RFC 7578's default), then the attachments, each with
    its filename and Content-Type."""
    parts = [(_part_headers(name, None, None), value) for name, value in fields]
    for attachment in attachments:
        if not isinstance(attachment, Attachment):
            raise MisuseError(f"attachments must be mapping.Attachment values, not {type(attachment).__name__}")
        parts.append((_part_headers(attachment.name, attachment.filename, attachment.content_type),
                      bytes(attachment.data)))
    boundary = boundary_for([piece for part in parts for piece in part], make)
    delimiter = b"--" + boundary.encode("ascii")
    body = b"".join(delimiter + b"\r\n" + headers + content + b"\r\n" for headers, content in parts)
    return body + delimiter + b"--\r\n", f"multipart/form-data; boundary={boundary}"
