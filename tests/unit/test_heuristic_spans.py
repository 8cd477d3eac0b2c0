"""Candidate spans and catalog-name spans of the heuristic planner: offsets, skips, format controls."""

import json
from pathlib import Path

import pytest

from vba_assets.domain.case.text import FORMAT_CONTROL_CODEPOINTS
from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.gazetteer import build_gazetteer, catalog_name_spans
from vba_assets.heuristic.inflection import inflects, stem, stem_form
from vba_assets.heuristic.lexicon import (
    guess_language,
    is_game_term,
    is_stopword,
    is_title_case_line,
)
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.spans import (
    SourceText,
    Span,
    extract_spans,
    tokenize_source,
)
from vba_assets.intake import import_report
from vba_assets.samples import sample_report_paths
from vba_assets.store import Workspace

CATALOGS = [
    CatalogView(name="creature_name", entity_type="creature", kind="name"),
    CatalogView(name="creature_localized_name", entity_type="creature", kind="localized_name"),
]


def source(text: str, alias: str = "S2", order: int = 0) -> SourceText:
    return tokenize_source(alias, order, text)


def spans_of(text: str) -> list[Span]:
    return extract_spans([source(text)])


def texts(text: str, kind: str | None = None) -> list[str]:
    return [s.text for s in spans_of(text) if kind is None or s.kind == kind]


def test_every_span_is_an_exact_slice_of_its_source() -> None:
    text = (
        "I can't find Kael'thas Sunstrider or the Pint-Sized Pink Pachyderm near Avatar of Hakkar."
    )
    for span in spans_of(text):
        assert text[span.start : span.end] == span.text


def test_capitalized_runs_keep_apostrophes_hyphens_and_inner_particles() -> None:
    found = texts(
        "Yesterday I met Kael'thas Sunstrider, then the Pint-Sized Pink Pachyderm, then Avatar "
        "of Hakkar and Arugoo of the Stillpine.",
        "run",
    )
    assert "Kael'thas Sunstrider" in found
    assert "Pint-Sized Pink Pachyderm" in found
    assert "Avatar of Hakkar" in found
    assert "Arugoo of the Stillpine" in found
    assert not any(t.endswith((" of", " the")) or t.startswith(("of ", "the ")) for t in found)


def test_sub_runs_split_at_particles_and_after_zone_words() -> None:
    quoted = texts('I picked up "Catch the Wild Wolpertinger!" from him.')
    assert "Catch the Wild Wolpertinger" in quoted  # quoted string, trailing "!" dropped
    assert "Wild Wolpertinger" in quoted  # the sub-run after the particle
    zone = texts("Tonight in Black Temple Illidan Stormrage evaded.")
    assert "Black Temple" in zone and "Illidan Stormrage" in zone


def test_singular_is_a_span_inside_the_plural() -> None:
    text = "Those Wolpertingers are gone."
    singular = next(s for s in spans_of(text) if s.kind == "singular")
    assert singular.text == "Wolpertinger"
    assert text[singular.start : singular.end + 1] == "Wolpertingers"


def test_possessive_gives_the_name_before_it() -> None:
    text = "Can't find any Wild Wolpertinger for Goldark's Brewfest quest"
    found = {s.text: s for s in spans_of(text)}
    assert "Goldark" in found and "Goldark's" not in found
    assert text[found["Goldark"].end : found["Goldark"].end + 2] == "'s"
    assert "Wild Wolpertinger" in found and "Brewfest" in found


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("# Hogger report\nHe is gone.", "Hogger"),
        ("Steps to reproduce:\n1. Log in.", "Steps"),
        ("Expected: nothing happens.", "Expected"),
        ("Client version: 3.3.5a (12340)", "Client"),
        ("It broke on Tuesday, September 24.", "Tuesday"),
        ("Hi GMs, I need help.", "GMs"),
        ("[Party] [Sunniva]: mine too", "Sunniva"),
        ("Illidan Stormrage <The Betrayer> evaded.", "The Betrayer"),
    ],
)
def test_headings_templates_versions_dates_and_enclosed_text_are_skipped(
    text: str, absent: str
) -> None:
    found = texts(text)
    assert all(absent not in t for t in found), found
    assert not any(any(c.isdigit() for c in t) for t in found)


