"""Real child processes for the store tests (see child_worker.py)."""

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

CHILD = Path(__file__).with_name("child_worker.py")
#: Safety net so a broken lock makes the test fail instead of hanging; never a timing assertion.
CHILD_TIMEOUT = 60


class Child:
    """A running child_worker.py process with line-oriented JSON output."""

    def __init__(self, args: list[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(CHILD), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def read_message(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=CHILD_TIMEOUT)
            stderr = self.process.stderr.read() if self.process.stderr else ""
            raise AssertionError(f"child exited {self.process.returncode} early:\n{stderr}")
        message: dict[str, Any] = json.loads(line)
        return message

    def sigkill(self) -> int:
        self.process.send_signal(signal.SIGKILL)
        return self.process.wait(timeout=CHILD_TIMEOUT)

    def finish(self) -> tuple[int, str]:
        stdout, stderr = self.process.communicate(timeout=CHILD_TIMEOUT)
        assert self.process.returncode is not None
        return self.process.returncode, stdout + stderr

    def cleanup(self) -> None:
        if self.process.poll() is None:
            self.sigkill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def run_to_completion(root: Path, command: str, *args: object) -> dict[str, Any]:
    """Run a child to completion and return its last JSON message."""
    completed = subprocess.run(
        [sys.executable, str(CHILD), command, str(root), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    message: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return message
