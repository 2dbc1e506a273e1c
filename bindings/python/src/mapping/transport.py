"""One HTTP exchange that another thread can cancel, and the set of a manager's outstanding ones.

urllib has no cancel. An Operation keeps the socket of its connection (a connection class that
reports its socket when it connects), so cancel() from any thread shuts that socket down: a request
waiting for its answer, or reading it, stops at once with CancelledError. A request cancelled before
it connects is never sent; one still connecting stops when the connect returns. Once its answer is
being mapped (claim()), a request can no longer be cancelled."""
from __future__ import annotations

import http.client
import socket
import threading
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import CancelledError, TransportError

QUEUED, SENDING, MAPPING, DONE = "queued", "sending", "mapping", "done"


class Operation:
    """One request of an ObjectManager, from the moment it is queued until its answer is mapped:
    `method`, `url`, `state` (queued, sending, mapping, done) and `cancelled`."""

    def __init__(self, method: str, url: str) -> None:
        self.method, self.url = method, url
        self.state = QUEUED
        self.cancelled = False
        self._socket: Optional[socket.socket] = None
        self._lock = threading.Lock()

    def cancel(self) -> bool:
        """Cancels the request unless its answer is being mapped or it is done; True if this call
        cancelled it. A request already sent is cut off (its socket shut down): the server may
        have received it and acted on it, but its answer is not read or mapped."""
        with self._lock:
            if self.cancelled or self.state in (MAPPING, DONE):
                return False
            self.cancelled = True
            self._shut()
            return True

    def claim(self) -> None:
        """The answer is about to be mapped: from now on cancel() leaves the request alone. Raises
        CancelledError if it was cancelled first."""
        with self._lock:
            if self.cancelled:
                raise CancelledError(self.method, self.url)
            self.state = MAPPING

    def finish(self) -> None:
        with self._lock:
            self.state = DONE
            self._socket = None

    def exchange(self, request: urllib.request.Request, timeout: float) -> Tuple[int, bytes, str]:
        """Sends `request` and reads the whole answer: status, body and content type. An HTTP error
        status is an answer too. Raises CancelledError if cancelled before or during, TransportError
        if no answer came."""
        with self._lock:
            if self.cancelled:
                raise CancelledError(self.method, self.url)
            self.state = SENDING
        opener = urllib.request.build_opener(*[handler(self) for handler in _HANDLERS])
        try:
            try:
                with opener.open(request, timeout=timeout) as response:
                    answer = response.status, response.read(), response.headers.get_content_type()
            except urllib.error.HTTPError as error:
                answer = error.code, error.read(), error.headers.get_content_type()
        except ValueError as error:
            # What reading a TLS socket that cancel() shut raises; any other is urllib's own.
            if self.cancelled:
                raise CancelledError(self.method, self.url) from error
            raise TransportError(self.method, self.url, str(error) or type(error).__name__) from error
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            if self.cancelled:
                raise CancelledError(self.method, self.url) from error
            reason = error.reason if isinstance(error, urllib.error.URLError) else error
            raise TransportError(self.method, self.url, str(reason) or type(error).__name__) from error
        if self.cancelled:  # cancelled after the last byte came: the answer is dropped all the same
            raise CancelledError(self.method, self.url)
        return answer

    def _connected(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock
            if self.cancelled:  # cancelled while connecting: nothing is sent
                self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:  # closed already: the exchange is over
                pass

    def __repr__(self) -> str:
        return f"<Operation {self.method} {self.url} {'cancelled' if self.cancelled else self.state}>"


class Outstanding:
    """The operations of one manager not yet done, for cancel(). Thread-safe."""

    def __init__(self) -> None:
        self._operations: List[Operation] = []
        self._lock = threading.Lock()

    def add(self, operation: Operation) -> Operation:
        with self._lock:
            self._operations.append(operation)
        return operation

    def remove(self, operation: Operation) -> None:
        """The operation is done (or was never started): cancel() no longer sees it."""
        operation.finish()
        with self._lock:
            if operation in self._operations:
                self._operations.remove(operation)

    def cancel(self, matches: Callable[[Operation], bool]) -> int:
        """Cancels every outstanding operation `matches` accepts; how many it cancelled."""
        with self._lock:
            operations = list(self._operations)
        return sum(operation.cancel() for operation in operations if matches(operation))

    def __len__(self) -> int:
        with self._lock:
            return len(self._operations)


# -- connections that report their socket -------------------------------------------------------

_CLASSES: Dict[Any, Any] = {}


def _reporting(http_class: Any) -> Any:
    """`http_class` (HTTPConnection or HTTPSConnection) with a connect() that reports its socket."""
    if http_class not in _CLASSES:
        def connect(self: Any) -> None:
            http_class.connect(self)
            self.operation._connected(self.sock)
        _CLASSES[http_class] = type(f"Reporting{http_class.__name__}", (http_class,), {"connect": connect})
    return _CLASSES[http_class]


class _Reporting:
    """A urllib handler whose connections report their sockets to one operation."""

    def __init__(self, operation: Operation) -> None:
        super().__init__()
        self.operation = operation

    def do_open(self, http_class: Any, req: Any, **http_conn_args: Any) -> Any:
        def connection(host: str, **options: Any) -> Any:
            made = _reporting(http_class)(host, **options)
            made.operation = self.operation
            return made
        return super().do_open(connection, req, **http_conn_args)  # type: ignore[misc]


class _HTTPHandler(_Reporting, urllib.request.HTTPHandler):
    pass


_HANDLERS: List[Any] = [_HTTPHandler]
if hasattr(urllib.request, "HTTPSHandler"):  # Python built with ssl
    class _HTTPSHandler(_Reporting, urllib.request.HTTPSHandler):
        pass
    _HANDLERS.append(_HTTPSHandler)
