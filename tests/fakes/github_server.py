"""A fake GitHub REST API on 127.0.0.1: issues, comments, ETags, ``Link`` pages, rate limits.

Real HTTP (``ThreadingHTTPServer``), stateful like the real API for what the tracker sync uses:

* ``GET /repos/{o}/{r}/issues``: ``state``, ``sort=updated``, ``direction=asc``, ``since``
  (inclusive, as GitHub's), ``per_page`` capped by :attr:`page_size`, ``page``; a ``Link`` header
  with ``rel="next"``; a weak ``ETag`` of the body, and ``If-None-Match`` answered with 304, which
  does not count against :attr:`remaining` (GitHub's rule).
* ``GET /repos/{o}/{r}/issues/{n}/comments`` (pages too), ``POST`` there (201, a new comment bumps
  the issue's ``updated_at`` like GitHub), ``PATCH /repos/{o}/{r}/issues/comments/{id}``,
  ``POST /repos/{o}/{r}/issues/{n}/labels`` (adds the names it lacks, bumps ``updated_at``).
* :meth:`fail` queues answers (429 with ``Retry-After``, 500, ...) for the next requests.

Every request is kept (method, path, query, headers, status) in :attr:`log`.
"""

import hashlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.fakes.http_server import ReceivedRequest, Scripted, handler_class

START = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Logged:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int


@dataclass(frozen=True)
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = field(default_factory=lambda: {"message": "injected"})
    #: Only requests whose path contains this (None: any request).
    path_contains: str | None = None


