"""``lookup`` on the real catalog: the embedded demo SQLite DB via the read-only WorldDatabase."""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from resources.world_db import WorldDatabase
from vba_assets.cli import main
from vba_assets.config import ProjectConfig, embedded_project_config
from vba_assets.domain.catalog.lookup import lookup
from vba_assets.domain.catalog.lookup_result import LookupResult, render_lookup
from vba_assets.domain.catalog.suggestions import MAX_PROBE_TERMS
from vba_assets.domain.catalog.world import CatalogRow, SearchResult
from vba_assets.worlddata.build import ensure_demo_database

Demo = tuple[ProjectConfig, WorldDatabase, Path]


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """The demo DB built once per session in a temp ``VBA_CACHE_DIR``.

    The variable is set only while the DB is built and the engine is opened (the engine keeps its
    file), so other tests keep their own cache setting.
    """
    with pytest.MonkeyPatch.context() as patch:
        cache = tmp_path_factory.mktemp("vba-lookup-cache")
        patch.setenv("VBA_CACHE_DIR", str(cache))
        path = ensure_demo_database()
        assert path.is_relative_to(cache)
        config = embedded_project_config(cache / "workspace")
        database = WorldDatabase.from_config(config)
        database.snapshot_binding()  # opens the engine on the file built above
    assert database.describe()["database"] == str(path)
    try:
        yield config, database, path
    finally:
        database.close()


def find(demo: Demo, query: str, limit: int = 5) -> LookupResult:
    config, database, _ = demo
    return lookup(query, config.catalogs, database, limit=limit)


def test_exact_english_name(demo: Demo) -> None:
    result = find(demo, "Wild Wolpertinger")
    assert result.status == "success" and result.match is not None
    assert (result.match.identity, result.match.tier) == (23487, "exact_name")
    fields = {f.column: f for f in result.match.fields}
    assert fields["minlevel"].value == 1 and fields["faction"].value == 188
    assert not fields["subname"].available  # NULL in the demo DB: reported, not invented
    locales = {row.fields[0].value for record in result.match.records for row in record.rows}
    assert {"deDE", "esES", "frFR", "ruRU"} <= locales


def test_localized_name(demo: Demo) -> None:
    result = find(demo, "Wilder Wolpertinger")
    assert result.status == "success" and result.match is not None
    assert result.match.identity == 23487
    assert (result.match.tier, result.match.catalog) == (
        "exact_localized_name",
        "creature_localized_name",
    )
    assert [row.name for row in result.match.records[0].rows] == ["Wild Wolpertinger"]


def test_quest_giver_first_name(demo: Demo) -> None:
    result = find(demo, "Goldark")
    assert result.status == "success" and result.match is not None
    assert (result.match.identity, result.match.name) == (23486, "Goldark Snipehunter")
    assert result.match.tier == "whole_phrase"


def test_thrall_needs_confirmation_in_stable_order(demo: Demo) -> None:
    result = find(demo, "Thrall")
    assert result.status == "needs_confirmation" and result.truncated
    assert result.best_tier == "exact_name" and result.tied >= 2
    exact = [o for o in result.options if o.tier == "exact_name"]
    assert {o.name for o in exact} == {"Thrall"}
    identities = [o.identity for o in exact]
    assert identities == sorted(identities) and identities[0] == 4949
    assert find(demo, "Thrall").model_dump_json() == result.model_dump_json()
    # the query searches see 25 rows whatever the limit: all eleven Thralls of the catalog tie
    assert result.tied == 11 and len(result.options) == 5
    wide = find(demo, "Thrall", limit=20)  # clamped to 10
    assert wide.status == "needs_confirmation" and wide.tied == 11 and wide.limit == 10
    assert [o.identity for o in wide.options[:5]] == identities


def test_shared_name_needs_confirmation(demo: Demo) -> None:
    result = find(demo, "Lieutenant Icehammer")
    assert result.status == "needs_confirmation" and not result.truncated
    identities = [o.identity for o in result.options]
    assert identities[:2] == [24634, 24665]
    assert {o.name for o in result.options} == {"Lieutenant Icehammer"}


def test_misspelling_suggests_a_wolpertinger(demo: Demo) -> None:
    result = find(demo, "wolpertingr")
    assert result.status == "error" and result.reason == "no_match"
    assert "Wolpertinger" in result.suggestions[0].name
    assert result.suggestions[0].identity in {22943, 23487}
    assert {s.identity for s in result.suggestions[:2]} == {22943, 23487}
    assert any("never proves" in note for note in result.coverage_notes)
    assert "coverage:" in render_lookup(result)


