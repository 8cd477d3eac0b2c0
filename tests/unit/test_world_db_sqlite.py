"""The read-only world database on SQLite (resources/world_db/database.py), against real temp SQLite files.

The tables are the demo world DB's own definitions (vba_assets.worlddata.schema). The rows are real
rows copied from ../shared/data (wotlk/creature_template.csv, wotlk/creature_template_locale.csv,
azerothcore/*_excerpt.csv and the quest-giver tables), plus a few SYNTHETIC rows (entries 900001+)
whose names hold the characters a search must treat literally: no real English name contains
``%``, ``_``, ``\\``, U+202E or U+200B. tests/integration loads the same rows into MariaDB.
"""

import hashlib
import shutil
import sqlite3
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from sqlalchemy import create_engine, insert

from resources.world_db import WorldDatabase
from vba_assets.config import (
    DEMO_ALLOWLIST,
    DEMO_CATALOGS,
    CatalogConfig,
    DatabaseConfig,
    embedded_project_config,
)
from vba_assets.errors import (
    ConfigError,
    ErrorCode,
    InputError,
    ReadOnlyViolation,
    ResearchUnavailable,
)
from vba_assets.worlddata import schema

CREATURE_COLUMNS = (
    "entry",
    "name",
    "subname",
    "minlevel",
    "maxlevel",
    "rank",
    "faction",
    "npcflag",
)
CREATURES: list[tuple[int, str, str | None, int, int, int, int, int]] = [
    (69, "Diseased Timber Wolf", None, 2, 2, 0, 32, 0),
    (305, "White Stallion", None, 1, 1, 0, 35, 0),
    (22917, "Illidan Stormrage", "The Betrayer", 73, 73, 3, 1882, 0),
    (22938, "Naturalist Bite (1)", None, 70, 70, 0, 1660, 1),
    (22943, "Wolpertinger", None, 1, 1, 0, 35, 0),
    (23414, "Bash'ir Inquisitor", None, 72, 72, 1, 35, 0),
    (23428, "Jho'nass", "Ogri'la Quartermaster", 70, 70, 0, 1872, 131),
    (23440, "Dragonmaw Skybreaker", None, 70, 70, 0, 1877, 0),
    (23441, "Dragonmaw Skybreaker", None, 70, 70, 0, 1877, 0),
    (23446, "Lieutenant Tristia", "Armor Quartermaster", 65, 65, 0, 1638, 128),
    (23467, "Illidan Stormrage", "The Betrayer", 73, 73, 3, 14, 0),
    (23474, "Shivan Assassin (Red)", None, 72, 72, 0, 35, 0),
    (23475, "Shivan Assassin (Blue)", None, 72, 72, 0, 35, 0),
    (23476, "Shivan Assassin (Black)", None, 72, 72, 0, 35, 0),
    (23477, "Armored Nether Drake (Black Temple 01)", None, 1, 1, 0, 35, 0),
    (23478, "Armored Nether Drake (Black Temple 02)", None, 1, 1, 0, 35, 0),
    (23479, "[PH] Brewfest Dwarf Reveler", None, 1, 1, 0, 35, 0),
    (23486, "Goldark Snipehunter", None, 65, 65, 0, 55, 3),
    (23487, "Wild Wolpertinger", None, 1, 1, 0, 188, 0),
    (23508, "Gul'dan", None, 1, 1, 3, 35, 0),
    (23520, "Jimmy Two-Canoes", None, 1, 1, 0, 35, 0),
    (24617, "[UNUSED] Tundra Wolf", None, 70, 70, 0, 14, 0),
    (24618, "Starving Tundra Wolf", None, 1, 1, 0, 35, 0),
    (24619, "Greater Tundra Wolf", None, 1, 1, 0, 35, 0),
    (24620, "[UNUSED] Tundra Wolf Alpha", None, 70, 70, 0, 14, 0),
    (24634, "Lieutenant Icehammer", None, 74, 74, 1, 1892, 2),
    (24639, "Olga, the Scalawag Wench", None, 71, 71, 0, 35, 1),
    (24654, "Turbo-Charged Flying Machine", None, 1, 1, 0, 35, 0),
    (24657, "Glodrak Huntsniper", None, 65, 65, 0, 775, 3),
    (24664, "Kael'thas Sunstrider", "Lord of the Blood Elves", 72, 72, 1, 16, 0),
    (24665, "Lieutenant Icehammer", None, 1, 1, 0, 35, 0),
    (24670, "Lieutenant Tristia", "Armor Quartermaster", 1, 1, 0, 35, 0),
    (24671, "Captain O'Neal", "Weapons Quartermaster", 1, 1, 0, 35, 0),
    (24700, "Headless Horseman, friendly", None, 70, 70, 0, 35, 0),
    (24713, '"Crowleg" Dan', None, 70, 70, 0, 1888, 1),
    (24717, "Stanwad", "Explorers' League", 72, 72, 0, 1892, 2),
    (24742, '"Mad" Jonah Sterling', None, 70, 70, 1, 1888, 0),
    (24753, "Pint-Sized Pink Pachyderm", None, 1, 1, 0, 35, 0),
    (26954, "Emil Autumn", "Grand Master Enchanting Trainer", 71, 71, 0, 1928, 80),
    # SYNTHETIC: each pair differs only where a wildcard or escape would blur them.
    (900001, "100% Proof Brewer", None, 1, 1, 0, 35, 0),
    (900002, "1000 Proof Brewer", None, 1, 1, 0, 35, 0),
    (900003, "Test_Dummy Alpha", None, 1, 1, 0, 35, 0),
    (900004, "TestXDummy Alpha", None, 1, 1, 0, 35, 0),
    (900005, "Back\\slash Imp", None, 1, 1, 0, 35, 0),
    (900006, "Backslash Imp", None, 1, 1, 0, 35, 0),
    (900007, "Sly ' OR 1=1 -- Trickster", None, 1, 1, 0, 35, 0),
    (900008, "Mirror\u202eEttin", None, 1, 1, 0, 35, 0),
    (900009, "MirrorEttin", None, 1, 1, 0, 35, 0),
    (900010, "Zero\u200bWidth Wisp", None, 1, 1, 0, 35, 0),
    (900011, "ZeroWidth Wisp", None, 1, 1, 0, 35, 0),
]