def test_template_label_is_skipped_but_its_value_is_read() -> None:
    found = texts("Expected: Hogger spawns near the farm.\nActual: Hogger never shows up.")
    assert found.count("Hogger") == 2
    assert "Expected" not in found and "Actual" not in found


def test_sentence_initial_stop_words_and_verbs_do_not_join_a_name() -> None:
    found = spans_of("The Wild Wolpertinger is gone. Pulled Harpoon Master Yavus twice.")
    by_text = {s.text: s for s in found}
    assert "Wild Wolpertinger" in by_text and "The Wild Wolpertinger" not in by_text
    assert by_text["Pulled Harpoon Master Yavus"].weak
    assert by_text["Harpoon Master Yavus"].kind == "run_tail"
    assert not by_text["Harpoon Master Yavus"].weak


@pytest.mark.parametrize("control", ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff"])
def test_no_span_crosses_a_format_control(control: str) -> None:
    text = f'I can\'t see any Wild{control}Wolpertinger and "Gold{control}ark" is here.'
    found = spans_of(text)
    assert found
    for span in found:
        assert not any(ord(c) in FORMAT_CONTROL_CODEPOINTS for c in span.text)
        assert text[span.start : span.end] == span.text
    assert "Wild Wolpertinger" not in [s.text for s in found]


def test_title_case_and_language_and_stop_words() -> None:
    assert is_title_case_line("Can't Find Any Wild Wolpertinger For The Quest")
    assert not is_title_case_line("Can't find any Wild Wolpertinger for the quest")
    assert is_stopword("Those're") and is_stopword("I") and not is_stopword("Goldark")
    german = "ich war gestern auf dem Braufest und die Quest ist kaputt"
    english = "I was at the Brewfest and the quest is broken"
    assert guess_language(german.split(" ")) == "de"
    assert guess_language(english.split(" ")) == "en"


# --- the gazetteer: the packaged name index -------------------------------------------------------


@pytest.fixture(scope="module")
def sample_sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[SourceText]]:
    workspace = Workspace(tmp_path_factory.mktemp("samples"))
    found: dict[str, list[SourceText]] = {}
    for path in sample_report_paths():
        result = import_report(workspace, path)
        case = json.loads(Path(workspace.root, "cases", result.case_id, "case.json").read_text())
        found[result.case_id] = [
            tokenize_source(s["alias"], order, s["text"])
            for order, s in enumerate(case["sources"])
            if s["readable"]
        ]
    return found


def test_sample_spans_are_exact_slices(sample_sources: dict[str, list[SourceText]]) -> None:
    for sources in sample_sources.values():
        by_alias = {s.alias: s.text for s in sources}
        for span in extract_spans(sources):
            assert by_alias[span.source][span.start : span.end] == span.text


def test_the_gazetteer_maps_index_entries_to_the_configured_catalogs(names: NameIndex) -> None:
    gazetteer = build_gazetteer(CATALOGS, names)
    assert gazetteer.exact("Wild Wolpertinger") == {"creature_name": [23487]}
    assert gazetteer.exact("Wilder Wolpertinger") == {"creature_localized_name": [23487]}
    only_primary = build_gazetteer(CATALOGS[:1], names)
    assert only_primary.exact("Wilder Wolpertinger") == {}
    other_entities = [CatalogView(name="object_name", entity_type="gameobject", kind="name")]
    assert build_gazetteer(other_entities, names).exact("Wild Wolpertinger") == {}
    assert not gazetteer.fully_truncated("Wolpertinger")  # the index holds every name


