"""``NameIndex.capture_rank`` predicts where an entity's first row falls in the controller's real
contains search (ARCHITECTURE 6.2), and the misspelling planner uses it when every stretch a
misspelled name shares with the catalog name is in too many names to capture them all.

The prediction is checked against the embedded SQLite world DB itself (the rows the controller
would capture, ``WorldDatabase.contains_search``), for ASCII stretches of real names, where every
backend folds case the same way.
"""

from collections.abc import Iterator

import pytest

from resources.llm.heuristic_index import packaged_name_index
from resources.world_db import WorldDatabase
from vba_assets.config import embedded_project_config
from vba_assets.heuristic.misspellings import MAX_ENTITIES, best_part
from vba_assets.heuristic.name_index import IndexedName, NameIndex, build_name_index

# (term, identity): stretches of misspelled names in real reports (eval/real/dev2) and others.
CASES = [
    ("Sind", 36853),  # "Sindagosa": Sindragosa 36853
    ("agosa", 36853),
    ("Saron", 33288),  # "Yogg Saron": Yogg-Saron 33288
    ("Patchw", 16028),  # "Patchwork": Patchwerk 16028
    ("Thadd", 15928),
    ("Argent", 11099),
    ("Hogg", 448),
    ("wolf", 69),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldDatabase]:
    database = WorldDatabase.from_config(embedded_project_config(tmp_path_factory.mktemp("ws")))
    yield database
    database.close()


@pytest.mark.parametrize(("term", "identity"), CASES)
def test_the_rank_is_the_position_in_the_real_capture(
    world: WorldDatabase, term: str, identity: int
) -> None:
    rows = world.contains_search("creature_name", term, 500).rows
    assert len(rows) < 500  # every matching row, so the position is exact
    identities = [int(row.identity) for row in rows]
    expected = identities.index(identity) if identity in identities else None
    assert packaged_name_index().capture_rank(term, {identity}, primary=True) == expected


def _index() -> NameIndex:
    names = [IndexedName(36853 + n, "Sindragosa") for n in range(4)]
    names += [IndexedName(500 + n, f"Sindri's Guard {n}") for n in range(12)]
    names += [IndexedName(600 + n, f"Dragosa Whelp {n}") for n in range(8)]
    names += [
        IndexedName(7, "Sindar"),  # shorter: before Sindragosa
        IndexedName(8, "Sindragosa (1)"),
        IndexedName(36853, "Sindragosa", "frFR"),
    ]
    return build_name_index(names, [], {"test": "0"})


def test_exact_name_then_shorter_names_then_name_then_identity() -> None:
    index = _index()
    assert index.capture_rank("Sind", {36853}, primary=True) == 1  # after "Sindar"
    assert index.capture_rank("sindar", {36853}, primary=True) is None
    assert index.capture_rank("Sindar", {7}, primary=True) == 0  # the exact name first
    assert index.capture_rank("Sind", {36856}, primary=True) == 4  # same name: by identity
    assert index.capture_rank("Sindri", {36853}, primary=True) is None
    assert index.capture_rank("Sind", {36853}, primary=False) == 0  # the localized rows only


def test_a_misspelling_is_searched_by_a_stretch_the_capture_still_reaches() -> None:
    index = _index()
    identities = {36853, 36854, 36855, 36856}
    for part in ("Sind", "agosa"):  # too many names to capture them all
        assert len(index.containing(part, 50)) > MAX_ENTITIES
    # "agosa" puts Sindragosa first (the whelps' names are longer), "Sind" second
    assert best_part("Sindagosa", "sindragosa", identities, index) == "agosa"
    # a localized name is not searched this way (a row per locale crowds its capture)
    assert best_part("Sindagosa", "sindragosa", identities, index, primary=False) is None


def test_the_rank_of_stretches_of_real_names_matches_the_real_capture(
    world: WorldDatabase,
) -> None:
    """The first 4 and 7 letters of 150 real ASCII primary names (every 211th), each searched for
    the creature it was cut from: the predicted position equals the real one, or both say the
    creature is not among the rows (a stretch in over 1000 names is skipped)."""
    index = packaged_name_index()
    names = sorted(
        (entry.identity, entry.name)
        for entries in index.by_name.values()
        for entry in entries
        if entry.primary and entry.name.isascii()
    )[::211][:150]
    checked = 0
    for identity, name in names:
        letters = "".join(ch for ch in name if ch.isalpha())
        for width in (4, 7):
            if len(letters) < width or letters[:width] not in name:
                continue
            term = letters[:width]
            result = world.contains_search("creature_name", term, 1000)
            if result.truncated:
                continue  # a stretch in over 1000 names: the real position is not known
            rows = result.rows
            identities = [int(row.identity) for row in rows]
            expected = identities.index(identity) if identity in identities else None
            assert index.capture_rank(term, {identity}, primary=True) == expected, (term, name)
            checked += 1
    assert checked > 100
