"""The lookup tool's rules and four outcomes, against an honest in-memory contains search."""

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from vba_assets.domain.catalog import lookup as lookup_module
from vba_assets.domain.catalog.lookup import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    QUERY_ROW_LIMIT,
    lookup,
    query_terms,
)
from vba_assets.domain.catalog.lookup_result import LookupResult, LookupSource, render_lookup
from vba_assets.domain.catalog.matching import identity_key
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.suggestions import MAX_PROBE_TERMS, candidate_probes
from vba_assets.domain.catalog.world import CatalogRow, Scalar, SearchResult, SnapshotBinding
from vba_assets.errors import ConfigError, ErrorCode, InputError

NAME = CatalogConfig(
    name="creature_name",
    entity_type="creature",
    table="creature_template",
    identity_column="entry",
    name_column="name",
    data_columns=["subname", "minlevel", "rank"],
)
LOCALIZED = CatalogConfig(
    name="creature_localized_name",
    entity_type="creature",
    kind="localized_name",
    table="creature_template_locale",
    identity_column="entry",
    name_column="Name",
    data_columns=["locale", "Title"],
)
QUESTS = CatalogConfig(
    name="quest_title",
    entity_type="quest",
    table="quest_template",
    identity_column="ID",
    name_column="LogTitle",
)
CATALOGS = [NAME, LOCALIZED, QUESTS]


def creature(entry: int, name: str, subname: str | None = None, level: int = 1) -> CatalogRow:
    return CatalogRow(
        identity=entry, name=name, data={"subname": subname, "minlevel": level, "rank": 0}
    )


def locale(entry: int, code: str, name: str) -> CatalogRow:
    return CatalogRow(identity=entry, name=name, data={"locale": code, "Title": None})


ROWS: dict[str, list[CatalogRow]] = {
    "creature_name": [
        creature(23487, "Wild Wolpertinger"),
        creature(22943, "Wolpertinger"),
        creature(23486, "Goldark Snipehunter", level=65),
        creature(24657, "Glodrak Huntsniper", level=65),
        creature(4949, "Thrall", "Warchief", 83),
        creature(17852, "Thrall", "Warchief", 73),
        creature(31412, "Thrall", "Warchief", 83),
        creature(16580, "Thrallmar Grunt", level=60),
        creature(19597, "Thrall's Hero Music"),
        creature(24634, "Lieutenant Icehammer", level=74),
        creature(24665, "Lieutenant Icehammer"),
        creature(19622, "Kael'thas Sunstrider", level=73),
        creature(90001, "Test_Dummy"),
        creature(90002, "TestXDummy"),
        creature(90003, "100% Proof"),
        creature(90004, "Wild Boar"),
        creature(90005, "Wild Worg"),
        # a row that does not carry every configured column
        CatalogRow(identity=90006, name="Hollow Statue", data={"subname": ""}),
    ],
    "creature_localized_name": [
        locale(23487, "deDE", "Wilder Wolpertinger"),
        locale(23487, "esES", "Wolpertinger salvaje"),
        locale(22943, "deDE", "Wolpertinger"),
        locale(23486, "deDE", "Goldark Spatzenjäger"),
        locale(23486, "esES", "Goldark Novatada"),
        locale(23486, "zhTW", "苟達克‧狙獵者"),
        locale(4949, "ruRU", "Тралл"),
        locale(17852, "ruRU", "Тралл"),
        locale(3771, "frFR", "Implorateur de l’enfer Mornecoeur"),
    ],
    "quest_title": [CatalogRow(identity=11117, name="Catch the Wild Wolpertinger!")],
}


def _ascii_fold(text: str) -> str:
    """SQLite's LIKE folds ASCII letters only."""
    return "".join(c.lower() if c.isascii() else c for c in text)


