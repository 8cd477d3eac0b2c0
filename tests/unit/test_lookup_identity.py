"""``vba lookup`` by identity: ``23487``, ``npc=23487`` and a database URL give that entry's row."""

import pytest

from tests.unit.test_lookup import CATALOGS, LOCALIZED, FakeCatalogSearch
from vba_assets.cli import main
from vba_assets.domain.catalog.identity_lookup import identity_query
from vba_assets.domain.catalog.lookup import lookup
from vba_assets.domain.catalog.lookup_result import LookupResult, render_lookup
from vba_assets.errors import ErrorCode

URL = "https://www.wowhead.com/npc=23487/wild-wolpertinger"


@pytest.mark.parametrize(
    ("query", "identity"),
    [
        ("23487", 23487),
        (" 23487 ", 23487),
        ("npc=23487", 23487),
        ("NPC=23487", 23487),
        ("creature=23487", 23487),
        (URL, 23487),
        ("https://www.wowhead.com/wotlk/npc=23487", 23487),
        ("https://wowhead.com/?npc=23487#comments", 23487),
        ("https://db.example.org/npc/23487/wild", 23487),
        ("２３４８７", None),  # full-width digits are not an identity
        ("٢٣٤٨٧", None),  # nor Arabic-Indic ones
        ("npc=٢٣٤", None),
        ("npc=000023487", 23487),  # leading zeros are normalised (identity_digits)
        ("https://www.wowhead.com/npc=000023487", 23487),
        ("https://www.wowhead.com/npc=２３４８７", None),
        ("https://www.wowhead.com/npc=23487٢", None),  # one run, not ASCII: never read in part
        ("0", None),
        ("99999999999", None),
        ("item=23487", None),
        ("https://www.wowhead.com/item=23487", None),
        ("Wild Wolpertinger", None),
        ("23487 Wolpertinger", None),
    ],
)
def test_identity_query_reads_ascii_ids_keys_and_urls(query: str, identity: int | None) -> None:
    assert identity_query(query) == identity


@pytest.mark.parametrize("query", ["23487", "npc=23487", URL])
def test_an_identity_is_fetched_not_searched(query: str) -> None:
    search = FakeCatalogSearch()
    result = lookup(query, CATALOGS, search)  # type: ignore[arg-type]
    assert result.status == "success" and result.match is not None
    assert result.match.identity == 23487 and result.match.name == "Wild Wolpertinger"
    assert result.match.catalog == "creature_name" and result.match.tier == "identity"
    assert [f.column for f in result.match.fields] == ["subname", "minlevel", "rank"]
    localized = [r for r in result.match.records if r.catalog == LOCALIZED.name]
    assert [row.name for row in localized[0].rows] == [
        "Wilder Wolpertinger",
        "Wolpertinger salvaje",
    ]
    assert search.calls == []  # no contains search at all
    assert ("creature_name", 23487) in search.fetches
    assert result.searches == [] and result.source is None
    assert "fetched identity 23487" in render_lookup(result)


def test_an_identity_no_catalog_holds_is_a_scoped_no_match() -> None:
    search = FakeCatalogSearch()
    result = lookup("npc=424242", CATALOGS, search)  # type: ignore[arg-type]
    assert result.status == "error" and result.reason == "no_match"
    assert result.code == ErrorCode.LOOKUP_NO_MATCH
    assert "identity 424242" in result.message and search.calls == []


def test_an_identity_only_in_the_chosen_catalog_scope() -> None:
    result = lookup("3771", CATALOGS, FakeCatalogSearch(), catalog=LOCALIZED.name)  # type: ignore[arg-type]
    assert result.status == "success" and result.match is not None
    assert result.match.catalog == LOCALIZED.name and result.match.name.startswith("Implorateur")
    # its other catalog of the same type is fetched too, and says it holds no row
    assert [(r.catalog, r.rows, r.note) for r in result.match.records] == [
        ("creature_name", [], "creature_name holds no row with this identity")
    ]


@pytest.mark.parametrize("query", ["23487", "npc=23487", URL])
def test_cli_lookup_by_identity_on_the_demo_db(
    query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lookup", "--json", query]) == 0
    result = LookupResult.model_validate_json(capsys.readouterr().out)
    assert result.status == "success" and result.match is not None
    assert result.match.identity == 23487 and result.match.name == "Wild Wolpertinger"
    assert main(["lookup", query]) == 0
    assert "success: creature 23487 'Wild Wolpertinger' [identity in creature_name]" in (
        capsys.readouterr().out
    )
