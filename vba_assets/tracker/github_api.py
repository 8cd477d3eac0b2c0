"""GitHub's REST API over httpx: conditional requests, ``Link`` pages, rate limits, retries.

httpx directly rather than ``githubkit`` or ``PyGithub``: the sync needs the raw ``ETag`` and
``If-None-Match`` of one list request (a 304 costs no rate limit), the ``Link`` header, the
``X-RateLimit-*`` / ``Retry-After`` headers of every answer and control over what is recorded; the
clients hide the headers behind their own retry and pagination (PyGithub's lazy lists, githubkit's
generated models), and neither lets a test give a transport as simply as ``httpx.MockTransport``.

What an answer does:

* 200: its JSON (a list for list endpoints) and, when present, the next page's URL and the ETag.
* 304 (``If-None-Match`` matched): nothing changed, no rate limit spent.
* 403/429 with ``Retry-After``, or ``X-RateLimit-Remaining: 0`` with ``X-RateLimit-Reset``, and a
  429 without either (GitHub: wait at least a minute): wait when the wait fits in ``max_wait_s`` and
  the sync's deadline, else :class:`SyncStopped` ``rate_limited`` with ``retry_at``. A 200 that
  spends the last request also makes the next request wait (or stop) instead of being refused.
* 5xx and network errors: retried after 1, 2, 4 s (capped by ``max_wait_s``), then
  :class:`SyncStopped` ``server_error`` / ``network_error``.
* 401 ``unauthorized``, another 403 ``forbidden``, 404 ``not_found``, other 4xx ``http_error``.

The token is read from the environment at each request (:meth:`TrackerConfig.token`) and only
placed in the ``Authorization`` header; messages carry the status and GitHub's ``message`` with any
occurrence of the token replaced, never a header.
"""

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from vba_assets.config import TrackerConfig

API_VERSION = "2022-11-28"
USER_AGENT = "vba-assets-tracker-sync"
#: Attempts of one request (the first and its retries) before the sync stops.
MAX_ATTEMPTS = 4
#: Seconds before the n-th retry of a 5xx or network error (then capped by ``max_wait_s``).
BACKOFF_S = (1.0, 2.0, 4.0)
#: GitHub asks for at least a minute after a secondary rate limit that names no time.
SECONDARY_LIMIT_WAIT_S = 60.0
_MESSAGE_CHARS = 200


class SyncStopped(Exception):
    """The sync stops here for a reason it records (never a crash, never a busy loop)."""

    def __init__(self, reason: str, detail: str, retry_at: float | None = None) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.retry_at = retry_at


@dataclass(frozen=True)
class Answer:
    """One answered GET: ``status`` 200 or 304."""

    status: int
    data: Any
    etag: str | None
    next_url: str | None


@dataclass
class Clock:
    """Wall time and sleeping (tests give a fake one)."""

    now: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep


@dataclass
class ApiStats:
    """What the requests of one sync cost and met."""

    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    waits_s: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rate_limit_remaining: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "not_modified": self.not_modified,
            "retries": self.retries,
            "waited_s": round(sum(self.waits_s), 3),
            "problems": list(self.problems),
            "rate_limit_remaining": self.rate_limit_remaining,
        }


