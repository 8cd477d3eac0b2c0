"""Headless Chromium driven over the DevTools protocol (a local websocket), for the e2e tests.

The Dagster UI is a single-page app: the server sends an empty shell and JavaScript renders every
page from GraphQL, so ``--dump-dom`` would depend on a guessed virtual-time budget. Driving the page
over DevTools lets a test wait for the text it expects (bounded) and take a screenshot of exactly
that state. Only the Debian ``chromium`` package is needed; no browser download.
"""

import base64
import contextlib
import itertools
import json
import os
import signal
import struct
import subprocess
import time
import zlib
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests.e2e.dagster_dev import terminate_with_parent

CHROMIUM = Path("/usr/bin/chromium")

#: Measured on this machine's closed network (ARCHITECTURE 14): without the background-networking
#: flags Chromium's own connections are refused and it stalls.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

VIEWPORT = (1400, 1000)


class PageTextTimeout(AssertionError):
    """The page never showed every expected text; the message holds what it did show."""


class Chromium:
    """One headless Chromium with one page, controlled over DevTools.

    Args:
        profile_dir: a fresh ``--user-data-dir`` (created; Chromium writes its DevTools port there).
        log_path: where Chromium's stdout/stderr go.
    """

    def __init__(self, profile_dir: Path, log_path: Path, binary: Path = CHROMIUM) -> None:
        self.profile_dir = profile_dir
        self.log_path = log_path
        self.binary = binary
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: ClientConnection | None = None
        self._closing = contextlib.ExitStack()
        self._session = ""
        self._ids = itertools.count(1)

    def start(self, timeout_s: float = 60.0) -> "Chromium":
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        port_file = self.profile_dir / "DevToolsActivePort"
        port_file.unlink(missing_ok=True)
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                [
                    str(self.binary),
                    *CHROMIUM_FLAGS,
                    f"--user-data-dir={self.profile_dir}",
                    "--remote-debugging-address=127.0.0.1",
                    "--remote-debugging-port=0",
                    "about:blank",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=terminate_with_parent,
            )
        deadline = time.monotonic() + timeout_s
        while True:
            lines = port_file.read_text().splitlines() if port_file.exists() else []
            if len(lines) >= 2:
                break
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"Chromium did not open its DevTools port (exit code {self._process.poll()}); "
                    f"see {self.log_path}"
                )
            time.sleep(0.1)
        port, path = lines[0].strip(), lines[1].strip()
        self._socket = self._closing.enter_context(
            connect(f"ws://127.0.0.1:{port}{path}", max_size=64 * 2**20, open_timeout=timeout_s)
        )
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        width, height = VIEWPORT
        self._page(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        return self

    def _send(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        if self._socket is None:
            raise RuntimeError("Chromium was not started")
        message_id = next(self._ids)
        self._socket.send(json.dumps({"id": message_id, **message}))
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"DevTools {message['method']} did not answer")
            reply = json.loads(self._socket.recv(timeout=remaining))
            if reply.get("id") != message_id:
                continue  # an event, or the answer to an abandoned call
            if "error" in reply:
                raise RuntimeError(f"DevTools {message['method']}: {reply['error']}")
            result: dict[str, Any] = reply.get("result", {})
            return result

    def _call(self, method: str, timeout_s: float = 30.0, **params: Any) -> dict[str, Any]:
        return self._send({"method": method, "params": params}, timeout_s)

    def _page(self, method: str, timeout_s: float = 30.0, **params: Any) -> dict[str, Any]:
        return self._send(
            {"method": method, "params": params, "sessionId": self._session}, timeout_s
        )

    def open(self, url: str) -> None:
        """Navigate the page to ``url`` (returns once navigation started)."""
        result = self._page("Page.navigate", url=url)
        if result.get("errorText"):
            raise RuntimeError(f"cannot open {url}: {result['errorText']}")

    def text(self) -> str:
        """The rendered text of the page (``document.body.innerText``)."""
        result = self._page(
            "Runtime.evaluate",
            expression="document.body ? document.body.innerText : ''",
            returnByValue=True,
        )
        value = result.get("result", {}).get("value", "")
        return value if isinstance(value, str) else ""

    def wait_for_text(self, *expected: str, timeout_s: float = 60.0) -> str:
        """Poll the rendered text until it contains every ``expected`` string; return it.

        Raises:
            PageTextTimeout: with the missing strings and the text the page showed last.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            text = self.text()
            missing = [needle for needle in expected if needle not in text]
            if not missing:
                return text
            if time.monotonic() > deadline:
                raise PageTextTimeout(
                    f"after {timeout_s:.0f} s the page still lacks {missing}; it shows:\n"
                    f"{text[:3000]}"
                )
            time.sleep(0.5)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises are awaited)."""
        result = self._page(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript failed: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def click(self, selector: str, text: str, timeout_s: float = 30.0) -> None:
        """Click (real mouse events at its centre) the first visible ``selector`` element whose
        text starts with ``text``; wait for it to appear, be enabled and stop moving (bounded).

        The position must read the same twice, 0.3 s apart: the UI renders parts of a dialog as
        their data arrives, and a click computed before such a layout shift lands on whatever moved
        under it (a CI run clicked the launch dialog's "All" instead of its partition selector).
        """
        finder = (
            "((selector, text) => { const e = Array.from(document.querySelectorAll(selector))"
            ".find(e => e.offsetParent !== null && !e.disabled && e.innerText"
            " && e.innerText.trim().startsWith(text)); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2];"
            f" }})({json.dumps(selector)}, {json.dumps(text)})"
        )
        deadline = time.monotonic() + timeout_s
        previous = None
        while (position := self.evaluate(finder)) is None or position != previous:
            if time.monotonic() > deadline:
                state = "never appeared" if position is None else f"kept moving ({position})"
                raise PageTextTimeout(
                    f"no enabled {selector} showing {text!r} at rest after {timeout_s:.0f} s "
                    f"({state}); the page shows:\n{self.text()[:3000]}"
                )
            previous = position
            time.sleep(0.3)
        x, y = position
        for kind in ("mousePressed", "mouseReleased"):
            self._page("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def wait_for_focus(self, selector: str, timeout_s: float = 30.0) -> None:
        """Wait (bounded) until the focused element matches ``selector``, so typed text lands
        there and not on whatever had the focus before a popover opened."""
        probe = f"document.activeElement?.matches({json.dumps(selector)}) ?? false"
        deadline = time.monotonic() + timeout_s
        while not self.evaluate(probe):
            if time.monotonic() > deadline:
                raise PageTextTimeout(
                    f"no element matching {selector!r} had the focus after {timeout_s:.0f} s; the "
                    f"page shows:\n{self.text()[:3000]}"
                )
            time.sleep(0.2)

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused element (as keyboard input)."""
        self._page("Input.insertText", text=text)

    def screenshot(self, path: Path) -> Path:
        """Save a PNG of the viewport to ``path``."""
        data = self._page("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def stop(self) -> None:
        if self._socket is not None:
            # The browser may close the socket before it answers.
            with contextlib.suppress(Exception):
                self._call("Browser.close", timeout_s=5)
            self._closing.close()
            self._socket = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)
            # The group is ours alone (new session): end any helper left behind.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait(timeout=10)
            self._process = None

    def __enter__(self) -> "Chromium":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def png_summary(path: Path) -> tuple[int, int, int]:
    """``(width, height, distinct byte values in the pixel data)`` of an 8-bit PNG.

    A blank or single-colour page decodes to only a handful of distinct values; a rendered UI
    page (text, icons, anti-aliasing) to well over a hundred.
    """
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    offset, idat = 8, bytearray()
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            idat += data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    pixels = zlib.decompress(bytes(idat))
    return width, height, len(set(pixels))
