"""``vba tracker sync`` in a process of its own, killed at its N-th write point.

``python kill_child.py <project.toml> <N>`` runs the sync and ends the process with
``os._exit(137)`` (no cleanup, no ``finally``: what a SIGKILL leaves) just before the N-th call of
``os.link``, ``os.replace`` or ``os.fsync``, the calls by which every file of the store and the
cursor is published and made durable. It exits 0 when the sync ended before reaching N. Fault
injection happens here, by patching this process only; the product code carries no test hooks.
"""

import os
import sys
from collections.abc import Callable
from typing import Any

KILLED = 137


def main(project: str, point: int) -> int:
    count = 0

    def killing(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal count
            count += 1
            if count == point:
                os._exit(KILLED)
            return real(*args, **kwargs)

        return call

    os.link = killing(os.link)  # type: ignore[assignment]
    os.replace = killing(os.replace)  # type: ignore[assignment]
    os.fsync = killing(os.fsync)  # type: ignore[assignment]
    from vba_assets.cli import main as vba

    return vba(["tracker", "sync", "--project-config", project])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