# entry, locale, Name, Title
LOCALES: list[tuple[int, str, str | None, str | None]] = [
    (305, "deDE", "Schimmel", None),
    (305, "frFR", "Étalon blanc", None),
    (22943, "koKR", "노루토끼", None),
    (22943, "ruRU", "Зайцелоп", None),
    (22943, "zhCN", "鹿角小飞兔", None),
    (22943, "zhTW", "鹿角兔", None),
    (23486, "deDE", "Goldark Spatzenjäger", None),
    (23486, "esES", "Goldark Novatada", None),
    (23486, "esMX", "Goldark Novatada", None),
    (23486, "frFR", "Archedor Chassebécasse", None),
    (23486, "ruRU", "Голдарк Меткий Охотник", None),
    (23486, "zhCN", "葛达克·猎枪", None),
    (23487, "deDE", "Wilder Wolpertinger", None),
    (23487, "esES", "Wolpertinger salvaje", None),
    (23487, "frFR", "Wolpertinger sauvage", None),
    (23487, "ruRU", "Дикий зайцелоп", None),
    (23508, "frFR", "Gul’dan", None),
    (23508, "ruRU", "Гул'дан", None),
    (23513, "deDE", "Nordendyeti (blau)", None),
    (23513, "koKR", "노스렌드 설인", None),
    (23514, "deDE", "Nordendyeti (braun)", None),
    (23514, "koKR", "노스렌드 설인", None),
    (23520, "ruRU", 'Джимми "Два Каноэ"', None),
    (24657, "deDE", "Glodrak Jägerspatz", None),
    (24657, "frFR", "Charedor Cassebéchasse", None),
    (24670, "deDE", "Leutnant Tristia", "Rüstmeister für Rüstungen"),
    (24670, "zhCN", "崔丝提亚中尉", "护甲军需官"),
    (24671, "deDE", "Hauptmann O'Neal", "Rüstmeister für Waffen"),
    (24671, "ruRU", "Капитан О'Нил", "Начальник снабжения оружием"),
    (26954, "deDE", "Emil Herbst", "Großmeister der Verzauberkunst"),
    (26954, "frFR", "Emile Automne", "Grand maître émérite des enchanteurs"),
    (122, "deDE", "Straßenräuber der Defias", None),
    # AzerothCore allows a NULL Name (SCHEMA.md); such a row is never returned.
    (22943, "deDE", None, None),
]

