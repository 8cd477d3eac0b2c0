"""The write-back comment of one revision: what the interpretation found, as inert markdown.

:func:`summary_comment` renders a revision's accepted ``interpretation.json`` and its
entity-resolution ``context.json`` (the selected entries with their ids, the unresolved terms):
the restatement, the selected creatures with entry ids, the unknowns, the clarification question
and a fixed, link-free statement of what was not checked. Report text is escaped (no markdown, no
HTML, no ``@`` mention, no ``#`` reference), so a comment can neither ping anyone nor link
anywhere. The first line is the hidden marker :func:`marker` by which the comment is found again
and which keeps it out of the case's own attachments
(:data:`~vba_assets.tracker.github_issues.WRITE_BACK_MARKER_PREFIX`).
"""

import re
from collections.abc import Mapping
from typing import Any

from vba_assets.tracker.github_issues import WRITE_BACK_MARKER_PREFIX

#: Characters that would make report text markdown or HTML (links, images, emphasis, tables).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")

NOT_CHECKED = (
    "Not checked: this is an automated reading of the report against the world database's "
    "entries. It did not test the server, its scripts, spawns or timers, or the game client, "
    "and a selected entry names what the report is about, not the cause of the problem."
)


def marker(case_id: str, revision: str) -> str:
    return f"{WRITE_BACK_MARKER_PREFIX}{case_id}|{revision} -->"


def _text(value: object, width: int = 300) -> str:
    """One escaped line of at most ``width`` characters; ``@`` cannot mention anyone."""
    text = " ".join(("" if value is None else str(value)).split())
    text = text if len(text) <= width else text[: width - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", text).replace("@", "&#64;")


def _table(headers: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_text(cell, 80) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def summary_comment(
    case_id: str,
    revision: str,
    interpretation: Mapping[str, Any],
    context: Mapping[str, Any] | None,
) -> str:
    """The comment's markdown (deterministic: the same artifacts give the same bytes)."""
    body = interpretation["interpretation"]
    lines = [
        marker(case_id, revision),
        f"**Automated interpretation** (case `{case_id}`, revision {revision})",
        "",
        _text(body.get("restatement"), 500),
    ]
    selected = [s for s in (context or {}).get("selected", []) if isinstance(s, Mapping)]
    if selected:
        rows: list[list[object]] = [
            [s.get("entity_type"), s.get("identity"), s.get("name"), s.get("role")]
            for s in selected
        ]
        lines += [
            "",
            "Selected entries:",
            "",
            _table(["type", "entry", "name", "role"], rows),
        ]
    else:
        lines += ["", "Selected entries: none."]
    unresolved = [u for u in (context or {}).get("unresolved", []) if isinstance(u, Mapping)]
    unknowns = [_text(u.get("description")) for u in body.get("unknowns", [])]
    unknowns += [f"{_text(u.get('term'), 80)} ({_text(u.get('status'), 40)})" for u in unresolved]
    if unknowns:
        lines += ["", "Unknown:", *[f"- {item}" for item in unknowns]]
    question = (body.get("ambiguity") or {}).get("clarification_question")
    if question:
        lines += ["", f"Question for the reporter: {_text(question, 500)}"]
    lines += ["", NOT_CHECKED]
    return "\n".join(lines) + "\n"