@dataclass
class FakeCatalogSearch:
    """A literal contains search with the database's ordering and ``limit + 1`` truncation.

    ``shuffle_seed`` returns the rows of each result in a random order, as a database that ignored
    its ORDER BY would: the lookup's output must not change.
    """

    rows: dict[str, list[CatalogRow]] = field(default_factory=lambda: ROWS)
    shuffle_seed: int | None = None
    calls: list[tuple[str, str, int]] = field(default_factory=list)
    fetches: list[tuple[str, int | str]] = field(default_factory=list)

    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        self.calls.append((catalog, term, limit))
        config = next(c for c in CATALOGS if c.name == catalog)
        hits = [r for r in self.rows[catalog] if _ascii_fold(term) in _ascii_fold(r.name)]
        # ORDER BY name = term DESC, LENGTH(name), name, identity (ARCHITECTURE 6.2)
        hits.sort(key=lambda r: (r.name != term, len(r.name), r.name, identity_key(r.identity)))
        fetched = hits[: limit + 1]
        rows = fetched[:limit]
        if self.shuffle_seed is not None:
            random.Random(f"{self.shuffle_seed}{catalog}{term}").shuffle(rows)
        parameters: dict[str, Scalar] = {"term": term, "limit": limit + 1}
        return SearchResult(
            catalog=catalog,
            entity_type=config.entity_type,
            catalog_kind=config.kind,
            term=term,
            sql="SELECT ... WHERE name LIKE :pattern ESCAPE '\\' LIMIT :limit",
            parameters=parameters,
            snapshot=SnapshotBinding(label="fake", backend="sqlite", schema_fingerprint="0" * 64),
            row_limit=limit,
            truncated=len(fetched) > limit,
            rows=rows,
            elapsed_ms=0.0,
            coverage_notes=["fake: LIKE folds ASCII case only"],
        )

    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]:
        self.fetches.append((catalog, identity))
        rows = [r for r in self.rows[catalog] if r.identity == identity]
        if self.shuffle_seed is not None:
            random.Random(self.shuffle_seed).shuffle(rows)
        return rows


def run(query: str, **kwargs: object) -> tuple[LookupResult, FakeCatalogSearch]:
    search = FakeCatalogSearch()
    return lookup(query, CATALOGS, search, **kwargs), search  # type: ignore[arg-type]


#: Twelve creatures that share one name, for the limit tests.
GNOLLS = [creature(95001 + index, "Gnoll Grunt") for index in range(12)]


def run_gnolls(query: str, **kwargs: object) -> tuple[LookupResult, FakeCatalogSearch]:
    search = FakeCatalogSearch(rows={**ROWS, "creature_name": ROWS["creature_name"] + GNOLLS})
    return lookup(query, CATALOGS, search, **kwargs), search  # type: ignore[arg-type]


