"""The ledger of an accounting: its findings and the files something vouches for, the step
runner that turns an unreadable file into a finding, and what the accounting of one revision has
read so far (shared by the modules of :mod:`vba_assets.pipeline.integrity`)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from vba_assets.domain.findings import Finding, Severity
from vba_assets.domain.frozen_inputs import InterpretationInput, ResolutionInput
from vba_assets.domain.llm.contract import DispatchRecord
from vba_assets.domain.protocol import ProtocolSpec
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, VbaError
from vba_assets.store import CasePackage
from vba_assets.store.events import EventLog
from vba_assets.store.layout import RevisionLayout


@dataclass
class Ledger:
    """Findings, and the files something vouches for (everything else is unreferenced)."""

    package: CasePackage
    findings: list[Finding] = field(default_factory=list)
    accounted: set[str] = field(default_factory=set)

    def add(
        self,
        code: ErrorCode,
        artifact: str | None,
        message: str,
        *,
        subject: str | None = None,
        severity: Severity = "error",
    ) -> None:
        self.findings.append(
            Finding(
                code=code, artifact=artifact, message=message, subject=subject, severity=severity
            )
        )

    def sha(self, relpath: str) -> str | None:
        """sha256 of a file of the package, or None when it does not exist."""
        try:
            return (
                self.package.artifact_ref(relpath).sha256 if self.package.exists(relpath) else None
            )
        except VbaError:
            return None

    def json(self, relpath: str, what: str) -> Any:
        """The parsed (canonical) JSON at ``relpath``; a finding and None when it cannot be read."""
        try:
            return self.package.read_json(relpath)
        except VbaError as exc:
            if exc.code is ErrorCode.ARTIFACT_MISSING:
                self.add(ErrorCode.PACKAGE_FILE_MISSING, relpath, f"{what} does not exist")
            else:
                self.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, relpath, f"{what}: {exc.message}")
            return None

    def model(self, relpath: str, model: Any, what: str) -> Any:
        """``model`` validated from the JSON at ``relpath``; a finding and None when it is not."""
        doc = self.json(relpath, what)
        if doc is None:
            return None
        try:
            return model.model_validate(doc)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = "/".join(str(part) for part in error["loc"]) or "<root>"
            self.add(
                ErrorCode.PACKAGE_ARTIFACT_INVALID,
                relpath,
                f"{what} is malformed: {where}: {error['msg']}",
            )
            return None


def safely(ledger: Ledger, where: str, step: Callable[[], None]) -> None:
    """Run one accounting step; anything it could not read is a finding, never a crash."""
    try:
        step()
    except (VbaError, ValidationError, ValueError, KeyError, TypeError, AttributeError) as exc:
        message = exc.message if isinstance(exc, VbaError) else f"{type(exc).__name__}: {exc}"
        ledger.add(ErrorCode.PACKAGE_ARTIFACT_INVALID, where, f"cannot be accounted for: {message}")


@dataclass
class Revision:
    """What the accounting of one revision has read so far."""

    layout: RevisionLayout
    files: set[str]
    log: EventLog | None = None
    #: The report version the revision freezes (its ``created`` event; ``0001`` without).
    report_version: str = "0001"
    frozen: InterpretationInput | None = None
    spec: ProtocolSpec | None = None
    resolution: ResolutionInput | None = None
    records: dict[tuple[Stage, int], DispatchRecord] = field(default_factory=dict)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [] if self.log is None else self.log.records

    def named(self, event: str, key: str, value: object) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == event and e.get(key) == value]


def check_bound(ledger: Ledger, line: str, event: dict[str, Any], bound: dict[str, str]) -> None:
    """Each ``key -> path`` of ``bound``: the event's ``key`` is the sha256 the file has now."""
    for key, path in bound.items():
        if event.get(key) != ledger.sha(path):
            ledger.add(
                ErrorCode.PACKAGE_HASH_REFERENCE_MISMATCH,
                path,
                f"{line} records {key} {event.get(key)}, the file has {ledger.sha(path)}",
            )