QUEST_STARTERS = [(23486, 11117), (23486, 11118), (24634, 11421), (24657, 11120), (24657, 11431)]
QUEST_ENDERS = [(23486, 11117), (23486, 11118), (24634, 11427), (24657, 11120), (24657, 11431)]
SPAWN_MARKERS = [(23486, 1, 1), (23487, 1, 16), (23487, 14, 15), (24657, 14, 1)]

CREATURE_NAMES = {entry: name for entry, name, *_ in CREATURES}
HOSTILE_TERMS = ["%", "_", "\\", "100%", "Test_Dummy", "k\\s", "'", '"', "' OR 1=1 --",
                 "\u202e", "\u200b", "O'Neal", '"Crowleg"', "%%", "__", "\\%", "[PH]"]  # fmt: skip


def world_rows() -> dict[str, list[dict[str, Any]]]:
    """Every fixture row, by table, as column -> value dicts (shared with tests/integration)."""
    return {
        "creature_template": [dict(zip(CREATURE_COLUMNS, row, strict=True)) for row in CREATURES],
        "creature_template_locale": [
            dict(zip(("entry", "locale", "Name", "Title"), row, strict=True)) for row in LOCALES
        ],
        "creature_queststarter": [{"id": i, "quest": q} for i, q in QUEST_STARTERS],
        "creature_questender": [{"id": i, "quest": q} for i, q in QUEST_ENDERS],
        "creature_spawn_markers": [
            {"entry": e, "zone_id": z, "marker_count": c} for e, z, c in SPAWN_MARKERS
        ],
    }


def load_world(url: str, **engine_args: Any) -> None:
    """Create the demo tables at ``url`` and insert the fixture rows."""
    engine = create_engine(url, **engine_args)
    try:
        schema.metadata.create_all(engine)
        with engine.begin() as connection:
            for name, rows in world_rows().items():  # the reference tables stay empty
                connection.execute(insert(schema.metadata.tables[name]), rows)
    finally:
        engine.dispose()


def build_world_file(path: Path) -> Path:
    load_world(f"sqlite:///{path}")
    with sqlite3.connect(path) as connection:  # a table that is NOT allowlisted
        connection.execute("CREATE TABLE account_secret (id INTEGER PRIMARY KEY, token TEXT)")
        connection.execute("INSERT INTO account_secret VALUES (1, 'do-not-read')")
    return path


def database_config(path: Path, **overrides: Any) -> DatabaseConfig:
    values: dict[str, Any] = {
        "url": f"sqlite:///{path}",
        "allowlist": list(DEMO_ALLOWLIST),
        "snapshot_label": "test-snapshot",
        "statement_timeout_s": 5.0,
    }
    values.update(overrides)
    return DatabaseConfig(**values)


def catalogs(**changes: Any) -> list[CatalogConfig]:
    return [CatalogConfig(**{**spec, **changes.get(spec["name"], {})}) for spec in DEMO_CATALOGS]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reference_key(text: str) -> str:
    """The documented search key, written out again: each character lower-cased, then without
    its nonspacing marks (canonical decomposition, marks dropped, composed again)."""

    def letter(char: str) -> str:
        kept = [c for c in unicodedata.normalize("NFD", char) if unicodedata.category(c) != "Mn"]
        return unicodedata.normalize("NFC", "".join(kept))

    return "".join(letter(char) for char in text.lower())


