"""Readable markdown previews for the Dagster UI. Pure formatting, no Dagster import."""

import re
from typing import Any

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


def captures_markdown(captures: list[tuple[str, str, dict[str, Any]]]) -> str:
    """``(search_id, sha256, capture)`` rows: SQL, parameters, truncation, timing."""
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
                f"{result['elapsed_ms']:.1f} ms",
                digest[:12],
            ]
        )
    first_sql = captures[0][2]["result"]["sql"]
    return (
        markdown_table(["search", "catalog", "term", "rows", "truncated", "time", "capture"], rows)
        + f"\n\nSQL template (values are bound parameters):\n\n```sql\n{first_sql}\n```"
    )


def candidates_markdown(doc: dict[str, Any]) -> str:
    if doc.get("status") == "disabled":
        return "entity resolution **disabled**"
    rows: list[list[object]] = []
    for search in doc["searches"]:
        if not search["candidates"]:
            rows.append([search["search_id"], search["term"], "—", "", "", "no candidate"])
        for cid, cand in zip(search["candidate_ids"], search["candidates"], strict=True):
            rows.append(
                [
                    search["search_id"],
                    search["term"],
                    cid,
                    cand["identity"],
                    cand["name"],
                    cand["tier"],
                ]
            )
    return markdown_table(["search", "term", "candidate", "identity", "name", "tier"], rows)


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