class FakeGitHub:
    """Use as a context manager; ``url`` is the API root (``api_url`` of a tracker)."""

    def __init__(self, repository: str = "example-org/example-core", *, page_size: int = 2) -> None:
        self.repository = repository
        self.page_size = page_size
        self.token: str | None = None  # when set, requests must carry it
        self.remaining = 5000
        self.issues: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.log: list[Logged] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.RLock()
        self._time = START
        self._ids = 1000
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -- the test's side -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> "FakeGitHub":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def now(self) -> str:
        """A new, later time (one second after the previous one)."""
        with self._lock:
            self._time += timedelta(seconds=1)
            return self._time.strftime("%Y-%m-%dT%H:%M:%SZ")

    def add_issue(self, number: int, title: str, body: str, **extra: Any) -> dict[str, Any]:
        with self._lock:
            when = self.now()
            root = f"{self.url}/repos/{self.repository}"
            issue = {
                "url": f"{root}/issues/{number}",
                "repository_url": root,
                "comments_url": f"{root}/issues/{number}/comments",
                "html_url": f"https://github.com/{self.repository}/issues/{number}",
                "id": 7000 + number,
                "node_id": f"I_kwFAKE{number}",
                "number": number,
                "title": title,
                "body": body,
                "user": {"login": extra.pop("login", "reporter-a")},
                "labels": [{"name": name} for name in extra.pop("labels", ["bug"])],
                "state": "open",
                "comments": 0,
                "created_at": when,
                "updated_at": when,
                **extra,
            }
            self.issues[number] = issue
            self.comments.setdefault(number, [])
            return issue

    def edit_issue(self, number: int, **changes: Any) -> None:
        with self._lock:
            self.issues[number].update(changes, updated_at=self.now())

    def add_comment(self, number: int, body: str, login: str = "reporter-a") -> dict[str, Any]:
        with self._lock:
            self._ids += 1
            when = self.now()
            comment = {
                "id": self._ids,
                "node_id": f"IC_kwFAKE{self._ids}",
                "html_url": f"https://github.com/{self.repository}/issues/{number}#c{self._ids}",
                "issue_url": self.issues[number]["url"],
                "body": body,
                "user": {"login": login},
                "created_at": when,
                "updated_at": when,
                "author_association": "NONE",
            }
            self.comments[number].append(comment)
            self.issues[number]["comments"] = len(self.comments[number])
            self.issues[number]["updated_at"] = when
            return comment

    def fail(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def costly(self) -> list[Logged]:
        """Requests that count against the rate limit (all but 304s and injected faults)."""
        return [entry for entry in self.log if entry.status not in (304, 403, 429, 500, 502)]

    # -- the API's side --------------------------------------------------------------------------

    def _answer(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(target)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with self._lock:
            status, out, data = self._route(method, parts.path, query, headers, body)
            self.log.append(Logged(method, parts.path, query, headers, status))
            return status, out, data

    def _route(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        for fault in list(self._faults):
            if fault.path_contains is None or fault.path_contains in path:
                self._faults.remove(fault)
                return fault.status, dict(fault.headers), fault.body
        if self.token is not None and headers.get("authorization") != f"Bearer {self.token}":
            return 401, {}, {"message": "Bad credentials"}
        root = f"/repos/{self.repository}/issues"
        tail = path[len(root) :] if path.startswith(root) else None
        if tail is None:
            return 404, {}, {"message": "Not Found"}
        segments = [s for s in tail.split("/") if s]
        if method == "GET" and not segments:
            listed = sorted(
                (i for i in self.issues.values() if i["updated_at"] >= query.get("since", "")),
                key=lambda i: (i["updated_at"], i["number"]),
            )
            return self._page(path, query, listed, headers)
        if len(segments) == 2 and segments[1] == "comments" and segments[0].isdigit():
            number = int(segments[0])
            if number not in self.issues:
                return 404, {}, {"message": "Not Found"}
            if method == "GET":
                return self._page(path, query, list(self.comments[number]), headers)
            if method == "POST":
                comment = self.add_comment(number, json.loads(body)["body"], login="vba-bot")
                return 201, self._limits(), comment
        if len(segments) == 2 and segments[1] == "labels" and segments[0].isdigit():
            issue = self.issues.get(int(segments[0]))
            if issue is None or method != "POST":
                return 404, {}, {"message": "Not Found"}
            names = [label["name"] for label in issue["labels"]]
            names += [n for n in json.loads(body)["labels"] if n not in names]
            issue["labels"] = [{"name": n} for n in names]
            issue["updated_at"] = self.now()  # GitHub bumps it too
            return 200, self._limits(), issue["labels"]
        if len(segments) == 2 and segments[0] == "comments" and method == "PATCH":
            for number, comments in self.comments.items():
                for comment in comments:
                    if str(comment["id"]) == segments[1]:
                        comment["body"] = json.loads(body)["body"]
                        comment["updated_at"] = self.now()
                        self.issues[number]["updated_at"] = comment["updated_at"]
                        return 200, self._limits(), comment
            return 404, {}, {"message": "Not Found"}
        return 404, {}, {"message": "Not Found"}

    def _limits(self) -> dict[str, str]:
        self.remaining -= 1
        return {"X-RateLimit-Remaining": str(self.remaining), "X-RateLimit-Reset": "1999999999"}

    def _page(
        self, path: str, query: dict[str, str], items: list[Any], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        size = min(int(query.get("per_page", "30")), self.page_size)
        page = int(query.get("page", "1"))
        chunk = json.loads(json.dumps(items[(page - 1) * size : page * size]))  # a snapshot
        etag = 'W/"' + hashlib.sha256(json.dumps(chunk).encode()).hexdigest()[:32] + '"'
        out = {"ETag": etag}
        if headers.get("if-none-match") == etag:
            return 304, out, None
        out |= self._limits()
        if page * size < len(items):
            following = urlencode({**query, "page": str(page + 1)})
            out["Link"] = f'<{self.url}{path}?{following}>; rel="next"'
        return 200, out, chunk

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        def answer(received: ReceivedRequest) -> Scripted:
            status, out, data = self._answer(
                received.method, received.path, received.headers, received.body
            )
            return Scripted(status, "" if data is None else data, out)

        return handler_class(answer)