def reference_search(term: str) -> list[int]:
    """What the documented contract returns on SQLite, computed in Python from the fixture."""
    key = reference_key(term)
    hits = [(e, n) for e, n in CREATURE_NAMES.items() if key in reference_key(n)]
    hits.sort(key=lambda hit: (reference_key(hit[1]) != key, len(hit[1]), hit[1], hit[0]))
    return [entry for entry, _ in hits]


@pytest.fixture(scope="module")
def world_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world_file(tmp_path_factory.mktemp("world") / "world.sqlite")


@pytest.fixture
def world(world_file: Path) -> Iterator[WorldDatabase]:
    database = WorldDatabase(database_config(world_file), catalogs())
    yield database
    database.close()


def identities(database: WorldDatabase, term: str, limit: int = 50, catalog: str = "creature_name") -> list[int | str]:  # fmt: skip
    return [row.identity for row in database.contains_search(catalog, term, limit).rows]


# --- ordering, truncation, the recorded capture ---------------------------------------------


def test_order_is_exact_length_code_point_then_identity(world: WorldDatabase) -> None:
    assert identities(world, "wolpertinger") == [22943, 23487]
    # equal length 20: 'S' (U+0053) sorts before '[' (U+005B) in code-point order, not in NOCASE
    assert identities(world, "tundra wolf") == [24619, 24618, 24617, 24620]
    assert identities(world, "Dragonmaw Skybreaker") == [23440, 23441]
    assert identities(world, "lieutenant") == [23446, 24670, 24634, 24665]
    for term in ["wolf", "a", "e", "Shivan", "Lieutenant", "(", ",", "-", "Drake", "'"]:
        assert identities(world, term, limit=200) == reference_search(term), term


def test_localized_order_breaks_ties_by_identity_then_locale(world: WorldDatabase) -> None:
    rows = world.contains_search("creature_localized_name", "goldark", 10).rows
    assert [(r.identity, r.name, r.data["locale"]) for r in rows] == [
        (23486, "Goldark Novatada", "esES"),
        (23486, "Goldark Novatada", "esMX"),
        (23486, "Goldark Spatzenjäger", "deDE"),
    ]


def test_truncation_is_detected_with_limit_plus_one(world: WorldDatabase) -> None:
    matches = reference_search("wolf")
    assert len(matches) == 5
    short = world.contains_search("creature_name", "wolf", 4)
    assert short.truncated and [r.identity for r in short.rows] == matches[:4]
    assert short.row_limit == 4 and short.parameters["row_limit"] == 5
    exact = world.contains_search("creature_name", "wolf", 5)
    assert not exact.truncated and [r.identity for r in exact.rows] == matches
    assert not any("truncated" in note for note in exact.coverage_notes)
    assert any("truncated" in note for note in short.coverage_notes)


def test_search_result_records_sql_parameters_and_scope(world: WorldDatabase) -> None:
    result = world.contains_search("creature_name", "100%", 8)
    assert [row.identity for row in result.rows] == [900001]
    assert "LIKE ? ESCAPE '\\'" in result.sql and "100" not in result.sql
    assert '"rank"' in result.sql or "creature_template.rank" in result.sql
    assert result.parameters["pattern"] == "%100\\%%"
    assert result.parameters["term"] == "100%"
    assert result.snapshot == world.snapshot_binding()
    assert (result.catalog, result.entity_type, result.catalog_kind) == (
        "creature_name", "creature", "name")  # fmt: skip
    notes = " ".join(result.coverage_notes)
    assert "vba_search_key()" in notes and "never proves" in notes and "test-snapshot" in notes
    row = result.rows[0]
    assert row.name == "100% Proof Brewer"
    assert row.data == {"subname": None, "minlevel": 1, "maxlevel": 1, "rank": 0, "faction": 35,
                        "npcflag": 0}  # fmt: skip
    rfc8785.dumps(result.model_dump(mode="json"))  # captures are canonical-JSON hashable