@pytest.fixture
def query_rows(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Set the row limit of the query searches (to force truncation on the small fake data)."""

    def set_rows(rows: int) -> None:
        monkeypatch.setattr(lookup_module, "QUERY_ROW_LIMIT", rows)

    return set_rows


# --- success -----------------------------------------------------------------------------------


def test_exact_name_success_reports_data_columns_and_unavailable_values() -> None:
    result, search = run("Wild Wolpertinger")
    assert result.status == "success" and result.reason is None
    assert result.match is not None
    assert (result.match.identity, result.match.name) == (23487, "Wild Wolpertinger")
    assert (result.match.tier, result.match.catalog) == ("exact_name", "creature_name")
    fields = {f.column: f for f in result.match.fields}
    assert fields["minlevel"].available and fields["minlevel"].value == 1
    assert not fields["subname"].available and fields["subname"].value is None
    assert "NULL" in (fields["subname"].note or "")
    # the entity in the other catalog of its type, fetched by identity
    assert search.fetches == [("creature_localized_name", 23487)]
    [record] = result.match.records
    assert [row.name for row in record.rows] == ["Wilder Wolpertinger", "Wolpertinger salvaje"]
    # one weaker entity (the quest catalog is another entity type and is not searched)
    assert result.other_candidates == 0
    assert {c for c, _, _ in search.calls} == {"creature_name", "creature_localized_name"}


def test_localized_exact_name_succeeds_and_shows_the_primary_name() -> None:
    result, _ = run("Wilder Wolpertinger")
    assert result.status == "success" and result.match is not None
    assert result.match.identity == 23487
    assert (result.match.tier, result.match.catalog) == (
        "exact_localized_name",
        "creature_localized_name",
    )
    assert [f.column for f in result.match.fields] == ["locale", "Title"]
    assert result.match.fields[0].value == "deDE"
    [record] = result.match.records
    assert record.catalog == "creature_name"
    assert [row.name for row in record.rows] == ["Wild Wolpertinger"]


def test_whole_phrase_success_collapses_the_rows_of_one_entity() -> None:
    result, _ = run("Goldark")
    assert result.status == "success" and result.match is not None
    assert (result.match.identity, result.match.name) == (23486, "Goldark Snipehunter")
    assert result.match.tier == "whole_phrase"
    assert result.match.also_matched == [
        "creature_localized_name: Goldark Novatada (whole_phrase)",
        "creature_localized_name: Goldark Spatzenjäger (whole_phrase)",
    ]


def test_a_column_the_row_does_not_carry_is_unavailable_not_invented() -> None:
    result, _ = run("Hollow Statue")
    assert result.match is not None
    fields = {f.column: f for f in result.match.fields}
    assert fields["subname"].available and fields["subname"].value == ""
    assert not fields["rank"].available and fields["rank"].note == "not returned by the catalog"
    [record] = result.match.records
    assert record.rows == [] and "no row" in (record.note or "")
    assert "rank: unavailable (not returned by the catalog)" in render_lookup(result)


def test_exact_success_survives_truncation(query_rows: Callable[[int], None]) -> None:
    query_rows(1)  # the name search returns "Wolpertinger" and reports more rows
    result, _ = run("Wolpertinger")
    assert result.truncated
    assert result.status == "success" and result.match is not None
    assert result.match.identity == 22943


# --- needs_confirmation ------------------------------------------------------------------------


def test_tied_exact_names_need_confirmation_in_stable_order() -> None:
    result, _ = run("Thrall")
    assert result.status == "needs_confirmation" and result.match is None
    assert result.best_tier == "exact_name" and result.tied == 3
    assert [(o.identity, o.tier) for o in result.options[:3]] == [
        (4949, "exact_name"),
        (17852, "exact_name"),
        (31412, "exact_name"),
    ]


def test_weaker_options_follow_in_tier_order() -> None:
    result, _ = run("Thrall")
    tiers = [o.tier for o in result.options]
    assert tiers == ["exact_name", "exact_name", "exact_name", "all_tokens", "substring"]
    assert [o.identity for o in result.options[3:]] == [19597, 16580]


def test_shared_name_needs_confirmation() -> None:
    result, _ = run("Lieutenant Icehammer")
    assert result.status == "needs_confirmation"
    assert [o.identity for o in result.options] == [24634, 24665]


def test_truncated_non_exact_best_cannot_succeed(query_rows: Callable[[int], None]) -> None:
    query_rows(1)  # one entity at whole_phrase, but the localized search hit its limit of 1 row
    result, _ = run("Goldark")
    assert result.truncated and result.tied == 1
    assert result.status == "needs_confirmation"
    assert [o.identity for o in result.options] == [23486]
    assert any(note.startswith("truncated") for note in result.notes)


def test_truncated_tie_is_reported_as_a_lower_bound(query_rows: Callable[[int], None]) -> None:
    query_rows(2)
    result, _ = run("Thrall", limit=2)
    assert result.status == "needs_confirmation" and result.truncated
    assert [o.identity for o in result.options] == [4949, 17852]
    assert "at least 2" in result.message


def test_options_are_capped_at_limit_but_searches_are_not() -> None:
    result, search = run("Wolp", limit=2)
    assert result.status == "needs_confirmation" and result.limit == 2
    assert len(result.options) == 2
    assert all(limit == QUERY_ROW_LIMIT for _, _, limit in search.calls)


@pytest.mark.parametrize(
    "query", ["Thrall", "Wolp", "Goldark", "wolpertingr", "wild wolpertingr", "Gnoll Grunt", "Gnol"]
)
def test_the_limit_changes_only_how_many_are_shown(query: str) -> None:
    """The seed's rule: the outcome is the same for every limit; only the list is cut."""
    widest, widest_search = run_gnolls(query, limit=MAX_LIMIT)
    for limit in range(1, MAX_LIMIT):
        result, search = run_gnolls(query, limit=limit)
        assert search.calls == widest_search.calls
        assert (result.status, result.reason, result.best_tier, result.tied, result.truncated) == (
            widest.status, widest.reason, widest.best_tier, widest.tied, widest.truncated)  # fmt: skip
        assert result.options == widest.options[:limit]
        assert result.suggestions == widest.suggestions[:limit]


def test_default_limit_is_five() -> None:
    result, _ = run_gnolls("Gnoll Grunt")
    assert DEFAULT_LIMIT == 5 and result.limit == 5
    assert len(result.options) == 5 and result.tied > 5


# --- error: no match ---------------------------------------------------------------------------


def test_misspelling_suggests_wolpertinger_first() -> None:
    result, search = run("wolpertingr")
    assert result.status == "error" and result.reason == "no_match"
    assert result.code is ErrorCode.LOOKUP_NO_MATCH
    assert [s.identity for s in result.suggestions[:2]] == [22943, 23487]
    assert result.suggestions[0].name == "Wolpertinger"
    purposes = [r.purpose for r in result.searches]
    assert purposes[:2] == ["query", "query"]
    assert set(purposes[2:]) == {"spelling_probe"}
    assert {r.term for r in result.searches if r.purpose == "spelling_probe"} == {"wolp", "ingr"}
    assert len(search.calls) == len(result.searches)


def test_suggestions_rank_by_covered_words_then_extra_tokens() -> None:
    result, _ = run("wild wolpertingr")
    assert result.reason == "no_match"
    names = [s.name for s in result.suggestions]
    assert names[0] == "Wild Wolpertinger"
    assert result.suggestions[0].covered_words == 2
    # one covered word each: nothing else carried first, then exact words, then shorter names
    assert names[1:4] == ["Wolpertinger", "Wild Boar", "Wild Worg"]


def test_probes_are_bounded() -> None:
    query = "zyxwvutsr qponmlkji hgfedcbaz abcdefghij klmnopqrst uvwxyzabc"
    result, search = run(query)
    assert result.reason == "no_match" and result.suggestions == []
    assert len(list(candidate_probes(query))) > MAX_PROBE_TERMS
    assert len(search.calls) == 2 * (1 + MAX_PROBE_TERMS)  # query + probes, on both catalogs
    assert [r.term for r in result.searches[2::2]] == [
        "abcdefghij",
        "klmnopqrst",
        "zyxwvutsr",
        "qponmlkji",
    ]


def test_a_word_some_name_contains_gets_no_spelling_probes() -> None:
    result, _ = run("Lieutenant Icehamer")
    assert result.reason == "no_match"
    probes = [(r.term, r.purpose) for r in result.searches if r.catalog == "creature_name"][1:]
    assert probes == [
        ("Lieutenant", "word_probe"),
        ("Icehamer", "word_probe"),
        ("Iceh", "spelling_probe"),
        ("amer", "spelling_probe"),
    ]
    assert [s.identity for s in result.suggestions[:2]] == [24634, 24665]


def test_probes_shorter_than_three_characters_are_not_made() -> None:
    assert [p.term for p in candidate_probes("Дд wolf ab")] == ["wolf"]
    assert [p.term for p in candidate_probes("Wolf", searched=["wolf"])] == []


def test_a_description_suggests_the_entity_it_names() -> None:
    result, _ = run("the quest giver goldark")
    assert result.reason == "no_match"
    assert result.suggestions[0].identity == 23486


# --- error: no word characters -----------------------------------------------------------------


@pytest.mark.parametrize("query", ["?!", "?!...", "%%", "%", "_", "___", "  ", "", "\u200b", "'-'"])
def test_no_word_characters_makes_no_search(query: str) -> None:
    result, search = run(query)
    assert result.status == "error" and result.reason == "no_word_characters"
    assert result.code is ErrorCode.LOOKUP_NO_WORD_CHARACTERS
    assert search.calls == [] and result.searches == []
    assert "error (no_word_characters)" in render_lookup(result)


# --- hostile queries go to the search literally ------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["Test_Dummy", "100% Proof", "' OR 1=1 --", '"Thrall"', "Thrall'; DROP TABLE x; --", "a\\b"],
)
def test_hostile_queries_reach_the_search_literally(query: str) -> None:
    _, search = run(query)
    assert search.calls[0] == ("creature_name", query, QUERY_ROW_LIMIT)
    assert search.calls[1] == ("creature_localized_name", query, QUERY_ROW_LIMIT)


