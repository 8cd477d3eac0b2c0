"""What the markup reader finds in tracker markdown, with exact source offsets."""

from vba_assets.heuristic.markup import read_markup
from vba_assets.heuristic.spans import tokenize_source

TEXT = (
    "[//]: # ([NPC] Magistrix Erona)\n"
    "**Description**: [Mankrik <Quest Giver>](https://www.wowhead.com/npc=3432/mankrik) and "
    "[the quest](https://www.wowhead.com/quest=4021/x).\n"
    "Foreman Oslow; https://wowgaming.altervista.org/aowow/?npc=341 and Loolruna (id 19694).\n"
    '{"searches": [{"term": "Ragnaros"}]}\n'
    "> quoted Hogger\n"
    "```\n(19354, 'Arzeth the Merciless - On Reset')\n```\n"
    "<!-- Thrall -->\n"
    "[url=http://db.example/?npc=448]Hogger[/url] ![shot](http://img/x.png) `Bellygrub`\n"
)


def _hidden(text: str) -> list[str]:
    return [text[s:e] for s, e in read_markup(text).hidden]


def test_links_keep_their_id_url_span_and_link_text() -> None:
    found = read_markup(TEXT)
    by_id = {link.identity: link for link in found.links}
    assert set(by_id) == {3432, 341, 448}
    mankrik = by_id[3432]
    assert TEXT[mankrik.start : mankrik.end] == "https://www.wowhead.com/npc=3432/mankrik"
    assert mankrik.text_start is not None and mankrik.text_end is not None
    assert TEXT[mankrik.text_start : mankrik.text_end] == "Mankrik <Quest Giver>"
    oslow = by_id[341]
    assert TEXT[oslow.start : oslow.end] == "https://wowgaming.altervista.org/aowow/?npc=341"
    assert oslow.text_start is None  # a bare URL: its name is read from the text beside it
    bbcode = by_id[448]
    assert bbcode.text_start is not None
    assert TEXT[bbcode.text_start : bbcode.text_end] == "Hogger"
    (quest,) = found.other_link_texts  # a quest page names no creature
    assert TEXT[quest[0] : quest[1]] == "the quest"


def test_template_comments_html_urls_json_and_images_are_hidden() -> None:
    hidden = " | ".join(_hidden(TEXT))
    for never_prose in (
        "[//]: # ([NPC] Magistrix Erona)",
        "<!-- Thrall -->",
        '{"searches": [{"term": "Ragnaros"}]}',
        "<Quest Giver>",
        "https://www.wowhead.com/npc=3432/mankrik",
        "![shot](http://img/x.png)",
    ):
        assert never_prose in hidden, never_prose
    words = {t.text for t in tokenize_source("S2", 1, TEXT, read_markup(TEXT)).tokens}
    assert {"Mankrik", "Oslow", "Loolruna", "Hogger", "Arzeth", "Bellygrub"} <= words
    assert not {"Magistrix", "Erona", "Thrall", "Ragnaros", "wowhead", "shot"} & words
    enclosed = {
        t.text for t in tokenize_source("S2", 1, TEXT, read_markup(TEXT)).tokens if t.enclosed
    }
    assert "Mankrik" not in enclosed  # a link text is prose, not a bracketed tag


def test_numbers_beside_names_code_and_quotes() -> None:
    found = read_markup(TEXT)
    assert 19694 in {n.value for n in found.numbers}
    assert 3432 not in {n.value for n in found.numbers}  # inside a URL: that is the link
    assert any("Arzeth the Merciless" in TEXT[s:e] for s, e in found.code)
    assert any("Bellygrub" in TEXT[s:e] for s, e in found.code)
    assert any("quoted Hogger" in TEXT[s:e] for s, e in found.quotes)


def test_an_id_label_without_a_space_marks_a_number() -> None:
    # REAL-DALARAN-641 writes every leader as "*King Varian Wrynn* *(ID:29611)*".
    text = "*King Varian Wrynn* *(ID:29611)*, *Thrall* *(id:4949)*; grid:1234, pos:5678"
    assert [n.value for n in read_markup(text).numbers] == [29611, 4949]