def test_case_and_accents_are_folded_in_every_script(world: WorldDatabase) -> None:
    localized = "creature_localized_name"
    assert identities(world, "WILD wolpertinger") == [23487]
    assert identities(world, "emile automne", catalog=localized) == [26954]
    for term in ["étalon", "Étalon", "etalon", "ETALON", "ÉTALON BLANC"]:
        assert identities(world, term, catalog=localized) == [305], term
    # a mark written apart is a character of its own, as in MariaDB's LIKE (terms come NFC)
    assert identities(world, "E\u0301talon", catalog=localized) == []
    for term in ["ДИКИЙ", "дикий", "Дикий"]:
        assert identities(world, term, catalog=localized) == [23487], term
    assert identities(world, "дикии", catalog=localized) == []  # й is a letter of its own
    # the exact match ("Зайцелоп") first, then the longer "Дикий зайцелоп"
    assert identities(world, "ЗАЙЦЕЛОП", catalog=localized) == [22943, 23487]
    # shorter name first: "Glodrak Jägerspatz" (18) before "Goldark Spatzenjäger" (20)
    assert identities(world, "JAGER", catalog=localized) == [24657, 23486]
    assert identities(world, "chassebecasse", catalog=localized) == [23486]
    assert identities(world, "strasse", catalog=localized) == []  # ß is not expanded
    assert identities(world, "STRAßE", catalog=localized) == [122]
    assert identities(world, "노루", catalog=localized) == [22943]


def test_the_exact_match_compares_search_keys(world: WorldDatabase) -> None:
    rows = world.contains_search("creature_localized_name", "etalon blanc", 10).rows
    assert [(r.identity, r.name) for r in rows] == [(305, "Étalon blanc")]
    # "goldark novatada" equals two names up to case; they come first, before longer names
    rows = world.contains_search("creature_localized_name", "GOLDARK NOVATADA", 10).rows
    assert [r.data["locale"] for r in rows] == ["esES", "esMX"]


# --- hostile terms are searched literally ------------------------------------------------------


@pytest.mark.parametrize("term", HOSTILE_TERMS)
def test_hostile_terms_match_literally(world: WorldDatabase, term: str) -> None:
    expected = reference_search(term)
    assert identities(world, term) == expected
    assert all(term.lower() in CREATURE_NAMES[e].lower() for e in expected)


def test_wildcards_and_escapes_do_not_widen_the_match(world: WorldDatabase) -> None:
    assert identities(world, "100%") == [900001]  # not '1000 Proof Brewer'
    assert identities(world, "Test_Dummy") == [900003]  # not 'TestXDummy Alpha'
    assert identities(world, "k\\s") == [900005]  # not 'Backslash Imp'
    assert identities(world, "' OR 1=1 --") == [900007]
    assert identities(world, "\u202e") == [900008]
    assert identities(world, "\u200b") == [900010]
    assert identities(world, "ZeroWidth") == [900011]  # the zero-width name stays distinct
    assert identities(world, "%%") == [] and identities(world, "__") == []
    assert len(identities(world, "%")) == 1 and len(identities(world, "_")) == 1


@pytest.mark.parametrize("term", ["", " ", "\t\n", "x" * 201, "ab\ud800"])
def test_unsearchable_terms_are_rejected(world: WorldDatabase, term: str) -> None:
    with pytest.raises(InputError) as caught:
        world.contains_search("creature_name", term, 8)
    assert caught.value.code is ErrorCode.RESEARCH_QUERY_INVALID


def test_a_200_character_term_is_searched(world: WorldDatabase) -> None:
    assert world.contains_search("creature_name", "w" * 200, 8).rows == []


