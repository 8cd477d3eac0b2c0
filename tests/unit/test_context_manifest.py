"""Context manifests: every item of a sent request located, counted and sized (issue 5, item 3).

The golden run imports the Wolpertinger sample (BUG-000020), runs it through ``run_trial`` with
fixture replies and compares the manifests the recorder wrote for the three accepted requests
with ``tests/golden/wolpertinger_context_manifests.json`` (regenerate with
``VBA_UPDATE_SNAPSHOTS=1``). Positions and sizes are also checked against the raw request bodies.
"""

import hashlib
import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from resources.llm.anthropic_provider import AnthropicProvider
from resources.llm.openai_compatible import OpenAICompatibleProvider
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.golden import assert_golden
from tests.pipeline.support import (
    ER,
    QUEST,
    REV,
    assess_exact,
    imported,
    interpret,
    plan_reply,
    project_config,
    run,
)
from tests.unit.test_stage_requests import all_requests
from vba_assets.context_show import revision_manifests, show_context
from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.llm.contract import (
    ChatMessage,
    DispatchRecord,
    ModelRequest,
)
from vba_assets.domain.prompting.items import ContextItem, Lifecycle, message_slot
from vba_assets.domain.prompting.manifest import ContextManifest, context_manifest
from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION, load_prompt_set, read_lock
from vba_assets.domain.prompting.requests import request_items_for
from vba_assets.domain.stages import Stage
from vba_assets.errors import ErrorCode, InputError, ModelError, StoreError
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.previews import stage_preview
from vba_assets.pipeline.stage_runs import StageResult
from vba_assets.pipeline.verification import verify_revision
from vba_assets.store import CasePackage, Workspace

RD = f"analysis/interpretations/{REV}"
ACCEPTED = {
    "resolution_plan": f"{ER}/dispatches/resolution_plan-1",
    "resolution_assessment": f"{ER}/dispatches/resolution_assessment-1",
    "interpretation": f"{RD}/dispatches/interpretation-1",
}
SECRET = "sk-test-secret-0123456789"


def _script(case_doc: dict[str, Any], *plans: Any) -> ScriptedProvider:
    return ScriptedProvider(
        {
            "resolution_plan": list(plans) or [plan_reply(case_doc, QUEST)],
            "resolution_assessment": [from_stage_context(assess_exact)],
            "interpretation": [from_stage_context(interpret)],
        }
    )


@pytest.fixture(scope="module")
def wolpertinger(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CasePackage]:
    """BUG-000020 run to the interpretation once; tests copy it before changing anything."""
    tmp = tmp_path_factory.mktemp("wolpertinger")
    workspace, package = imported(tmp)
    run(
        workspace, "BUG-000020", project_config(tmp / "ws"), _script(package.read_json("case.json"))
    )
    return tmp / "ws", package


def _manifest(package: CasePackage, stage: str) -> dict[str, Any]:
    doc: dict[str, Any] = package.read_json(f"{ACCEPTED[stage]}.manifest.json")
    return doc


def _record(package: CasePackage, stage: str) -> DispatchRecord:
    return DispatchRecord.model_validate(package.read_json(f"{ACCEPTED[stage]}.json"))