def test_catalog_name_spans_find_whole_names_only(
    names: NameIndex, sample_sources: dict[str, list[SourceText]]
) -> None:
    sources = sample_sources["BUG-000020"]
    gazetteer = build_gazetteer(CATALOGS, names)
    names = catalog_name_spans(sources, gazetteer)
    found = {(s.source, s.text) for s in names}
    assert ("S1", "Wild Wolpertinger") in found
    assert ("S2", "Goldark Snipehunter") in found
    # "Wolpertinger" is a catalog name, but here it is only part of other names
    # ("Stunned Wolpertingers", "Wolpertinger Net") or inside "Wild Wolpertinger".
    assert not any(s.text == "Wolpertinger" for s in names)
    assert gazetteer.exact("wild wolpertinger") == {"creature_name": [23487]}


def test_lower_case_names_are_found_by_the_catalog(names: NameIndex) -> None:
    sources = [source("got catch the wild wolpertinger! from glodrak in durotar", "S1")]
    gazetteer = build_gazetteer(CATALOGS, names)
    names = catalog_name_spans(sources, gazetteer)
    assert [s.text for s in names if not s.weak] == ["wild wolpertinger"]


def test_localized_names_match_in_a_german_report(names: NameIndex) -> None:
    text = "Goldark Spatzenjäger hat mir die Quest gegeben, aber kein Wilder Wolpertinger ist da."
    sources = [source(text)]
    gazetteer = build_gazetteer(CATALOGS, names)
    names = {s.text for s in catalog_name_spans(sources, gazetteer)}
    assert {"Goldark Spatzenjäger", "Wilder Wolpertinger"} <= names
    assert gazetteer.exact("Wilder Wolpertinger") == {"creature_localized_name": [23487]}


# --- lexicon, search forms and the bounded gazetteer (hand-written texts) ------------------------


def test_stop_words_of_every_list_are_stop_words() -> None:
    # the lists are written as adjacent string literals: none may glue two words together
    for word in ("log", "quest", "work", "der", "zehn", "le"):
        assert is_stopword(word), word
    assert is_game_term("Skinning") and is_game_term("death  knight")
    assert not is_game_term("Skinner")


def test_language_guess_uses_letters_as_well_as_function_words() -> None:
    # "in" is English and German: it decides nothing; the umlauts and "sie" do
    german = "In Seenhain stehen in den Häusern Wachen fest, man kann sie nicht ansprechen"
    assert guess_language(german.split(" ")) == "de"
    assert guess_language(["Грубобрюх", "пропал", "у", "озера"]) == "ru"
    assert guess_language(["the", "boss", "is", "gone"]) == "en"


def test_stems_of_inflected_german_and_russian_words() -> None:
    assert stem("Hirnlose", "de") == stem("Hirnloser", "de") == "hirnlos"
    assert stem("Грубобрюха", "ru") == stem("Грубобрюх", "ru") == "грубобрюх"
    assert stem("Eber", "de") == "eber"  # the stem keeps at least MIN_STEM letters
    assert stem_form("Грубобрюха", "ru") == "Грубобрюх"
    assert stem("Hogger's", "en") == "hogger's"  # no endings outside German and Russian
    assert not inflects("en") and inflects("de") and inflects("ru")


def test_a_catalog_name_may_end_in_an_abbreviation_period(names: NameIndex) -> None:
    sources = [source("Yesterday Torkus Jr. stood still for an hour.")]
    gazetteer = build_gazetteer(CATALOGS, names)
    names = [s.text for s in catalog_name_spans(sources, gazetteer)]
    assert "Torkus Jr." in names and "Torkus Jr" not in names


def test_the_gazetteer_keeps_the_locale_of_localized_rows(names: NameIndex) -> None:
    gazetteer = build_gazetteer(CATALOGS, names)
    entries = gazetteer.entries("Arcanist Adurin")
    localized = {(e.identity, e.language) for e in entries if e.kind == "localized_name"}
    assert localized == {(31305, "de")}
    assert {e.identity for e in entries if e.kind == "name"} == {31305, 31579}