@pytest.mark.parametrize("limit", [0, -1, 1001, True])
def test_invalid_limits_are_rejected(world: WorldDatabase, limit: int) -> None:
    with pytest.raises(InputError):
        world.contains_search("creature_name", "wolf", limit)


def test_no_raw_sql_method_is_public() -> None:
    public = {name for name in dir(WorldDatabase) if not name.startswith("_")}
    assert public == {"from_config", "snapshot_binding", "contains_search", "fetch_by_identity",
                      "identity_search", "quest_relations", "zone_markers", "exact_name_search",
                      "describe",
                      "close"}  # fmt: skip


def test_an_identity_search_is_recorded_like_a_contains_search(world: WorldDatabase) -> None:
    """Protocol v4 identity references: every row of the linked identity, one per locale,
    with its parameterized SQL, bound identity, snapshot and coverage notes; never cut."""
    primary = world.identity_search("creature_name", 23487, "Wild Wolpertinger", 8)
    assert [(r.identity, r.name) for r in primary.rows] == [(23487, "Wild Wolpertinger")]
    assert primary.identity == 23487 and primary.parameters == {"identity": 23487}
    assert primary.term == "Wild Wolpertinger" and primary.row_limit == 8
    assert not primary.truncated and "LIKE" not in primary.sql and "'" not in primary.sql
    assert any("fetch by identity" in note for note in primary.coverage_notes)
    assert primary.snapshot == world.snapshot_binding()
    localized = world.identity_search("creature_localized_name", 23487, "23487", 2)
    assert len(localized.rows) == 4 > localized.row_limit and not localized.truncated
    assert {r.identity for r in localized.rows} == {23487}
    assert [r.data["locale"] for r in localized.rows] == ["deDE", "esES", "frFR", "ruRU"]
    assert world.identity_search("creature_name", 999_999, "Nobody", 8).rows == []


# --- identifiers -------------------------------------------------------------------------------


def test_unknown_catalog_is_an_input_error(world: WorldDatabase) -> None:
    for call in (lambda: world.contains_search("quest_name", "x", 8),
                 lambda: world.fetch_by_identity("creature_template; DROP", 1)):  # fmt: skip
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.code is ErrorCode.CATALOG_UNKNOWN


def test_catalog_table_must_be_allowlisted(world_file: Path) -> None:
    config = database_config(world_file, allowlist=["creature_template"])
    with pytest.raises(ConfigError) as caught:
        WorldDatabase(config, catalogs())
    assert caught.value.code is ErrorCode.TABLE_NOT_ALLOWLISTED
    assert "creature_template_locale" in caught.value.message


def test_missing_columns_are_named(world_file: Path) -> None:
    bad = catalogs(creature_name={"name_column": "nmae", "data_columns": ["subname", "modelid"]})
    with pytest.raises(ConfigError) as caught:
        WorldDatabase(database_config(world_file), bad).contains_search("creature_name", "x", 8)
    assert caught.value.code is ErrorCode.IDENTIFIER_NOT_IN_SCHEMA
    assert caught.value.detail["columns"] == ["creature_template.nmae", "creature_template.modelid"]


def test_missing_allowlisted_table_is_named(world_file: Path) -> None:
    # An AzerothCore table the demo data does not ship (quest_template now is shipped).
    config = database_config(world_file, allowlist=[*DEMO_ALLOWLIST, "gameobject_queststarter"])
    with pytest.raises(ConfigError) as caught:
        WorldDatabase(config, catalogs()).snapshot_binding()
    assert caught.value.code is ErrorCode.IDENTIFIER_NOT_IN_SCHEMA
    assert caught.value.detail["tables"] == ["gameobject_queststarter"]


def test_non_text_name_column_is_rejected(world_file: Path) -> None:
    bad = catalogs(creature_name={"name_column": "faction"})
    with pytest.raises(ConfigError) as caught:
        WorldDatabase(database_config(world_file), bad).snapshot_binding()
    assert caught.value.code is ErrorCode.CONFIG_INVALID


