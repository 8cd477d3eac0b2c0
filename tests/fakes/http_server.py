"""A scripted HTTP server on 127.0.0.1: answers each request with the next scripted response.

Real sockets, real HTTP: the clients under test (the anthropic SDK over ``httpx2``, ``httpx``) are
exercised end to end, which mocking libraries cannot do for the SDK. Every request is kept
(method, path, headers, body) so tests can assert exactly what reached the "API" and how often.
A scripted response can stall before answering (to trigger a client timeout); stalls end when
the server stops, so no test waits for them.
"""

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Scripted:
    """One response: status, JSON (dict/list) or raw text body, headers, optional stall."""

    status: int = 200
    body: Any = ""
    headers: dict[str, str] = field(default_factory=dict)
    stall_s: float = 0.0

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, dict | list):
            return json.dumps(self.body).encode("utf-8"), "application/json"
        return str(self.body).encode("utf-8"), "text/plain; charset=utf-8"


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ScriptedHTTPServer:
    """Use as a context manager; ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(
        self,
        responses: Iterable[Scripted] = (),
        *,
        check: Callable[[ReceivedRequest], Scripted | None] | None = None,
    ) -> None:
        #: Answers a request the real API would refuse (``tests.fakes.api_rules``) before any
        #: scripted reply is used; the refused request is still kept in :attr:`requests`.
        self._check = check
        self._responses: deque[Scripted] = deque(responses)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.requests: list[ReceivedRequest] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def push(self, *responses: Scripted) -> None:
        with self._lock:
            self._responses.extend(responses)

    def bodies(self) -> list[Any]:
        """The JSON bodies of every request received, in order."""
        return [request.json() for request in self.requests]

    def __enter__(self) -> "ScriptedHTTPServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __iter__(self) -> Iterator[ReceivedRequest]:
        return iter(list(self.requests))

    def _next(self, received: ReceivedRequest) -> Scripted:
        refusal = self._check(received) if self._check is not None else None
        with self._lock:
            self.requests.append(received)
            if refusal is not None:
                return refusal
            if self._responses:
                return self._responses.popleft()
        return Scripted(status=418, body={"error": "the test scripted no response for this"})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        def answer(received: ReceivedRequest) -> Scripted | None:
            scripted = self._next(received)
            if scripted.stall_s and self._stop.wait(scripted.stall_s):
                return None
            return scripted

        return handler_class(answer)


def handler_class(
    answer: Callable[[ReceivedRequest], Scripted | None],
) -> type[BaseHTTPRequestHandler]:
    """A handler that answers each GET, POST or PATCH with ``answer(request)`` (None: nothing)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self._answer()

        def do_GET(self) -> None:
            self._answer()

        def do_PATCH(self) -> None:
            self._answer()

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {key.lower(): value for key, value in self.headers.items()}
            scripted = answer(ReceivedRequest(self.command, self.path, headers, body))
            if scripted is None:
                return
            payload, content_type = scripted.encoded()
            try:
                self.send_response(scripted.status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for key, value in scripted.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