def test_underscore_and_percent_are_literal_characters() -> None:
    result, _ = run("Test_Dummy")
    assert result.match is not None and result.match.identity == 90001
    result, _ = run("100%")
    assert result.match is not None and result.match.identity == 90003
    result, _ = run("' OR 1=1 --")
    assert result.reason == "no_match"


def test_hidden_characters_are_searched_literally_and_never_match_clean_names() -> None:
    query = "Wild\u200bWolpertinger"
    result, search = run(query)
    assert search.calls[0] == ("creature_name", query, QUERY_ROW_LIMIT)
    assert result.status == "error" and result.reason == "no_match"
    assert any("U+200B" in note for note in result.notes)
    bidi, _ = run("\u202eThrall")
    assert bidi.status == "error" and any("U+202E" in note for note in bidi.notes)


# --- unicode -----------------------------------------------------------------------------------


def test_typographic_apostrophe_finds_the_ascii_name() -> None:
    result, search = run("Kael’thas Sunstrider")
    assert result.match is not None and result.match.identity == 19622
    assert result.match.tier == "exact_name"
    assert [term for _, term, _ in search.calls] == ["Kael’thas Sunstrider"] * 2 + [
        "Kael'thas Sunstrider"
    ] * 2


def test_ascii_apostrophe_finds_the_typographic_name() -> None:
    result, _ = run("Implorateur de l'enfer Mornecoeur")
    assert result.match is not None and result.match.identity == 3771


