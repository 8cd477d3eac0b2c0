"""CPU seconds of every process of one session, sampled from ``/proc`` (``bench/throughput.py``).

A process that exits between two samples keeps its last sample, so the total is a slight undercount.
"""

import os
import threading

SAMPLE_INTERVAL_S = 0.2


class SessionCpu:
    """CPU seconds used by every process of one session since :meth:`start` (sampled)."""

    def __init__(self, session: int) -> None:
        self.session = session
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.baseline: dict[tuple[int, int], float] = {}
        self.latest: dict[tuple[int, int], float] = {}
        self.kinds: dict[tuple[int, int], str] = {}
        self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _scan(self) -> dict[tuple[int, int], float]:
        found = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # after the command: state(0) ppid pgrp session(3) ... utime(11) stime(12) ... start(19)
            if int(fields[3]) != self.session:
                continue
            key = (int(entry.name), int(fields[19]))
            found[key] = (int(fields[11]) + int(fields[12])) / self.ticks
            if key not in self.kinds:
                self.kinds[key] = _process_kind(entry.name)
        return found

    def _run(self) -> None:
        while not self._stop.is_set():
            self.latest.update(self._scan())
            self._stop.wait(SAMPLE_INTERVAL_S)

    def start(self) -> None:
        self.baseline = self._scan()
        self.latest = dict(self.baseline)
        self._thread.start()

    def stop(self) -> float:
        self.latest.update(self._scan())
        self._stop.set()
        self._thread.join()
        self.processes = len(set(self.latest) - set(self.baseline))
        return sum(self.by_kind().values())

    def by_kind(self) -> dict[str, float]:
        """CPU seconds per kind of process (run processes, daemon, webserver, code server)."""
        totals: dict[str, float] = {}
        for key, cpu in self.latest.items():
            kind = self.kinds.get(key, "other")
            totals[kind] = totals.get(kind, 0.0) + cpu - self.baseline.get(key, 0.0)
        return totals


def _process_kind(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return "other"
    for marker, kind in (
        ("multiprocessing", "run_processes"),
        ("execute_run", "run_processes"),
        ("dagster_webserver", "webserver"),
        ("_daemon run", "daemon"),
        ("dagster-daemon", "daemon"),
        ("api grpc", "code_server"),
        ("code-server", "code_server"),
        (" dev ", "dagster_dev"),
    ):
        if marker in command:
            return kind
    return "other"
