"""Readable markdown previews for the Dagster UI. Pure formatting, no Dagster import."""

from typing import Any


def _cell(text: object, width: int = 80) -> str:
    value = "" if text is None else str(text)
    value = value.replace("\n", " ").replace("|", "\\|")
    return value if len(value) <= width else value[: width - 1] + "…"


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A GitHub-flavoured markdown table with escaped, shortened cells."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def case_preview_markdown(case_doc: dict[str, Any]) -> str:
    """Title, timestamp and the source table of a case.json document."""
    rows: list[list[object]] = [
        [
            s.get("alias"),
            s.get("kind"),
            s.get("name"),
            s.get("chars"),
            "yes" if s.get("readable") else f"no ({s.get('unreadable_reason')})",
            s.get("text") if s.get("readable") else "",
        ]
        for s in case_doc.get("sources", [])
    ]
    head = (
        f"**{_cell(case_doc.get('title'), 200)}**  \n"
        f"case `{case_doc.get('case_id')}` reported {case_doc.get('reported_at')}\n\n"
    )
    return head + markdown_table(["alias", "kind", "name", "chars", "readable", "text"], rows)
