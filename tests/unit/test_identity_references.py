"""Identity references and unsearched names (protocol v4, ARCHITECTURE 6.1): rules, candidates,
D aliases, capture provenance and the v1-v3 schema that stays as it was."""

from typing import Any

import pytest

from vba_assets.domain.catalog.identity_digits import holds_identity
from vba_assets.domain.catalog.matching import MatchTier
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding
from vba_assets.domain.llm.schemas import provider_schema
from vba_assets.domain.prompting.requests import plan_validator
from vba_assets.domain.protocol import protocol
from vba_assets.domain.resolution.captures import identity_capture_findings
from vba_assets.domain.resolution.context import build_candidate_index, build_resolution_context
from vba_assets.domain.resolution.legacy import ResolutionPlanOutput as LegacyPlan
from vba_assets.domain.resolution.links import agrees_with, report_words, slugs
from vba_assets.domain.resolution.models import (
    CaptureArtifact,
    ResolutionAssessmentOutput,
    ResolutionPlanOutput,
)
from vba_assets.domain.resolution.rules import validate_assessment, validate_plan
from vba_assets.errors import ErrorCode

V3, V4 = protocol(3), protocol(4)
URL = "https://www.wowhead.com/npc=23487/wild-wolpertinger"
BODY = (
    f"I can't catch any [Wild Wolpertinger]({URL}) for Goldark's quest.\n"
    "Goldark Snipehunter (https://www.wowhead.com/npc=3432) sent me. Thrall is fine."
)
CASE: dict[str, Any] = {
    "sources": [
        {"alias": "S1", "readable": True, "text": "Wolpertinger missing"},
        {"alias": "S2", "readable": True, "text": BODY},
    ]
}
CATALOGS = [
    CatalogConfig(
        name="creature_name",
        entity_type="creature",
        table="creature_template",
        identity_column="entry",
        name_column="name",
    )
]
SNAPSHOT = SnapshotBinding(label="t", backend="sqlite", schema_fingerprint="0" * 64)


def span(quote: str, occurrence: int = 0) -> dict[str, Any]:
    start = -1
    for _ in range(occurrence + 1):
        start = BODY.index(quote, start + 1)
    return {"source": "S2", "quote": quote, "start": start, "end": start + len(quote)}


def linked(term: str, identity: int, link: str, role: str = "affected_subject") -> dict[str, Any]:
    return {
        "term": term,
        "catalog": "creature_name",
        "role": role,
        "mentions": [span(term)],
        "reference": {"identity": identity, "link": span(link)},
    }


WILD = linked("Wild Wolpertinger", 23487, URL)
#: The report calls it Goldark Snipehunter, but links 3432 (Mankrik): the link disagrees.
GOLDARK = linked(
    "Goldark Snipehunter", 3432, "https://www.wowhead.com/npc=3432", role="quest_giver"
)


def plan_of(*searches: dict[str, Any], unsearched: list[Any] | None = None) -> ResolutionPlanOutput:
    data: dict[str, Any] = {"searches": list(searches)}
    if unsearched is not None:
        data["unsearched"] = unsearched
    return ResolutionPlanOutput.model_validate(data)


def codes(plan: ResolutionPlanOutput, spec: Any = V4) -> list[str]:
    return [f.code.value for f in validate_plan(plan, CASE, CATALOGS, 4, spec)]


# --- plan ------------------------------------------------------------------------------------


def test_a_grounded_identity_reference_passes() -> None:
    assert codes(plan_of(WILD, GOLDARK)) == []


def test_the_link_must_hold_the_identity_as_a_whole_number() -> None:
    wrong = {**WILD, "reference": {"identity": 2348, "link": span(URL)}}  # a prefix of 23487
    assert codes(plan_of(wrong)) == ["PLAN_REFERENCE_NOT_IN_LINK"]
    assert codes(plan_of(wrong), V3) == []  # the rule is protocol 4's
    assert holds_identity(URL, 23487) and not holds_identity(URL, 2348)


def test_the_link_is_grounded_like_a_mention() -> None:
    moved = {**WILD, "reference": {"identity": 23487, "link": {**span(URL), "start": 3}}}
    assert codes(plan_of(moved)) == ["CITATION_SPAN_MISMATCH"]


def test_one_identity_per_term_and_catalog() -> None:
    same_term_other_id = {**GOLDARK, "term": "Wild Wolpertinger", "mentions": [span("Wild")]}
    assert "PLAN_DUPLICATE_SEARCH" not in codes(plan_of(WILD, same_term_other_id))
    assert "PLAN_DUPLICATE_SEARCH" in codes(plan_of(WILD, WILD))


