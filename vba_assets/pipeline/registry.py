"""The one table of stages: what runs, checks, previews and verifies each stage of a revision.

The Dagster assets (``vba_assets/defs``), ``vba trial run``, replay verification (``vba verify``),
``vba context show``, the CLI's choices and the benchmarks all iterate :data:`STAGE_SPECS`, so a
stage, a check or a verifier is added here once. Adding an asset check: write the function in
:mod:`.checks`, add a :class:`CheckSpec` to its stage below, regenerate the asset-graph snapshot.
"""

from collections.abc import Callable
from dataclasses import dataclass

from vba_assets.domain.stages import Stage
from vba_assets.pipeline import checks, replay_verifiers
from vba_assets.pipeline.checks import Check
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.previews import stage_preview
from vba_assets.pipeline.replay_verifiers import StageVerifier
from vba_assets.pipeline.stage_runs import (
    StageResult,
    StageRun,
    run_assessment,
    run_candidate_index,
    run_captures,
    run_case,
    run_interpretation,
    run_plan,
)


@dataclass(frozen=True)
class CheckSpec:
    """One asset check: evaluated on every partition after its stage ran.

    ``blocking`` checks stop the downstream assets of the run when they fail.
    """

    name: str
    description: str
    evaluate: Check
    blocking: bool = True


@dataclass(frozen=True)
class StageSpec:
    """One stage: its Dagster asset, run function, checks, preview and replay verifiers."""

    stage: Stage
    description: str
    kind: str
    run: Callable[[StageRun], StageResult]
    checks: tuple[CheckSpec, ...] = ()
    verifiers: tuple[tuple[str, StageVerifier], ...] = ()
    preview: Callable[[FrozenRevision, StageResult], str] = stage_preview

    @property
    def name(self) -> str:
        return self.stage.value


STAGE_SPECS: tuple[StageSpec, ...] = (
    StageSpec(
        Stage.CASE,
        "case.json: the deterministic CaseBuilder output with canonical sources S1..Sn.",
        "json",
        run_case,
        checks=(
            CheckSpec(
                "case_sources_readable",
                "case.json is canonical, its hash matches the package record, and at least one "
                "source is readable by the model.",
                checks.check_case_sources,
            ),
        ),
    ),
    StageSpec(
        Stage.RESOLUTION_PLAN,
        "Model call 1: grounded name searches, validated by the controller (plan.json).",
        "json",
        run_plan,
        checks=(
            CheckSpec(
                "plan_grounding",
                "Every term occurs in its cited, readable span.",
                checks.check_plan_grounding,
            ),
            CheckSpec(
                "plan_reply_recorded",
                "plan.json is the reply its accepted dispatch recorded; that request rebuilds byte "
                "for byte from the frozen inputs.",
                checks.check_recorded_reply(Stage.RESOLUTION_PLAN),
            ),
        ),
        verifiers=(
            ("resolution_plan", replay_verifiers.verify_model_stage(Stage.RESOLUTION_PLAN)),
        ),
    ),
    StageSpec(
        Stage.RESOLUTION_CAPTURES,
        "Literal, parameterized contains-searches on the operator catalogs; one "
        "content-addressed capture per search.",
        "sql",
        run_captures,
        checks=(
            CheckSpec(
                "capture_provenance",
                "Hash, SQL template, snapshot binding and row limit of every capture.",
                checks.check_capture_provenance,
            ),
        ),
    ),
    StageSpec(
        Stage.CANDIDATE_INDEX,
        "Deterministic merge and ranking of the captured rows per search.",
        "json",
        run_candidate_index,
        checks=(
            CheckSpec(
                "candidates_recompute",
                "candidates.json recomputes byte for byte from the captures.",
                checks.check_candidate_index,
            ),
        ),
        verifiers=(("candidate_index", replay_verifiers.verify_candidate_index),),
    ),
    StageSpec(
        Stage.RESOLUTION_ASSESSMENT,
        "Model call 2: selected | ambiguous | no_match per search, validated; writes the F/N/D "
        "aliases (context.json).",
        "json",
        run_assessment,
        checks=(
            CheckSpec(
                "selections_cited",
                "Every selection is a real candidate of its search citing its capture row and "
                "mention.",
                checks.check_selections,
            ),
            CheckSpec(
                "no_truncated_selection",
                "No unique selection from a truncated search.",
                checks.check_no_truncated_selection,
            ),
            CheckSpec(
                "assessment_reply_recorded",
                "assessment.json is the reply its accepted dispatch recorded; that request "
                "rebuilds byte for byte from the plan and the candidates.",
                checks.check_recorded_reply(Stage.RESOLUTION_ASSESSMENT),
            ),
        ),
        verifiers=(
            (
                "resolution_assessment",
                replay_verifiers.verify_model_stage(Stage.RESOLUTION_ASSESSMENT),
            ),
            ("context", replay_verifiers.verify_resolution_context),
        ),
    ),
    StageSpec(
        Stage.INTERPRETATION,
        "Model call 3: the final interpretation over the frozen, resolved context.",
        "json",
        run_interpretation,
        checks=(
            CheckSpec(
                "interpretation_retention",
                "Selected entities kept with citations, unresolved identities kept as unknowns, "
                "every citation resolves.",
                checks.check_interpretation_retention,
                blocking=False,  # nothing downstream to protect; a failure still shows in the UI
            ),
            CheckSpec(
                "interpretation_reply_recorded",
                "interpretation.json is the reply its accepted dispatch recorded; that request "
                "rebuilds byte for byte from the frozen context.",
                checks.check_recorded_reply(Stage.INTERPRETATION),
                blocking=False,
            ),
        ),
        verifiers=(("interpretation", replay_verifiers.verify_model_stage(Stage.INTERPRETATION)),),
    ),
)


def stage_spec(stage: Stage) -> StageSpec:
    """The spec of ``stage``."""
    return next(spec for spec in STAGE_SPECS if spec.stage is stage)


def check_specs() -> list[tuple[StageSpec, CheckSpec]]:
    """Every check with its stage, in pipeline order."""
    return [(spec, check) for spec in STAGE_SPECS for check in spec.checks]


def specs_until(last: Stage) -> tuple[StageSpec, ...]:
    """The specs from the first stage up to and including ``last``."""
    position = [spec.stage for spec in STAGE_SPECS].index(last)
    return STAGE_SPECS[: position + 1]
