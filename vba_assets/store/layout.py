"""The case package contract in one place: where every file of a case and of a revision lives.

```
<workspace>/cases/<CASE-ID>/
  package.json  report/...  case.json         report version 0001 (the first import)
  reports/<VVVV>/                             report version VVVV >= 0002 (an edited issue)
    report/...  case.json  version.json       version.json written last (it completes the version)
  analysis/interpretations/<NNNN>/            RevisionLayout.dir
    input.json  events.jsonl  interpretation.json
    dispatches/interpretation-<n>.json (+ .manifest.json)   rejected/interpretation-<n>.json
    entity-resolution/                        RevisionLayout.er_dir
      input.json  plan.json  candidates.json  assessment.json  context.json
      captures/<sha256>.json
      dispatches/<stage>-<n>.json (+ .manifest.json)        rejected/<stage>-<n>.json
```

Every path is package-relative POSIX (what :class:`~vba_assets.store.package.CasePackage` takes).
Code and tests build paths through :class:`RevisionLayout`, never by hand.
"""

from dataclasses import dataclass

from vba_assets.domain.case.ids import validate_revision
from vba_assets.domain.stages import Stage

PACKAGE_JSON = "package.json"
CASE_JSON = "case.json"
REPORT_DIR = "report"
INTERPRETATIONS_DIR = "analysis/interpretations"
EVENTS_FILE = "events.jsonl"
MANIFEST_SUFFIX = ".manifest.json"
#: Report versions after the first: ``reports/<VVVV>/`` (version 0001 is the top-level files).
REPORTS_DIR = "reports"
VERSION_FILE = "version.json"
#: The first report version: ``package.json``, ``report/...`` and ``case.json`` as imported.
FIRST_REPORT_VERSION = "0001"


def case_json(version: str) -> str:
    """The ``case.json`` of report version ``version`` (``case.json`` for ``0001``, else
    ``reports/<VVVV>/case.json``): the one place every reader of a case's case.json asks."""
    validate_revision(version)  # a version number has a revision's syntax: NNNN
    return CASE_JSON if version == FIRST_REPORT_VERSION else f"{version_dir(version)}/{CASE_JSON}"


def version_dir(version: str) -> str:
    """``reports/<VVVV>`` (``""``, the package root, for ``0001``)."""
    validate_revision(version)
    return "" if version == FIRST_REPORT_VERSION else f"{REPORTS_DIR}/{version}"


def version_report_dir(version: str) -> str:
    """Where the raw report files of ``version`` are kept (``report`` for ``0001``)."""
    folder = version_dir(version)
    return f"{folder}/{REPORT_DIR}" if folder else REPORT_DIR


def version_record(version: str) -> str:
    """The record of ``version``: ``package.json`` for ``0001``, else its ``version.json``."""
    folder = version_dir(version)
    return f"{folder}/{VERSION_FILE}" if folder else PACKAGE_JSON


@dataclass(frozen=True)
class RevisionLayout:
    """The paths of one revision (``revision`` is validated: ``NNNN``)."""

    revision: str

    def __post_init__(self) -> None:
        validate_revision(self.revision)

    # -- the revision folder ----------------------------------------------------------------------

    @property
    def dir(self) -> str:
        return f"{INTERPRETATIONS_DIR}/{self.revision}"

    @property
    def input(self) -> str:
        """The frozen interpretation input (``input.json``)."""
        return f"{self.dir}/input.json"

    @property
    def events(self) -> str:
        return f"{self.dir}/{EVENTS_FILE}"

    @property
    def interpretation(self) -> str:
        return f"{self.dir}/interpretation.json"

    # -- entity resolution ------------------------------------------------------------------------

    @property
    def er_dir(self) -> str:
        return f"{self.dir}/entity-resolution"

    @property
    def er_input(self) -> str:
        """The frozen entity-resolution input and policy."""
        return f"{self.er_dir}/input.json"

    @property
    def plan(self) -> str:
        return f"{self.er_dir}/plan.json"

    @property
    def captures_dir(self) -> str:
        return f"{self.er_dir}/captures"

    def capture(self, sha256: str) -> str:
        return f"{self.captures_dir}/{sha256}.json"

    @property
    def candidates(self) -> str:
        return f"{self.er_dir}/candidates.json"

    @property
    def assessment(self) -> str:
        return f"{self.er_dir}/assessment.json"

    @property
    def context(self) -> str:
        """The F/N/D aliases of the accepted assessment."""
        return f"{self.er_dir}/context.json"

    # -- per stage --------------------------------------------------------------------------------

    def artifact(self, stage: Stage) -> str | None:
        """The artifact whose sha256 is the stage's data version (None: captures, a manifest)."""
        return {
            Stage.CASE: CASE_JSON,
            Stage.RESOLUTION_PLAN: self.plan,
            Stage.CANDIDATE_INDEX: self.candidates,
            Stage.RESOLUTION_ASSESSMENT: self.assessment,
            Stage.INTERPRETATION: self.interpretation,
        }.get(stage)

    def stage_dir(self, stage: Stage) -> str:
        """Where a stage keeps its dispatch and rejected records."""
        return self.er_dir if stage.is_resolution else self.dir

    def dispatches_dir(self, stage: Stage) -> str:
        return f"{self.stage_dir(stage)}/dispatches"

    def rejected_dir(self, stage: Stage) -> str:
        return f"{self.stage_dir(stage)}/rejected"

    def dispatch(self, stage: Stage, attempt: int) -> str:
        return f"{self.stage_dir(stage)}/{dispatch_name(stage, attempt)}"

    def rejected(self, stage: Stage, attempt: int) -> str:
        return f"{self.rejected_dir(stage)}/{stage.value}-{attempt}.json"

    def manifest(self, stage: Stage, attempt: int) -> str:
        """The context manifest of one dispatch, beside its record."""
        return manifest_of(self.dispatch(stage, attempt))

    def relative(self, relpath: str) -> str:
        """``relpath`` relative to the revision folder (``case.json`` stays package-relative)."""
        return relpath.removeprefix(f"{self.dir}/")


def dispatch_name(stage: Stage, attempt: int) -> str:
    """``dispatches/<stage>-<n>.json``: a dispatch record relative to its stage folder (what an
    accepted artifact's ``accepted_dispatch`` names)."""
    return f"dispatches/{stage.value}-{attempt}.json"


def manifest_of(dispatch_relpath: str) -> str:
    """``.../dispatches/<stage>-<n>.json`` -> ``.../dispatches/<stage>-<n>.manifest.json``."""
    return dispatch_relpath.removesuffix(".json") + MANIFEST_SUFFIX