def test_unsearched_names_are_grounded_too() -> None:
    fine = [{"term": "Thrall", "mentions": [span("Thrall")], "role": "other_context"}]
    assert codes(plan_of(WILD, unsearched=fine)) == []
    wrong = [{"term": "Jaina", "mentions": [span("Thrall")], "role": "other_context"}]
    assert codes(plan_of(WILD, unsearched=wrong)) == ["PLAN_TERM_NOT_IN_QUOTE"]


def test_protocols_1_to_3_keep_their_plan_schema_and_refuse_references() -> None:
    legacy = provider_schema(LegacyPlan)
    assert "reference" not in str(legacy) and "unsearched" not in str(legacy)
    assert "reference" in str(provider_schema(ResolutionPlanOutput))
    old = plan_validator(CASE, CATALOGS, 4, V3)({"searches": [WILD]})
    assert isinstance(old, list) and old[0].code is ErrorCode.LLM_OUTPUT_SCHEMA
    new = plan_validator(CASE, CATALOGS, 4, V4)({"searches": [WILD]})
    assert isinstance(new, ResolutionPlanOutput) and new.searches[0].reference is not None
    plain = plan_validator(CASE, CATALOGS, 4, V3)({"searches": [{**WILD, "reference": None}]})
    assert isinstance(plain, list)  # an explicit null is still a field v1-v3 do not have
    # an older plan's JSON is unchanged by the new fields
    without = plan_of({k: v for k, v in WILD.items() if k != "reference"})
    assert "reference" not in without.model_dump(mode="json")["searches"][0]
    assert "unsearched" not in without.model_dump(mode="json")


# --- candidates, assessment and D aliases --------------------------------------------------------


def identity_capture(search: dict[str, Any], rows: list[tuple[int, str]]) -> CaptureArtifact:
    identity = search["reference"]["identity"]
    result = SearchResult(
        catalog="creature_name",
        entity_type="creature",
        catalog_kind="name",
        term=search["term"],
        sql="SELECT entry, name FROM creature_template WHERE entry = ? ORDER BY name",
        parameters={"identity": identity},
        snapshot=SNAPSHOT,
        row_limit=8,
        truncated=False,
        rows=[CatalogRow(identity=i, name=n) for i, n in rows],
        coverage_notes=["fetch by identity"],
        identity=identity,
    )
    return CaptureArtifact.model_validate(
        {"schema_version": 2, "search_id": "", "search": search, "result": result.model_dump()}
    )