@pytest.mark.parametrize("query", ["苟達克·狙獵者", "苟達克‧狙獵者", "苟達克・狙獵者"])
def test_any_name_separator_finds_the_name(query: str) -> None:
    result, _ = run(query)
    assert result.match is not None and result.match.identity == 23486
    assert result.match.tier == "exact_localized_name"


def test_cyrillic_case_is_searched_in_both_forms() -> None:
    result, search = run("тралл")
    assert "Тралл" in [term for _, term, _ in search.calls]
    assert result.status == "needs_confirmation"
    assert [o.identity for o in result.options] == [4949, 17852]


def test_query_terms() -> None:
    assert query_terms("  Wild   Wolpertinger ") == ["Wild Wolpertinger"]
    assert query_terms("50%_x") == ["50%_x"]
    assert query_terms("Kael’thas") == ["Kael’thas", "Kael'thas"]


# --- scope and arguments -----------------------------------------------------------------------


def test_catalog_restricts_the_search() -> None:
    result, search = run("Wilder Wolpertinger", catalog="creature_localized_name")
    assert result.catalogs == ["creature_localized_name"]
    assert {c for c, _, _ in search.calls} == {"creature_localized_name"}
    assert result.match is not None and result.match.identity == 23487


def test_catalog_of_another_entity_type_can_be_chosen() -> None:
    result, _ = run("Catch the Wild Wolpertinger!", catalog="quest_title")
    assert result.match is not None
    assert (result.match.entity_type, result.match.identity) == ("quest", 11117)