# --- fetch_by_identity ---------------------------------------------------------------------------


def test_fetch_by_identity(world: WorldDatabase) -> None:
    (row,) = world.fetch_by_identity("creature_name", 24671)
    assert (row.identity, row.name, row.data["subname"]) == (
        24671, "Captain O'Neal", "Weapons Quartermaster")  # fmt: skip
    assert world.fetch_by_identity("creature_name", "24671") == [row]
    assert world.fetch_by_identity("creature_name", 1) == []
    locales = world.fetch_by_identity("creature_localized_name", 22943)
    # the deDE row has a NULL name and is skipped; the others come in locale order
    assert [r.data["locale"] for r in locales] == ["koKR", "ruRU", "zhCN", "zhTW"]


@pytest.mark.parametrize("identity", ["abc", "1 OR 1=1", "+-5", "", True, 1.5, None])
def test_fetch_rejects_identities_of_the_wrong_type(world: WorldDatabase, identity: Any) -> None:
    with pytest.raises(InputError) as caught:
        world.fetch_by_identity("creature_name", identity)
    assert caught.value.code is ErrorCode.RESEARCH_QUERY_INVALID


# --- snapshot binding ----------------------------------------------------------------------------


def test_snapshot_fingerprint_is_stable_and_tracks_the_schema(world_file: Path, tmp_path: Path) -> None:  # fmt: skip
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(world_file, copy)
    first = WorldDatabase(database_config(copy), catalogs())
    binding = first.snapshot_binding()
    assert binding.label == "test-snapshot" and binding.backend == "sqlite"
    assert len(binding.schema_fingerprint) == 64
    assert WorldDatabase(database_config(copy), catalogs()).snapshot_binding() == binding
    with sqlite3.connect(copy) as connection:  # not allowlisted: no change
        connection.execute("CREATE TABLE unrelated (x INTEGER)")
    assert WorldDatabase(database_config(copy), catalogs()).snapshot_binding() == binding
    with sqlite3.connect(copy) as connection:  # allowlisted but not a catalog table: changes
        connection.execute("ALTER TABLE creature_spawn_markers ADD COLUMN map INTEGER")
    changed = WorldDatabase(database_config(copy), catalogs()).snapshot_binding()
    assert changed.schema_fingerprint != binding.schema_fingerprint
    assert first.snapshot_binding() == binding  # computed once per instance
    first.close()


# --- read-only enforcement ------------------------------------------------------------------------

DENIED_STATEMENTS = [
    "INSERT INTO creature_template (entry, name, minlevel, maxlevel, rank, faction, npcflag)"
    " VALUES (1, 'x', 1, 1, 0, 0, 0)",
    "UPDATE creature_template SET name = 'x' WHERE entry = 69",
    "DELETE FROM creature_template",
    "REPLACE INTO creature_spawn_markers VALUES (1, 1, 1)",
    "CREATE TABLE pwned (x INTEGER)",
    "CREATE TEMP TABLE pwned (x INTEGER)",
    "CREATE INDEX pwned ON creature_template (faction)",
    "CREATE VIEW pwned AS SELECT 1",
    "DROP TABLE creature_template",
    "ALTER TABLE creature_template ADD COLUMN pwned INTEGER",
    "PRAGMA query_only = OFF",
    "PRAGMA journal_mode = WAL",
    "PRAGMA user_version = 7",
    "SAVEPOINT pwned",
    "SELECT token FROM account_secret",
    "SELECT load_extension('/nonexistent')",
]