class GitHubApi:
    """The GET/POST/PATCH requests of one sync against one tracker's API."""

    def __init__(
        self,
        tracker: TrackerConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        clock: Clock | None = None,
        deadline: float | None = None,
    ) -> None:
        self.tracker = tracker
        self.clock = clock or Clock()
        #: Wall time after which no wait is started (the sensor's tick budget).
        self.deadline = deadline
        self.stats = ApiStats()
        self._blocked_until: float | None = None
        self._client = httpx.Client(
            base_url=tracker.api_url,
            transport=transport,
            timeout=tracker.timeout_s,
            follow_redirects=False,
            headers={
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": USER_AGENT,
            },
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "GitHubApi":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(
        self, url: str, params: Mapping[str, str] | None = None, etag: str | None = None
    ) -> Answer:
        """GET ``url`` (absolute, or relative to ``api_url``); ``etag`` makes it conditional."""
        headers = {"If-None-Match": etag} if etag else {}
        response = self._send("GET", self.own(url), params=params, headers=headers)
        if response.status_code == 304:
            self.stats.not_modified += 1
            return Answer(304, None, etag, None)
        return Answer(200, self._json(response), response.headers.get("ETag"), _next(response))

    def pages(self, url: str, params: Mapping[str, str] | None = None) -> Iterator[list[Any]]:
        """The JSON arrays of ``url`` and each ``Link: rel="next"`` page after it."""
        next_url: str | None = url
        while next_url is not None:
            answer = self.get(next_url, params)
            if not isinstance(answer.data, list):
                raise SyncStopped("malformed_response", f"{url[:200]}: not a JSON array")
            yield answer.data
            next_url, params = answer.next_url, None

    def send_json(self, method: str, url: str, body: Mapping[str, Any]) -> Any:
        """POST or PATCH a JSON body; the decoded answer."""
        return self._json(self._send(method, self.own(url), json=dict(body)))

    def own(self, url: str) -> str:
        """``url`` if it is relative or under ``api_url`` (a ``Link`` or ``comments_url`` of
        another host would receive the token), else :class:`SyncStopped`."""
        if "://" not in url:
            return url
        root = self.tracker.api_url
        if url == root or url.startswith(root + "/") or url.startswith(root + "?"):
            return url
        raise SyncStopped("foreign_url", f"{url[:200]} is not under {root}")

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise SyncStopped(
                "malformed_response", f"{response.request.url.path}: the answer is not JSON"
            ) from None

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", None) or {})
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if self._blocked_until is not None:
                self._wait_until(self._blocked_until, "the rate limit is spent")
                self._blocked_until = None
            token = self.tracker.token()  # at each request: never kept beyond this call
            if token:
                headers["Authorization"] = f"Bearer {token}"
            self.stats.requests += 1
            try:
                response = self._client.request(method, url, headers=headers, **kwargs)
            except httpx.TransportError as error:
                self._retry_or_stop(attempt, "network_error", type(error).__name__)
                continue
            self._note_limits(response)
            status = response.status_code
            if status < 300 or status == 304:
                return response
            if status in (403, 429) and self._limited(response):
                if attempt == MAX_ATTEMPTS:
                    raise SyncStopped("rate_limited", f"HTTP {status} after {attempt} attempts")
                continue
            if status >= 500:
                self._retry_or_stop(attempt, "server_error", f"HTTP {status}")
                continue
            reason = {401: "unauthorized", 403: "forbidden", 404: "not_found"}.get(
                status, "http_error"
            )
            path = response.request.url.path
            raise SyncStopped(reason, f"HTTP {status} {path}: {self._message(response)}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry_or_stop(self, attempt: int, reason: str, what: str) -> None:
        problem = f"{reason}: {what}"
        self.stats.problems.append(problem)
        if attempt == MAX_ATTEMPTS:
            raise SyncStopped(reason, f"{problem} (after {attempt} attempts)")
        wait = min(BACKOFF_S[attempt - 1], self.tracker.max_wait_s)
        self._wait_until(self.clock.now() + wait, problem, stop_reason=reason)
        self.stats.retries += 1

    def _limited(self, response: httpx.Response) -> bool:
        """A rate-limit answer: wait for it (True: retry) or stop; False: not a rate limit."""
        until = _limit_until(response.headers, self.clock.now(), response.status_code)
        if until is None:
            return False
        self.stats.problems.append(f"rate_limited: HTTP {response.status_code}")
        self._wait_until(until, f"HTTP {response.status_code} rate limit")
        self.stats.retries += 1
        return True

    def _note_limits(self, response: httpx.Response) -> None:
        remaining = _int(response.headers.get("X-RateLimit-Remaining"))
        if remaining is not None:
            self.stats.rate_limit_remaining = remaining
        reset = _int(response.headers.get("X-RateLimit-Reset"))
        if remaining == 0 and reset is not None and response.status_code < 300:
            self._blocked_until = float(reset)

    def _wait_until(self, until: float, why: str, *, stop_reason: str = "rate_limited") -> None:
        now = self.clock.now()
        wait = max(0.0, until - now)
        too_long = wait > self.tracker.max_wait_s
        if too_long or (self.deadline is not None and now + wait > self.deadline):
            limit = "max_wait_s" if too_long else "this sync's time budget"
            raise SyncStopped(
                stop_reason, f"{why}: a wait of {wait:.0f} s is longer than {limit}", until
            )
        if wait:
            self.stats.waits_s.append(wait)
            self.clock.sleep(wait)

    def _message(self, response: httpx.Response) -> str:
        try:
            data = response.json()
        except ValueError:
            data = None
        message = data.get("message") if isinstance(data, dict) else None
        text = str(message)[:_MESSAGE_CHARS] if message else "(no message)"
        token = self.tracker.token()
        return text.replace(token, "***") if token else text


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _limit_until(headers: httpx.Headers, now: float, status: int) -> float | None:
    """When a rate-limited request may be sent again (None: the answer is no rate limit)."""
    retry_after = headers.get("Retry-After")
    if retry_after is not None:
        seconds = _int(retry_after.strip())
        if seconds is not None:
            return now + max(0, seconds)
        try:
            return parsedate_to_datetime(retry_after).timestamp()
        except (TypeError, ValueError):
            pass
    reset = _int(headers.get("X-RateLimit-Reset"))
    if headers.get("X-RateLimit-Remaining") == "0" and reset is not None:
        return float(reset)
    return now + SECONDARY_LIMIT_WAIT_S if status == 429 else None


def _next(response: httpx.Response) -> str | None:
    """The ``rel="next"`` URL of the ``Link`` header (httpx parses it)."""
    link = response.links.get("next")
    url = link.get("url") if link else None
    return url or None