def test_no_word_characters(demo: Demo) -> None:
    result = find(demo, "?!")
    assert result.status == "error" and result.reason == "no_word_characters"
    assert result.searches == []


@pytest.mark.parametrize("query", ["Wild_Wolpertinger", "Wild%Wolpertinger"])
def test_like_wildcards_are_literal_in_the_real_database(demo: Demo, query: str) -> None:
    # Unescaped, '_' and '%' would match "Wild Wolpertinger" and give a success.
    result = find(demo, query)
    assert result.status == "error" and result.reason == "no_match"
    assert result.searches[0].term == query and result.searches[0].rows == 0


def test_sql_shaped_query_is_only_a_search_term(demo: Demo) -> None:
    result = find(demo, "Thrall' OR 1=1 --")
    assert result.status == "error" and result.reason == "no_match"
    assert result.searches[0].rows == 0
    assert find(demo, "Wild Wolpertinger").status == "success"  # the DB is intact


def test_typographic_apostrophe_on_the_real_catalog(demo: Demo) -> None:
    result = find(demo, "Kael’thas Sunstrider")
    options = result.options if result.status == "needs_confirmation" else []
    names = {o.name for o in options} | ({result.match.name} if result.match else set())
    assert "Kael'thas Sunstrider" in names
    assert [r.term for r in result.searches if r.purpose == "query_variant"] == [
        "Kael'thas Sunstrider"
    ] * 2


def test_cyrillic_lower_case_finds_the_capitalized_name(demo: Demo) -> None:
    result = find(demo, "тралл")
    assert result.status == "needs_confirmation"
    assert result.best_tier == "exact_localized_name"
    assert 4949 in [o.identity for o in result.options]


def test_the_source_is_the_bound_snapshot(demo: Demo) -> None:
    _, database, _ = demo
    binding = database.snapshot_binding()
    for query in ["Wild Wolpertinger", "Thrall", "wolpertingr"]:
        source = find(demo, query).source
        assert source is not None
        assert (source.backend, source.snapshot_label, source.schema_fingerprint) == (
            "sqlite",
            "demo-wotlk-3.3.5",
            binding.schema_fingerprint,
        )


@dataclass
class Recording:
    """The real database, recording every contains search it answers."""

    database: WorldDatabase
    results: list[SearchResult] = field(default_factory=list)

    def contains_search(self, catalog: str, term: str, limit: int) -> SearchResult:
        result = self.database.contains_search(catalog, term, limit)
        self.results.append(result)
        return result

    def fetch_by_identity(self, catalog: str, identity: int | str) -> list[CatalogRow]:
        return self.database.fetch_by_identity(catalog, identity)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("wolpertingr", {22943, 23487}),
        ("Goldrak Snipehuntr", {23486}),
        ("Lieutenant Icehamer", {24634, 24665}),
        ("Kaelthas Sunstrder", {19622, 24664}),
    ],
)
def test_a_misspelling_costs_a_few_indexed_searches(demo: Demo, query: str, expected: set[int]) -> None:  # fmt: skip
    config, database, _ = demo
    recording = Recording(database)
    result = lookup(query, config.catalogs, recording)
    assert result.reason == "no_match"
    assert {s.identity for s in result.suggestions[: len(expected)]} & expected
    probes = [r for r in result.searches if r.purpose.endswith("_probe")]
    assert len({r.term for r in probes}) <= MAX_PROBE_TERMS
    assert len(recording.results) <= 2 * (1 + MAX_PROBE_TERMS)
    # every search of a term with 3+ characters used the trigram index
    assert all("index_pattern" in r.parameters for r in recording.results)


def test_cli_lookup_defaults_to_five_options_and_reports_the_source(capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["lookup", "--json", "Thrall"]) == 0
    result = LookupResult.model_validate_json(capsys.readouterr().out)
    assert result.status == "needs_confirmation" and result.limit == 5 and len(result.options) == 5
    assert result.source is not None and result.source.snapshot_label == "demo-wotlk-3.3.5"
    assert main(["lookup", "--limit", "99", "Thrall"]) == 0
    text = capsys.readouterr().out
    assert "limit 99 was clamped to 10" in text and "source: sqlite snapshot" in text
    assert main(["lookup", "--json", "wolpertingr"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["reason"] == "no_match" and len(error["suggestions"]) <= 5