def test_every_write_through_the_engine_fails(world_file: Path, tmp_path: Path) -> None:
    before = sha256_of(world_file)
    database = WorldDatabase(database_config(world_file), catalogs())
    engine = database._engine()
    attached, vacuumed = tmp_path / "attached.sqlite", tmp_path / "vacuumed.sqlite"
    attach = f"ATTACH DATABASE '{attached}' AS pwned"
    for sql in [*DENIED_STATEMENTS, attach]:
        with engine.connect() as connection, pytest.raises(ReadOnlyViolation) as caught:
            connection.exec_driver_sql(sql)
        assert caught.value.code is ErrorCode.READ_ONLY_VIOLATION, sql
    raw = engine.raw_connection()  # the bare DBAPI connection, outside any transaction
    try:
        for sql in ["DELETE FROM creature_template", attach, f"VACUUM INTO '{vacuumed}'"]:
            with pytest.raises(sqlite3.DatabaseError, match=r"not authorized|authorization denied"):
                raw.cursor().execute(sql)
    finally:
        raw.close()
    assert identities(database, "wolpertinger") == [22943, 23487]  # reads still work
    database.close()
    assert not attached.exists() and not vacuumed.exists()
    assert sha256_of(world_file) == before


def test_statement_time_limit_fires(tmp_path: Path) -> None:
    path = build_world_file(tmp_path / "big.sqlite")
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO creature_template VALUES (?, ?, NULL, 1, 1, 0, 35, 0)",
            ((1_000_000 + i, f"Generated Creature {i}") for i in range(20_000)),
        )
    database = WorldDatabase(database_config(path, statement_timeout_s=1e-6), catalogs())
    with pytest.raises(ResearchUnavailable) as caught:
        database.contains_search("creature_name", "Creature 1999", 8)
    assert caught.value.code is ErrorCode.RESEARCH_UNAVAILABLE
    assert caught.value.detail["operation"] == "contains_search"
    assert "time limit" in caught.value.detail["reason"]
    database.close()


def test_missing_file_is_unavailable_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "world.sqlite"
    database = WorldDatabase(database_config(missing), catalogs())
    with pytest.raises(ResearchUnavailable) as caught:
        database.contains_search("creature_name", "wolf", 8)
    assert caught.value.detail["backend"] == "sqlite"
    assert caught.value.detail["operation"] == "contains_search"
    assert "cannot open" in caught.value.detail["reason"]
    assert not missing.exists()


def test_locked_file_is_unavailable(world_file: Path, tmp_path: Path) -> None:
    copy = tmp_path / "locked.sqlite"
    shutil.copyfile(world_file, copy)
    locker = sqlite3.connect(copy, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        database = WorldDatabase(database_config(copy, statement_timeout_s=0.05), catalogs())
        with pytest.raises(ResearchUnavailable) as caught:
            database.snapshot_binding()
        assert "locked" in caught.value.detail["reason"]
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert database.snapshot_binding().backend == "sqlite"  # recovers once the lock is gone
    database.close()


def test_describe_names_backend_and_collation(world: WorldDatabase, world_file: Path) -> None:
    described = world.describe()
    assert described["backend"] == "sqlite" and described["database"] == str(world_file)
    assert described["schema_fingerprint"] == world.snapshot_binding().schema_fingerprint
    assert [c["name"] for c in described["catalogs"]] == [
        "creature_name",
        "creature_localized_name",
    ]
    assert all("no accents" in c["case_and_accent"] for c in described["catalogs"])


def test_concurrent_searches_agree(world: WorldDatabase) -> None:
    terms = ["wolf", "Lieutenant", "100%", "'", "Wolpertinger"] * 8
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda term: identities(world, term), terms))
    assert results == [reference_search(term) for term in terms]


def test_embedded_demo_database(tmp_path: Path) -> None:
    database = WorldDatabase.from_config(embedded_project_config(tmp_path / "workspace"))
    assert identities(database, "Wolpertinger") == [22943, 23487]
    described = database.describe()
    assert described["embedded_demo"] is True and described["backend"] == "sqlite"
    demo_file = Path(described["database"])
    before = sha256_of(demo_file)
    with database._engine().connect() as connection, pytest.raises(ReadOnlyViolation):
        connection.exec_driver_sql("DELETE FROM creature_template")
    database.close()
    assert sha256_of(demo_file) == before