def test_unknown_catalog_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        run("Thrall", catalog="item_name")
    assert caught.value.code is ErrorCode.CATALOG_UNKNOWN
    assert "creature_name" in caught.value.message


def test_no_catalogs_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        lookup("Thrall", [], FakeCatalogSearch())


@pytest.mark.parametrize(("limit", "shown"), [(0, 1), (-1, 1), (11, 10), (50, 10), (10**9, 10)])
def test_out_of_range_limits_are_clamped_and_noted(limit: int, shown: int) -> None:
    result, _ = run_gnolls("Gnoll Grunt", limit=limit)
    assert result.limit == shown and len(result.options) == shown
    assert f"limit {limit} was clamped to {shown} (allowed: 1-10)" in result.notes
    assert not any("clamped" in note for note in run_gnolls("Gnoll", limit=shown)[0].notes)


@pytest.mark.parametrize("limit", [True, "5", 2.5, None])
def test_a_limit_that_is_not_an_integer_is_an_input_error(limit: object) -> None:
    with pytest.raises(InputError) as caught:
        run("Thrall", limit=limit)
    assert caught.value.code is ErrorCode.LOOKUP_INVALID_REQUEST


def test_overlong_query_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        run("x" * 201)
    assert caught.value.code is ErrorCode.LOOKUP_INVALID_REQUEST


# --- determinism and rendering -----------------------------------------------------------------

QUERIES = [
    "Wild Wolpertinger",
    "Wilder Wolpertinger",
    "Goldark",
    "Thrall",
    "Lieutenant Icehammer",
    "wolpertingr",
    "wild wolpertingr",
    "Wolp",
    "?!",
    "тралл",
]


@pytest.mark.parametrize("query", QUERIES)
def test_lookup_output_does_not_depend_on_row_order(query: str) -> None:
    baseline = lookup(query, CATALOGS, FakeCatalogSearch()).model_dump_json()
    for seed in range(5):
        shuffled = lookup(query, CATALOGS, FakeCatalogSearch(shuffle_seed=seed))
        assert shuffled.model_dump_json() == baseline


def test_every_search_is_recorded() -> None:
    result, search = run("Goldark")
    assert [(r.catalog, r.term, r.row_limit) for r in result.searches] == search.calls
    assert [r.rows for r in result.searches] == [1, 2]
    assert result.coverage_notes == ["fake: LIKE folds ASCII case only"]


def test_render_is_compact_and_names_the_outcome() -> None:
    success, _ = run("Wild Wolpertinger")
    text = render_lookup(success)
    assert (
        text.splitlines()[0]
        == "success: creature 23487 'Wild Wolpertinger' [exact_name in creature_name]"
    )
    assert "subname: unavailable" in text and "searched: creature_name" in text
    confirm = render_lookup(run("Thrall")[0])
    assert confirm.startswith("needs confirmation: 3 entities tie at exact_name")
    assert "   1. creature 4949 'Thrall' [exact_name in creature_name]" in confirm
    error = render_lookup(run("wolpertingr")[0])
    assert error.startswith("error (no_match)")
    assert "1. creature 22943 'Wolpertinger'" in error


def test_the_source_is_the_snapshot_the_searches_read() -> None:
    result, _ = run("Wild Wolpertinger")
    assert result.source == LookupSource(
        backend="sqlite", snapshot_label="fake", schema_fingerprint="0" * 64
    )
    assert render_lookup(result).splitlines()[-1] == (
        "  source: sqlite snapshot 'fake', schema 0000000000000000"
    )
    assert run("wolpertingr")[0].source == result.source
    nothing, _ = run("?!")
    assert nothing.source is None  # nothing was searched, so nothing was read


def test_result_round_trips_through_json() -> None:
    for query in QUERIES:
        result = lookup(query, CATALOGS, FakeCatalogSearch())
        assert LookupResult.model_validate_json(result.model_dump_json()) == result
