"""The six stages of one revision, in order (ARCHITECTURE 2). The one place their names live.

Each stage is a Dagster asset (``vba_assets/defs``), a step of ``vba trial run`` and of replay
(``vba_assets/pipeline/registry.py`` holds what runs, checks and previews each one), and the
``stage`` of a model request. :class:`Stage` values are persisted in artifacts and dispatch file
names: never rename one.
"""

from enum import StrEnum


class Stage(StrEnum):
    CASE = "case"
    RESOLUTION_PLAN = "resolution_plan"
    RESOLUTION_CAPTURES = "resolution_captures"
    CANDIDATE_INDEX = "candidate_index"
    RESOLUTION_ASSESSMENT = "resolution_assessment"
    INTERPRETATION = "interpretation"

    @property
    def calls_model(self) -> bool:
        """Whether the stage sends a model request (plan, assessment, interpretation)."""
        return self in MODEL_STAGES

    @property
    def is_resolution(self) -> bool:
        """Whether the stage belongs to entity resolution (disabled without its config block)."""
        return self in RESOLUTION_STAGES


#: Every stage, in pipeline order.
STAGES: tuple[Stage, ...] = tuple(Stage)
#: The stages that send model requests, in pipeline order.
MODEL_STAGES: tuple[Stage, ...] = (
    Stage.RESOLUTION_PLAN,
    Stage.RESOLUTION_ASSESSMENT,
    Stage.INTERPRETATION,
)
#: The four stages that record ``disabled`` without an ``[entity_resolution]`` block.
RESOLUTION_STAGES: tuple[Stage, ...] = (
    Stage.RESOLUTION_PLAN,
    Stage.RESOLUTION_CAPTURES,
    Stage.CANDIDATE_INDEX,
    Stage.RESOLUTION_ASSESSMENT,
)

#: Where ``vba trial run --stop-after`` (and ``vba eval``) may stop, and the last stage each runs.
STOP_POINTS: dict[str, Stage] = {
    "case": Stage.CASE,
    "resolution": Stage.RESOLUTION_ASSESSMENT,
    "interpretation": Stage.INTERPRETATION,
}