def _stable(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest minus what differs between runs: artifact hashes that embed capture hashes
    (a capture records its query time), so the interpretation's stage context and request hash."""
    kept = {k: v for k, v in manifest.items() if k not in ("channels", "items", "provider_usage")}
    if manifest["stage"] == "interpretation":
        del kept["request_sha256"]
    kept["channels"] = [
        {k: v for k, v in c.items() if not (k == "sha256" and c["channel"] == "stage_context")}
        for c in manifest["channels"]
    ]
    kept["items"] = [
        {
            k: v
            for k, v in item.items()
            if k != "source_sha256" or item["source"].startswith(("prompts/", "vba_assets/"))
        }
        for item in manifest["items"]
    ]
    return kept


# --- the golden run ---------------------------------------------------------------------------------


def test_the_wolpertinger_manifests_match_the_golden_file(
    wolpertinger: tuple[Path, CasePackage],
) -> None:
    _, package = wolpertinger
    manifests = {stage: _stable(_manifest(package, stage)) for stage in ACCEPTED}
    assert_golden("wolpertinger_context_manifests.json", manifests)
    # manifests are canonical artifacts beside the records; replay verification still passes
    assert [f for f in package.verify() if f.is_error] == []
    assert verify_revision(package, REV).findings == []


@pytest.mark.parametrize("stage", list(ACCEPTED))
def test_positions_and_sizes_are_those_of_the_sent_bytes(
    wolpertinger: tuple[Path, CasePackage], stage: str
) -> None:
    _, package = wolpertinger
    manifest, record = _manifest(package, stage), _record(package, stage)
    body = record.request
    texts = {
        "system": body["system"],
        "messages[0].content": body["messages"][0]["content"],
        "output_schema": canonical_bytes(body["output_schema"]).decode(),
        "stage_context": canonical_bytes(body["stage_context"]).decode(),
    }
    items = {i.name: i for i in request_items_for(ModelRequest.model_validate(body), _prompts())}
    for entry in manifest["items"]:
        assert len(entry["placements"]) == entry["insertions"]
        assert entry["total_chars"] == entry["chars"] * entry["insertions"]
        for placement in entry["placements"]:
            text = texts[placement["channel"]]
            start = placement["offset"]
            assert text[start : start + entry["chars"]] == items[entry["name"]].text
    assert manifest["total_chars"] == sum(len(t) for t in texts.values())
    assert manifest["request_sha256"] == record.request_sha256
    # the system prompt is all static and comes first: caching can cover it whole
    assert manifest["static_prefix_chars"] >= len(texts["output_schema"]) + len(texts["system"])
    assert manifest["first_non_static"] == "case_id"


def test_the_interpretation_inserts_the_case_id_twice_and_keeps_every_alias(
    wolpertinger: tuple[Path, CasePackage],
) -> None:
    _, package = wolpertinger
    items = {i["name"]: i for i in _manifest(package, "interpretation")["items"]}
    assert items["case_id"]["insertions"] == 2
    assert items["clock_anchor"]["lifecycle"] == "per_revision"
    assert items["clock_anchor"]["source"] == "input.json#/reported_at"
    assert {n for n, i in items.items() if i["lifecycle"] == "per_stage"} >= {
        "alias:F1",
        "alias:N1",
        "retain:N1",
        "stage_context",
    }
    assert items["source:S4"]["lifecycle"] == "per_case"  # the unreadable screenshot line
    assert items["provider:output_name"]["insertions"] == 0  # a neutral body has no tool


def test_source_hashes_are_those_of_the_artifacts(wolpertinger: tuple[Path, CasePackage]) -> None:
    _, package = wolpertinger
    version = CURRENT_PROMPT_VERSION
    lock = read_lock()[version]
    checked = set()
    for stage in ACCEPTED:
        for item in _manifest(package, stage)["items"]:
            artifact = item["source"].split("#", 1)[0]
            if artifact.startswith(f"prompts/{version}/"):
                expected = lock[artifact.removeprefix(f"prompts/{version}/")]
            elif artifact == "case.json" or artifact.endswith(".json"):
                relpath = artifact if artifact == "case.json" else f"{RD}/{artifact}"
                expected = hashlib.sha256(package.read_bytes(relpath)).hexdigest()
            else:
                continue
            assert item["source_sha256"] == expected, item["name"]
            checked.add(artifact.split("/")[-1])
    assert checked >= {"case.json", "input.json", "candidates.json", "context.json", "plan.json"}


# --- correction rounds -------------------------------------------------------------------------------


def test_a_correction_round_is_listed_per_attempt(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    case_doc = package.read_json("case.json")
    invented = plan_reply(case_doc, QUEST)
    invented["searches"][0]["term"] = "Wolpertinger King"  # not in the cited quote: rejected
    provider = _script(case_doc, invented, plan_reply(case_doc, QUEST))
    run(workspace, "BUG-000020", project_config(tmp_path / "ws"), provider, stop_after="resolution")

    first = package.read_json(f"{ER}/dispatches/resolution_plan-1.manifest.json")
    second = package.read_json(f"{ER}/dispatches/resolution_plan-2.manifest.json")
    assert not any(i["lifecycle"] == "per_attempt" for i in first["items"])
    rounds = {i["name"]: i for i in second["items"] if i["lifecycle"] == "per_attempt"}
    assert set(rounds) == {"reply:attempt-1", "correction:attempt-1"}
    reply, correction = rounds["reply:attempt-1"], rounds["correction:attempt-1"]
    assert reply["placements"] == [{"channel": "messages[1].content", "offset": 0}]
    assert correction["placements"] == [{"channel": "messages[2].content", "offset": 0}]
    rejected = f"{ER}/rejected/resolution_plan-1.json"
    assert reply["source"] == "entity-resolution/rejected/resolution_plan-1.json#/output_text"
    assert reply["source_sha256"] == hashlib.sha256(package.read_bytes(rejected)).hexdigest()
    sent = DispatchRecord.model_validate(
        package.read_json(f"{ER}/dispatches/resolution_plan-2.json")
    )
    assert reply["chars"] == len(sent.request["messages"][1]["content"])
    assert correction["chars"] == len(sent.request["messages"][2]["content"])
    by_channel = {c["channel"]: c for c in second["channels"]}
    assert by_channel["messages[1].content"]["unaccounted_chars"] == 0
    assert by_channel["messages[2].content"]["unaccounted_chars"] == 0
    assert second["chars_by_lifecycle"]["per_attempt"] == reply["chars"] + correction["chars"]


def test_without_entity_resolution_the_unresolved_prompt_is_accounted_for(tmp_path: Path) -> None:
    workspace, package = imported(tmp_path)
    provider = ScriptedProvider({"interpretation": [from_stage_context(interpret)]})
    project = project_config(tmp_path / "ws", resolution=False)
    run(workspace, "BUG-000020", project, provider)
    manifest = package.read_json(f"{ACCEPTED['interpretation']}.manifest.json")
    items = {i["name"]: i for i in manifest["items"]}
    assert (
        items["instructions"]["source"]
        == f"prompts/{CURRENT_PROMPT_VERSION}/interpretation_unresolved.md"
    )
    assert items["resolution_disabled"]["lifecycle"] == "static"
    assert items["no_aliases_rule"]["lifecycle"] == "static"
    assert not any(name.startswith(("alias:", "retain:")) for name in items)
    assert not package.exists(f"{ER}/dispatches/resolution_plan-1.manifest.json")


# --- the manifest's rules, on hand-made bodies ------------------------------------------------------


def _record_for(body: dict[str, Any], provider: str = "test") -> DispatchRecord:
    return DispatchRecord(
        stage="resolution_plan",
        attempt=1,
        provider=provider,
        model="m",
        parameters={},
        protocol_version=2,
        output_name="submit_resolution_plan",
        base_request_sha256="0" * 64,
        request_sha256="1" * 64,
        request=body,
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        elapsed_ms=1.0,
        outcome="accepted",
    )


def _item(
    name: str, text: str, slot: str = "message:0", lifecycle: Lifecycle = "per_case"
) -> ContextItem:
    source = f"case.json#/{name}"
    return ContextItem(name=name, lifecycle=lifecycle, source=source, slot=slot, text=text)


def test_an_item_whose_text_is_not_in_the_body_is_an_error() -> None:
    body = {"system": "Rules.", "messages": [{"role": "user", "content": "Report: lost wolf."}]}
    with pytest.raises(ModelError) as caught:
        context_manifest(_record_for(body), [_item("source:S1", "lost wolpertinger")])
    assert caught.value.code == ErrorCode.CONTEXT_MANIFEST_MISMATCH
    assert "source:S1" in caught.value.message
    # out of the builder's order is not "in the body where the builder put it" either
    items = [_item("b", "wolf"), _item("a", "Report")]
    with pytest.raises(ModelError, match="'a'"):
        context_manifest(_record_for(body), items)
    with pytest.raises(ModelError, match="two different texts"):
        context_manifest(_record_for(body), [_item("a", "Report"), _item("a", "wolf")])


def test_an_item_inserted_twice_is_counted_twice_and_totals_add_up() -> None:
    quote = "I cannot find the Wild Wolpertinger."
    content = f"# Case\n{quote}\n## Again\n{quote}\n"
    body = {"system": "Static rules.", "messages": [{"role": "user", "content": content}]}
    items = [
        _item("instructions", "Static rules.", "system", "static"),
        _item("source:S2", quote),
        _item("source:S2", quote),
    ]
    manifest = context_manifest(_record_for(body), items)
    entry = next(i for i in manifest.items if i.name == "source:S2")
    assert (entry.insertions, entry.chars, entry.total_chars) == (2, len(quote), 2 * len(quote))
    assert [p.offset for p in entry.placements] == [7, 7 + len(quote) + 10]
    assert manifest.total_chars == len("Static rules.") + len(content)
    assert manifest.unaccounted_chars == len(content) - 2 * len(quote)
    assert manifest.static_prefix_chars == len("Static rules.") + len("# Case\n")
    assert manifest.first_non_static == "source:S2"
    assert manifest.total_est_tokens == -(-manifest.total_chars // 4)
    _assert_totals(manifest)


def _assert_totals(manifest: ContextManifest) -> None:
    items = sum(i.total_chars for i in manifest.items)
    assert items + manifest.unaccounted_chars == manifest.total_chars
    assert sum(c.chars for c in manifest.channels) == manifest.total_chars
    assert sum(c.unaccounted_chars for c in manifest.channels) == manifest.unaccounted_chars
    assert sum(manifest.chars_by_lifecycle.values()) == manifest.total_chars
    assert 0 <= manifest.static_prefix_share <= 1


def _prompts(version: str = CURRENT_PROMPT_VERSION) -> Any:
    """The prompts a request was built with: the golden run's (current), or v1 for protocol 1-3."""
    return load_prompt_set(version)


# --- real providers' bodies --------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [1, 2])
def test_anthropic_puts_the_schema_in_a_forced_tool_and_the_static_prompt_first(
    protocol: int,
) -> None:
    provider = AnthropicProvider(api_key=SECRET, base_url="http://127.0.0.1:9")
    for request in all_requests(protocol):
        items = request_items_for(request, _prompts("v1"))
        body = provider.wire_request(request, request.messages)
        manifest = context_manifest(_record_for(body, "anthropic"), items)
        _assert_totals(manifest)
        by_name = {i.name: i for i in manifest.items}
        assert by_name["provider:output_schema"].placements[0].channel == "tools[0].input_schema"
        assert by_name["provider:output_name"].insertions == 2  # tool name and tool_choice
        for injected in (
            "tools[0].description",
            "tool_choice.type",
            "system[0].cache_control.type",
        ):
            assert by_name[f"provider:{injected}"].lifecycle == "provider_injected"
        assert ("output_schema" in by_name) == (protocol == 2)  # v2: the schema twice
        system = len(request.system)
        tools = sum(c.chars for c in manifest.channels if c.channel.startswith("tool"))
        assert manifest.static_prefix_chars >= tools + system
        assert manifest.channels[0].channel.startswith("tools[0]")
        assert SECRET not in manifest.model_dump_json()


def test_openai_json_object_mode_gets_the_schema_only_from_protocol_v2() -> None:
    provider = OpenAICompatibleProvider(base_url="http://127.0.0.1:9", api_key=SECRET)
    for protocol in (1, 2):
        request = all_requests(protocol)[2]
        items = request_items_for(request, _prompts("v1"))
        body = provider.wire_request(request, request.messages)
        manifest = context_manifest(_record_for(body, "openai_compatible"), items)
        _assert_totals(manifest)
        by_name = {i.name: i for i in manifest.items}
        assert by_name["provider:output_schema"].insertions == 0  # json_object: no schema sent
        assert by_name["provider:response_format.type"].lifecycle == "provider_injected"
        assert ("output_schema" in by_name) == (protocol == 2)
        assert by_name["instructions"].placements[0].channel == "messages[0].content"
        assert SECRET not in manifest.model_dump_json()


def test_a_conversation_message_maps_to_its_slot() -> None:
    """An OpenAI body's system message is the system slot; the user message is message:0."""
    body = {
        "messages": [
            {"role": "system", "content": "Rules."},
            {"role": "user", "content": "Case."},
            {"role": "assistant", "content": "{}"},
        ]
    }
    items = [
        _item("instructions", "Rules.", "system", "static"),
        _item("case", "Case."),
        _item("reply:attempt-1", "{}", message_slot(1), "per_attempt"),
    ]
    manifest = context_manifest(_record_for(body), items)
    assert [i.placements[0].channel for i in manifest.items] == [
        "messages[0].content",
        "messages[1].content",
        "messages[2].content",
    ]
    assert manifest.unaccounted_chars == 0


# --- showing manifests -----------------------------------------------------------------------------


def test_show_context_prints_a_table_per_dispatch_and_json(
    wolpertinger: tuple[Path, CasePackage],
) -> None:
    root, package = wolpertinger
    text = show_context(root, "BUG-000020", REV)
    assert text.count("\n== ") == 3
    plan = _manifest(package, "resolution_plan")
    total = rf"^total\s+{plan['total_chars']}\s+{plan['total_est_tokens']}$"
    assert re.search(total, text, re.MULTILINE)
    assert re.search(r"^case_id\s+per_case\s+case\.json#/case_id\s+2\s+10\s+20\s+5$", text, re.M)
    assert f"static prefix: {plan['static_prefix_chars']} chars" in text
    assert "ceil(chars / 4): an estimate" in text
    only = show_context(root, "BUG-000020", REV, "interpretation", as_json=True)
    document = json.loads(only)
    (dispatch,) = document["dispatches"]
    assert dispatch["computed"] is False
    assert dispatch["manifest"] == _manifest(package, "interpretation")
    with pytest.raises(InputError) as bad_stage:
        show_context(root, "BUG-000020", REV, "captures")
    assert bad_stage.value.code == ErrorCode.INVALID_STAGE
    with pytest.raises(StoreError) as no_revision:
        show_context(root, "BUG-000020", "0002")
    assert no_revision.value.code == ErrorCode.ARTIFACT_MISSING


def test_a_revision_recorded_without_manifests_gets_them_computed(
    wolpertinger: tuple[Path, CasePackage], tmp_path: Path
) -> None:
    root, package = wolpertinger
    copy = tmp_path / "ws"
    shutil.copytree(root, copy)
    moved = Workspace(copy).case("BUG-000020")
    for relpath in ACCEPTED.values():
        (moved.root / f"{relpath}.manifest.json").unlink()
    shown = revision_manifests(moved, REV)
    assert [s.computed for s in shown] == [True, True, True]
    for item in shown:
        stage = item.manifest.stage
        assert item.manifest.model_dump(mode="json") == _manifest(package, stage)
    assert not any(p.name.endswith(".manifest.json") for p in copy.rglob("*"))  # read-only


def test_the_stage_preview_shows_the_accepted_requests_manifest(
    wolpertinger: tuple[Path, CasePackage],
) -> None:
    _, package = wolpertinger
    rev = load_frozen(package, REV)
    stage = StageResult(Stage.RESOLUTION_PLAN, rev.layout.plan, "x", True, "accepted")
    preview = stage_preview(rev, stage)
    assert "**Context manifest** of the accepted request (attempt 1)" in preview
    assert "| case_id | per_case | case.json#/case_id | 1 | 10 | 10 | 3 |" in preview
    captures = StageResult(Stage.RESOLUTION_CAPTURES, None, "x", True, "accepted")
    assert "Context manifest" not in stage_preview(rev, captures)


def test_correction_messages_in_a_hand_made_conversation_are_located() -> None:
    request = all_requests(2)[0]
    messages = [*request.messages, ChatMessage(role="assistant", content="{}")]
    body = request.document(messages)
    items = [*request_items_for(request, _prompts("v1")), _item("reply", "{}", message_slot(1))]
    manifest = context_manifest(_record_for(body), items)
    assert next(i for i in manifest.items if i.name == "reply").insertions == 1
    _assert_totals(manifest)
