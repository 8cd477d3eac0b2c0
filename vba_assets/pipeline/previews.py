"""Readable markdown previews of each stage's artifact for the Dagster UI (no Dagster import).

:func:`stage_preview` is what an asset shows; the per-stage formatters take the artifact documents.
A model stage's preview ends with the context manifest of its accepted request.
"""

import re
from typing import TYPE_CHECKING, Any

from vba_assets.domain.prompting.items import LIFECYCLES
from vba_assets.domain.prompting.manifest import (
    TOKEN_ESTIMATOR,
    ContextManifest,
    account_lines,
    estimate_tokens,
)
from vba_assets.domain.resolution.context import search_ids
from vba_assets.domain.resolution.models import EXACT_NAME, capture_key
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.artifacts import load_captures, load_plan
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.store.layout import manifest_of

if TYPE_CHECKING:
    from vba_assets.pipeline.stage_runs import StageResult

#: Characters that would turn report text into markdown (links, images, emphasis, HTML, code).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def _cell(text: object, width: int = 80) -> str:
    """Report text as inert markdown: one line, escaped, shortened."""
    value = "" if text is None else str(text)
    value = value.replace("\r", " ").replace("\n", " ")
    value = value if len(value) <= width else value[: width - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", value)


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A GitHub-flavoured markdown table with escaped, shortened cells."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def case_preview_markdown(case_doc: dict[str, Any]) -> str:
    """Title, timestamp, the source table and a short excerpt of each readable source."""
    sources = case_doc.get("sources", [])
    rows: list[list[object]] = [
        [
            s.get("alias"),
            s.get("kind"),
            s.get("name"),
            s.get("chars"),
            "yes" if s.get("readable") else f"no ({s.get('unreadable_reason')})",
            len(s.get("format_controls") or []),
        ]
        for s in sources
    ]
    head = (
        f"**{_cell(case_doc.get('title'), 200)}**  \n"
        f"case `{case_doc.get('case_id')}` reported {case_doc.get('reported_at')}\n\n"
    )
    table = markdown_table(
        ["alias", "kind", "name", "chars", "readable", "invisible controls"], rows
    )
    excerpts = [
        f"**{s.get('alias')}** ({s.get('kind')}): {_cell(s.get('text'), 300)}"
        for s in sources
        if s.get("readable") and s.get("text")
    ]
    return head + table + "\n\n" + "\n\n".join(excerpts)


def _mentions(mentions: list[dict[str, Any]]) -> str:
    return "; ".join(f"{m['source']}[{m['start']}:{m['end']}]" for m in mentions)


def plan_markdown(doc: dict[str, Any]) -> str:
    if doc.get("status") != "accepted":
        return f"entity resolution **{doc.get('status')}**: {doc.get('reason', '')}"
    rows: list[list[object]] = [
        [sid, s["term"], s["catalog"], s["role"], _mentions(s["mentions"])]
        for sid, s in zip(doc["search_ids"], doc["plan"]["searches"], strict=True)
    ]
    if not rows:
        return "The plan proposes no search (the report names no entity)."
    return markdown_table(["search", "term", "catalog", "role", "mentions"], rows)


def captures_markdown(
    captures: list[tuple[str, str, dict[str, Any]]], times: dict[str, float] | None = None
) -> str:
    """``(search_id, sha256, capture)`` rows: SQL, parameters, truncation, timing (from the
    capture in protocol v1/v2, else from ``times``: the ``captured`` events)."""
    times = times or {}
    if not captures:
        return "No capture (entity resolution disabled or an empty plan)."
    rows: list[list[object]] = []
    for search_id, digest, capture in captures:
        result = capture["result"]
        rows.append(
            [
                search_id,
                result["catalog"],
                result["term"],
                len(result["rows"]),
                "yes" if result["truncated"] else "no",
                _milliseconds(result.get("elapsed_ms", times.get(search_id))),
                digest[:12],
            ]
        )
    first_sql = captures[0][2]["result"]["sql"]
    return (
        markdown_table(["search", "catalog", "term", "rows", "truncated", "time", "capture"], rows)
        + f"\n\nSQL template (values are bound parameters):\n\n```sql\n{first_sql}\n```"
    )


def _milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


#: The columns of :func:`candidate_rows` (also the Dagster ``candidates`` table's schema).
CANDIDATE_COLUMNS = ("search", "term", "candidate", "identity", "name", "tier")


def candidate_rows(doc: dict[str, Any]) -> list[dict[str, object]]:
    """One row per candidate of an accepted candidate index (a search without one: one row with
    candidate ``—`` and tier ``no candidate``); none for a disabled index."""
    if doc.get("status") == "disabled":
        return []
    rows: list[dict[str, object]] = []
    for search in doc["searches"]:
        if not search["candidates"]:
            rows.append(
                dict(
                    zip(
                        CANDIDATE_COLUMNS,
                        [search["search_id"], search["term"], "—", None, "", "no candidate"],
                        strict=True,
                    )
                )
            )
        exact = search.get("exact") or {}  # protocol v6: the exact-name capture's candidates
        for cid, cand in [
            *zip(search["candidate_ids"], search["candidates"], strict=True),
            *zip(exact.get("candidate_ids", []), exact.get("candidates", []), strict=True),
        ]:
            values = [
                search["search_id"],
                search["term"],
                cid,
                cand["identity"],
                cand["name"],
                cand["tier"],
            ]
            rows.append(dict(zip(CANDIDATE_COLUMNS, values, strict=True)))
    return rows


def candidates_markdown(doc: dict[str, Any]) -> str:
    if doc.get("status") == "disabled":
        return "entity resolution **disabled**"
    rows: list[list[object]] = [
        ["" if row[c] is None else row[c] for c in CANDIDATE_COLUMNS] for row in candidate_rows(doc)
    ]
    return markdown_table(list(CANDIDATE_COLUMNS), rows)


def assessment_markdown(doc: dict[str, Any], context: dict[str, Any] | None) -> str:
    if doc.get("status") != "accepted":
        return f"entity resolution **{doc.get('status')}**"
    rows: list[list[object]] = [
        [
            v["search_id"],
            v["status"],
            v.get("candidate_id") or ", ".join(v["competing_candidate_ids"]),
            v["rationale"],
        ]
        for v in doc["assessment"]["assessments"]
    ]
    text = markdown_table(["search", "status", "candidate(s)", "rationale"], rows)
    if context:
        aliases: list[list[object]] = [
            [n["alias"], n["identity"], n["name"], n["role"], n["role_label"]]
            for n in context["selected"]
        ] + [[d["alias"], "", d["term"], d["role"], d["status"]] for d in context["unresolved"]]
        text += "\n\n" + markdown_table(["alias", "identity", "name", "role", "label"], aliases)
    return text


def interpretation_markdown(doc: dict[str, Any]) -> str:
    body = doc["interpretation"]
    scope = body.get("scope", {})
    ambiguity = body.get("ambiguity", {})
    lines = [
        f"**{_cell(body.get('restatement'), 500)}**",
        "",
        f"category `{body.get('category')}` · in scope: {scope.get('in_scope')} · "
        f"ambiguous: {ambiguity.get('is_ambiguous')} · prompt: {doc.get('prompt')}",
    ]
    entities: list[list[object]] = [
        ["affected", e.get("ref"), _mentions_short(e.get("mentions", []))]
        for e in body.get("affected_subjects", [])
    ] + [
        ["context", e.get("ref"), _mentions_short(e.get("mentions", []))]
        for e in body.get("context_entities", [])
    ]
    if entities:
        lines += ["", markdown_table(["kind", "alias", "mentions"], entities)]
    unknowns: list[list[object]] = [
        [u.get("ref"), u.get("description")] for u in body.get("unknowns", [])
    ]
    if unknowns:
        lines += ["", markdown_table(["unknown", "description"], unknowns)]
    return "\n".join(lines)


def _mentions_short(mentions: list[dict[str, Any]]) -> str:
    return "; ".join(f"{m.get('source')}: {m.get('quote')}" for m in mentions)


# --- context manifests -------------------------------------------------------------------------------


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def manifest_rows(manifest: ContextManifest) -> list[list[str]]:
    """Rows: item, lifecycle, source, insertions, chars of one, chars of all, ~tokens of all."""
    rows = [
        [
            i.name,
            i.lifecycle,
            i.source,
            str(i.insertions),
            str(i.chars),
            str(i.total_chars),
            str(i.est_tokens),
        ]
        for i in manifest.items
    ]
    glue, total = manifest.unaccounted_chars, manifest.total_chars
    rows.append(
        ["(template glue)", "unaccounted", "", "", "", str(glue), str(estimate_tokens(glue))]
    )
    rows.append(["total", "", "", "", "", str(total), str(manifest.total_est_tokens)])
    return rows


def summary_lines(manifest: ContextManifest) -> list[str]:
    """Lifecycle shares, the static prefix, the provider's own usage and the estimator."""
    total = manifest.total_chars
    by_lifecycle = manifest.chars_by_lifecycle
    shares = ", ".join(
        f"{name} {by_lifecycle[name]} ({_percent(by_lifecycle[name], total)})"
        for name in (*LIFECYCLES, "unaccounted")
        if by_lifecycle.get(name)
    )
    first = manifest.first_non_static
    where = f"before {first}" if first else "the whole request"
    usage = manifest.provider_usage
    reported = (
        ", ".join(
            f"{name} {value}" for name, value in usage.model_dump().items() if value is not None
        )
        if usage and usage.input is not None
        else "not reported"
    )
    return [
        f"by lifecycle (chars): {shares}",
        f"static prefix: {manifest.static_prefix_chars} chars "
        f"({_percent(manifest.static_prefix_chars, total)}), {where}: provider prompt caching "
        "can apply to it",
        f"provider-reported tokens: {reported}",
        f"~tokens = {TOKEN_ESTIMATOR}",
    ]


def manifest_markdown(manifest: ContextManifest) -> str:
    """The manifest table as markdown (the Dagster stage preview)."""
    headers = ["item", "lifecycle", "source", "insertions", "each", "chars", "~tokens"]
    rows = [[cell.replace("|", "\\|") for cell in row] for row in manifest_rows(manifest)]
    table = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    title = f"**Context manifest** of the accepted request (attempt {manifest.attempt})"
    account = account_lines(manifest)
    lines = [*summary_lines(manifest), *account]
    return "\n".join([title, "", *table, "", *(f"- {line}" for line in lines)])


def accepted_manifest_markdown(rev: FrozenRevision, stage: Stage) -> str | None:
    """The manifest table of the dispatch a stage artifact accepted; None without one (or for a
    revision recorded before manifests existed)."""
    manifest = accepted_manifest(rev, stage)
    return None if manifest is None else manifest_markdown(manifest)


def accepted_manifest(rev: FrozenRevision, stage: Stage) -> ContextManifest | None:
    """The manifest of the dispatch a stage artifact accepted (None: see above)."""
    relpath = rev.layout.artifact(stage)
    doc = rev.package.read_json(relpath) if relpath and rev.package.exists(relpath) else None
    dispatch = doc.get("accepted_dispatch") if isinstance(doc, dict) else None
    if not isinstance(dispatch, str):
        return None
    target = manifest_of(f"{rev.layout.stage_dir(stage)}/{dispatch}")
    if not rev.package.exists(target):
        return None
    return ContextManifest.model_validate(rev.package.read_json(target))


# --- one stage ------------------------------------------------------------------------------------


def stage_preview(rev: FrozenRevision, result: "StageResult") -> str:
    """What an asset shows: the stage's preview, and for a model stage the manifest of its
    accepted request."""
    preview = _stage_preview(rev, result)
    table = None
    if result.status == "accepted" and result.stage.calls_model:
        table = accepted_manifest_markdown(rev, result.stage)
    return f"{preview}\n\n{table}" if table else preview


def _stage_preview(rev: FrozenRevision, result: "StageResult") -> str:
    if result.status == "disabled":
        return (
            "entity resolution **disabled**: no `[entity_resolution]` block in the project config"
        )
    read, layout = rev.package.read_json, rev.layout
    if result.stage is Stage.CASE:
        return case_preview_markdown(rev.case_doc())
    if result.stage is Stage.RESOLUTION_PLAN:
        return plan_markdown(read(layout.plan))
    if result.stage is Stage.RESOLUTION_CAPTURES:
        plan = load_plan(rev)
        captures = load_captures(rev)
        ids = search_ids(plan, rev.spec.batched_exact_names) if plan else []
        times = {
            capture_key(event["search_id"], event.get("kind")): event["elapsed_ms"]
            for event in rev.package.read_events(rev.revision)
            if event["event"] == "captured" and "elapsed_ms" in event
        }
        keys = [  # protocol v6: each search's exact-name capture after its own
            key
            for sid in ids
            for key in (sid, capture_key(sid, EXACT_NAME))
            if key in captures and (key == sid or rev.spec.exact_name_coverage)
        ]
        return captures_markdown(
            [(key, captures[key][0], captures[key][1].model_dump(mode="json")) for key in keys],
            times,
        )
    if result.stage is Stage.CANDIDATE_INDEX:
        return candidates_markdown(read(layout.candidates))
    if result.stage is Stage.RESOLUTION_ASSESSMENT:
        context = read(layout.context) if rev.package.exists(layout.context) else None
        return assessment_markdown(read(layout.assessment), context)
    return interpretation_markdown(read(layout.interpretation))
