"""Limits of the HTTP/1.1 connection below the application (header size, count and read
time, body read time: :class:`LimitedHttpToolsProtocol`; docs/api.md, "Limits"), and the
:class:`WriteCheck` that tells whether a whole response went to the socket."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import (
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)

MAX_HEADER_BYTES = 32 * 1024
"""Most bytes of the request line and headers of one request."""
MAX_HEADER_COUNT = 100
"""Most header lines of one request."""
HEADER_TIMEOUT = 10.0
"""Seconds to receive a request's head."""
BODY_TIMEOUT = 30.0
"""Seconds to receive a request's body once the head is in."""


WRITE_CHECK = "bodygraph.write_check"
"""The key of :class:`WriteCheck` in a request scope's ``extensions``."""
_DRAIN_PAUSE = 0.005


class WriteCheck:
    """Whether a request's whole response was written to its socket (handed to the
    kernel, which delivers it even if this process dies next)."""

    def __init__(self, transport: asyncio.Transport, cycle: RequestResponseCycle) -> None:
        self._transport = transport
        # Weakly: the cycle holds the scope that holds this check, and a strong reference
        # would leave every request's objects to the garbage collector.
        self._cycle = weakref.ref(cycle)

    async def written(self, patience: float) -> bool:
        """Call after the response's last part was sent. False when uvicorn dropped it
        (the client was gone) or the write failed; once some of it still waits in the
        transport's buffer (a client reading slowly), waits for it to reach the socket for
        up to ``patience`` seconds (then True: it was handed over)."""
        cycle, transport = self._cycle(), self._transport
        if cycle is None or cycle.disconnected or not cycle.response_complete:
            return False
        if cycle.keep_alive and transport.is_closing():
            return False  # closing on its own: the write failed
        if not transport.get_write_buffer_size():
            return True  # the usual case: all of it went to the socket at once
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while transport.get_write_buffer_size():
            if cycle.disconnected:
                return False
            if loop.time() > deadline:
                break
            await asyncio.sleep(_DRAIN_PAUSE)
        return True


class _Refused(httptools.HttpParserError):
    """Stops the parser when a limit is passed (uvicorn then sends the refusal)."""


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of the module docstring (class
    attributes, so that a subclass may change them)."""

    max_header_bytes = MAX_HEADER_BYTES
    max_header_count = MAX_HEADER_COUNT
    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._head_bytes = 0
        self._head_lines = 0
        self._head_size = 0
        self._refusal: tuple[int, str] | None = None
        self._timer: asyncio.TimerHandle | None = None

    # timers

    def _arm(self, seconds: float, status: int | None) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired, status)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, status: int | None) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if status is None:  # the body is late: the application is waiting for it
            self.transport.close()
            return
        self._refuse(status, "Request header timeout")

    # refusals

    def _refuse(self, status: int, message: str) -> None:
        self._refusal = (status, message)
        self.send_400_response(message)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's refusal of a request it cannot parse; here also the refusal of a
        request past a limit (431, 408)."""
        if self._refusal is None:
            super().send_400_response(msg)
            return
        status, text = self._refusal
        body = text.encode("ascii")
        self.transport.write(b"".join([
            STATUS_LINE[status],
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n\r\n",
            body,
        ]))
        self.transport.close()
        self._disarm()

    # protocol events

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock of the first request's head."""
        super().connection_made(transport)
        self._arm(self.header_timeout, 408)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Count the bytes received while a head is being read (the parser buffers an
        unfinished header line, so its length is checked here too)."""
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if (self._in_head and self._head_bytes > self.max_header_bytes
                and not self.transport.is_closing()):
            self._refuse(431, "Request header fields too large")

    def on_message_begin(self) -> None:
        """A new request: its head is being read (clock started unless running)."""
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0
        self._head_lines = 0
        self._head_size = 0
        if self._timer is None:
            self._arm(self.header_timeout, 408)

    def on_url(self, url: bytes) -> None:
        """Count the request target with the head."""
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """Count header lines and their bytes."""
        self._head_lines += 1
        self._head_size += len(name) + len(value) + 4
        if self._head_lines > self.max_header_count:
            self._refusal = (431, "Too many request header fields")
            raise _Refused("too many header fields")
        if self._head_size > self.max_header_bytes:
            self._refusal = (431, "Request header fields too large")
            raise _Refused("header fields too large")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is in: the body's clock starts; the scope gets its
        :class:`WriteCheck`."""
        self._in_head = False
        self._arm(self.body_timeout, None)
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.scope is self.scope:
            extensions: dict[str, Any] = self.scope.setdefault("extensions", {})
            extensions[WRITE_CHECK] = WriteCheck(self.transport, self.cycle)

    def on_message_complete(self) -> None:
        """The body is in: no clock until the next request."""
        self._disarm()
        super().on_message_complete()