def resolved(verdicts: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    plan = plan_of(WILD, GOLDARK)
    captures = [
        ("a" * 64, identity_capture(WILD, [(23487, "Wild Wolpertinger")])),
        ("b" * 64, identity_capture(GOLDARK, [(3432, "Mankrik")])),
    ]
    captures = [
        (sha, cap.model_copy(update={"search_id": f"Q{n}"}))
        for n, (sha, cap) in enumerate(captures, start=1)
    ]
    index = build_candidate_index(plan, captures)
    assessment = ResolutionAssessmentOutput.model_validate({"assessments": verdicts})
    return plan, index, assessment


def select(search_id: str, quote: str) -> dict[str, Any]:
    return {
        "search_id": search_id,
        "status": "selected",
        "candidate_id": f"{search_id}-C1",
        "capture": f"F{search_id[1:]}",
        "capture_row": 0,
        "mention": span(quote),
        "evidence": [{"source": "S2", "quote": BODY.splitlines()[int(search_id[1:]) - 1]}],
        "rationale": "r",
    }


AMBIGUOUS = {
    "search_id": "Q2",
    "status": "ambiguous",
    "competing_candidate_ids": ["Q2-C1"],
    "rationale": "the link names someone else",
}


def test_a_linked_identity_whose_name_agrees_is_selected() -> None:
    plan, index, assessment = resolved([select("Q1", "Wild Wolpertinger"), AMBIGUOUS])
    assert validate_assessment(assessment, index, plan, CASE, V4) == []
    (wild,) = index.searches[0].candidates
    assert (wild.identity, wild.tier) == (23487, MatchTier.EXACT_NAME)
    context = build_resolution_context(plan, index, assessment)
    assert [(n.identity, n.name) for n in context.selected] == [(23487, "Wild Wolpertinger")]


def test_a_link_whose_name_disagrees_is_a_link_disagrees_unknown() -> None:
    plan, index, assessment = resolved([select("Q1", "Wild Wolpertinger"), AMBIGUOUS])
    (mankrik,) = index.searches[1].candidates
    assert mankrik.tier == MatchTier.LINKED  # fetched by its id, its name matches no term
    context = build_resolution_context(plan, index, assessment)
    (d1,) = context.unresolved
    assert (d1.status, d1.term, d1.linked_identity, d1.linked_names) == (
        "link_disagrees",
        "Goldark Snipehunter",
        3432,
        ["Mankrik"],
    )


def test_selecting_a_link_whose_name_disagrees_is_refused() -> None:
    plan, index, assessment = resolved(
        [select("Q1", "Wild Wolpertinger"), select("Q2", "Goldark Snipehunter")]
    )
    found = validate_assessment(assessment, index, plan, CASE, V4)
    assert [(f.code, f.subject) for f in found] == [(ErrorCode.ASSESSMENT_LINK_DISAGREES, "Q2")]
    assert validate_assessment(assessment, index, plan, CASE, V3) == []  # a v4 rule


def test_unsearched_names_become_not_searched_unknowns() -> None:
    plan, index, assessment = resolved([select("Q1", "Wild Wolpertinger"), AMBIGUOUS])
    plan = plan.model_copy(
        update={
            "unsearched": ResolutionPlanOutput.model_validate(
                {
                    "searches": [],
                    "unsearched": [
                        {"term": "Thrall", "mentions": [span("Thrall")], "role": "other_context"}
                    ],
                }
            ).unsearched
        }
    )
    context = build_resolution_context(plan, index, assessment)
    last = context.unresolved[-1]
    assert (last.alias, last.status, last.term, last.search_id) == (
        "D2",
        "not_searched",
        "Thrall",
        "none",
    )
    assert last.assessment_pointer == "/entity_resolution/plan#/plan/unsearched/0"


# --- the report's words and agreement -------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "name", "agree"),
    [
        ("Mankrik", "Mankrik", True),
        ("mai'zoth", "Mai'Zoth", True),
        ("maizoth", "Mai'Zoth", True),  # a slug drops the apostrophe
        ("Legoso", "Demolitionist Legoso", True),  # a short form: whole words of the name
        ("Innkeeper Firebrew <Innkeeper>", "Innkeeper Firebrew", True),  # a link text's title
        ("Ornok Torn-heart", "Oronok Torn-heart", True),  # a misspelling
        ("Эндор", "Эндора", True),  # the shared beginning of an inflected name
        ("Ink Supplies", "Guard Howe", False),  # a quest title linked to an NPC page
        ("Thork", "Zargh", False),
        ("The", "The Behemoth", False),  # too short to be a short form
    ],
)
def test_agreement(words: str, name: str, agree: bool) -> None:
    assert agrees_with(words, name) is agree


def test_a_link_only_term_has_the_slug_as_its_words() -> None:
    assert slugs("https://www.wowhead.com/npc=20071/wind-trader-marid", 20071) == [
        "wind trader marid"
    ]
    assert slugs("https://es.wowhead.com/npc=29434/mineur-gobelin-bless%C3%A9", 29434) == [
        "mineur gobelin blessé"
    ]
    assert slugs("https://www.wow-freakz.com/npc_finder.php?npc=14221&name=gravis-slipknot", 14221)
    assert slugs("http://es.wowhead.com/npc=27215", 27215) == []
    only = plan_of(
        {
            "term": "20071",
            "catalog": "creature_name",
            "role": "affected_subject",
            "mentions": [{"source": "S2", "quote": "x", "start": 0, "end": 1}],
            "reference": {
                "identity": 20071,
                "link": {
                    "source": "S2",
                    "quote": "https://www.wowhead.com/npc=20071/wind-trader-marid",
                    "start": 0,
                    "end": 1,
                },
            },
        }
    ).searches[0]
    assert report_words(only) == ["wind trader marid"]


# --- capture provenance ----------------------------------------------------------------------------


def test_an_identity_capture_is_the_fetch_of_exactly_its_identity() -> None:
    good = identity_capture(WILD, [(23487, "Wild Wolpertinger")]).result
    assert identity_capture_findings(23487, good, "Q1", "c.json") == []
    other = good.model_copy(update={"rows": [CatalogRow(identity=1, name="Someone")]})
    assert [f.code for f in identity_capture_findings(23487, other, "Q1", "c.json")] == [
        ErrorCode.CAPTURE_IDENTITY_DIFFERS
    ]
    like = good.model_copy(update={"sql": "SELECT * FROM t WHERE name LIKE ? ORDER BY name"})
    assert [f.code for f in identity_capture_findings(23487, like, "Q1", "c.json")] == [
        ErrorCode.CAPTURE_SQL_NOT_TEMPLATE
    ]
    literal = good.model_copy(
        update={"sql": "SELECT * FROM t WHERE entry = 23487 OR '1' ORDER BY x"}
    )
    assert ErrorCode.CAPTURE_SQL_NOT_TEMPLATE in {
        f.code for f in identity_capture_findings(23487, literal, "Q1", "c.json")
    }
