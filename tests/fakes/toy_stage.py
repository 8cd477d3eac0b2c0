"""A small planning stage for the model-layer tests: an output model, its rules and a fake clock.

It mirrors the shape of the real resolution plan (searches with a term that must occur in the
report) without depending on the stage modules, so the model layer is tested on its own.
"""

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vba_assets.domain.findings import Finding
from vba_assets.domain.llm.contract import (
    ModelRequest,
    build_request,
    model_validator_for,
)
from vba_assets.domain.llm.schemas import SchemaDialect
from vba_assets.domain.protocol import ProtocolVersion
from vba_assets.errors import ErrorCode

REPORT = "I can't find the Wild Wolpertinger for Goldark's quest."
SYSTEM = "You plan grounded name searches for a bug report. Propose terms quoted from the report."
MODEL = "claude-test-model"
STAGE = "resolution_plan"
TOOL = f"submit_{STAGE}"


class Search(BaseModel):
    model_config = ConfigDict(extra="forbid")

    term: str = Field(min_length=1, max_length=60)
    catalog: Literal["creature_name", "creature_localized_name"]


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    searches: list[Search] = Field(min_length=1, max_length=4)


def plan_rules(plan: Plan) -> list[Finding]:
    return [
        Finding(
            code=ErrorCode.LLM_OUTPUT_RULES,
            path=f"/searches/{index}/term",
            message=f"the term {search.term!r} does not occur in the report",
        )
        for index, search in enumerate(plan.searches)
        if search.term not in REPORT
    ]


validate_plan = model_validator_for(Plan, plan_rules)

GOOD_PLAN: dict[str, Any] = {
    "searches": [{"term": "Wild Wolpertinger", "catalog": "creature_name"}]
}
MISSING_CATALOG: dict[str, Any] = {"searches": [{"term": "Wild Wolpertinger"}]}
INVENTED_TERM: dict[str, Any] = {
    "searches": [{"term": "Wolpertinger King", "catalog": "creature_name"}]
}


def plan_request(
    protocol_version: ProtocolVersion = 2,
    *,
    system: str = SYSTEM,
    model: str = MODEL,
    stage: str = STAGE,
    dialect: SchemaDialect = "json_schema",
) -> ModelRequest:
    return build_request(
        stage,
        protocol_version,
        system,
        f"Report S1:\n{REPORT}",
        Plan,
        model=model,
        max_tokens=1024,
        temperature=0.0,
        stage_context={"sources": {"S1": REPORT}},
        dialect=dialect,
    )


class FakeClock:
    """An injectable clock; ``sleep`` records the wait and advances time instead of sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 10, 15, 12, 0, tzinfo=UTC)
        self.sleeps: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += timedelta(seconds=seconds)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
