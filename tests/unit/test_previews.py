"""UI previews show report text as inert markdown: no links, images, HTML or table breaks."""

import re

from vba_assets.pipeline.previews import case_preview_markdown, markdown_table

HOSTILE = "![pixel](http://198.51.100.7/p.png) [click](javascript:alert(1)) <img src=x> a|b **x**"


def test_report_text_cannot_become_a_link_an_image_or_html() -> None:
    preview = case_preview_markdown(
        {
            "title": HOSTILE,
            "case_id": "BUG-1",
            "reported_at": "2026-01-01T00:00:00Z",
            "sources": [
                {
                    "alias": "S1",
                    "kind": "title",
                    "name": "title",
                    "chars": 9,
                    "readable": True,
                    "text": HOSTILE,
                    "format_controls": [],
                },
            ],
        }
    )
    assert not re.search(r"(?<!\\)!\[", preview)  # no unescaped image
    assert not re.search(r"(?<!\\)\]\(", preview)  # no unescaped link target
    assert not re.search(r"(?<!\\)<img", preview)  # no raw HTML
    assert "a\\|b" in preview  # a pipe cannot split a table cell


def test_a_table_row_has_exactly_one_cell_per_header() -> None:
    table = markdown_table(["a", "b"], [["x|y\nz", "w"]])
    row = table.splitlines()[2]
    assert len(re.findall(r"(?<!\\)\|", row)) == 3
