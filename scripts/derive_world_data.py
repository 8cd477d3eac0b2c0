#!/usr/bin/env python3
"""Derive the packaged demo world data from the reference data in ``../shared/data``.

Reads the full Questie-X-WotLKDB creature, quest, item and gameobject catalogs with all their
locales (``wotlk/``) and the complete AzerothCore quest giver tables (``azerothcore/``), checks them, and writes to ``vba_assets/worlddata/data/``:

* one ``<table>.csv.gz`` per table of :mod:`vba_assets.worlddata.schema` (header = column names),
* ``manifest.json`` (rows, bytes, sha256, columns and source file of each), and
* ``SOURCES.md`` (provenance, licenses, counts, transformations, limits).

The output is deterministic: rows sorted, one fixed CSV dialect (comma, ``\\n`` line ends, minimal
quoting), gzip level 9 with mtime 0 and no file name. Re-running it gives identical bytes (with the
same zlib). ``--check`` compares instead of writing and exits 1 when anything differs.

Usage: ``.venv/bin/python scripts/derive_world_data.py [--source DIR] [--output DIR] [--check]``
"""

import argparse
import csv
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Table

from vba_assets.worlddata.packaged import MANIFEST_NAME, column_converter
from vba_assets.worlddata.schema import (
    CREATURE_TABLES,
    WORLD_TABLES,
    creature_questender,
    creature_queststarter,
    creature_spawn_markers,
    creature_template,
    creature_template_locale,
    csv_header,
    data_file_name,
    gameobject_template,
    gameobject_template_locale,
    item_template,
    item_template_locale,
    quest_template,
    quest_template_locale,
    zone_names,
)
from vba_assets.worlddata.zone_source import (
    LOCALES,
    ZoneSourceError,
    zone_lookup,
    zone_name_rows,
    zone_translations,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO_ROOT.parent / "shared" / "data"
DEFAULT_OUTPUT = REPO_ROOT / "vba_assets" / "worlddata" / "data"
LOCALE_ORDER = ("deDE", "esES", "esMX", "frFR", "koKR", "ptBR", "ruRU", "zhCN", "zhTW")

Row = list[str]

#: The zone names' source (``zone_names``): the public repository Questie/Questie at this commit,
#: read from a git directory of it (``--questie``, or ``$QUESTIE_GIT_DIR``).
QUESTIE_REPOSITORY = "Questie/Questie"
QUESTIE_COMMIT = "6d7bb521d9cad701d56575f3e1fdcedadbcd554a"
QUESTIE_ZONES = "Localization/lookups/lookupZones.lua"
QUESTIE_TRANSLATIONS = "Localization/Translations/Zones"


class SourceError(Exception):
    """The reference data is not what this script was written against."""


class Derivation:
    """How one packaged table is made from one source CSV."""

    def __init__(
        self,
        table: Table,
        source: str,
        source_columns: Sequence[str],
        expected_rows: int,
        sort_key: Callable[[Row], Any],
        sort_doc: str,
    ) -> None:
        self.table = table
        self.source = source
        self.source_columns = list(source_columns)
        self.expected_rows = expected_rows
        self.sort_key = sort_key
        self.sort_doc = sort_doc


def _int_key(*indexes: int) -> Callable[[Row], tuple[int, ...]]:
    return lambda row: tuple(int(row[i]) for i in indexes)


def _locale_key(row: Row) -> tuple[int, int]:
    # Locale first: rows of one language sit together, which gzip compresses ~7% better.
    return (LOCALE_ORDER.index(row[1]), int(row[0]))


DERIVATIONS = (
    Derivation(
        creature_template,
        "wotlk/creature_template.csv",
        ["entry", "name", "subname", "minlevel", "maxlevel", "rank", "faction", "npcflag"],
        29_601,
        _int_key(0),
        "entry",
    ),
    Derivation(
        creature_template_locale,
        "wotlk/creature_template_locale.csv",
        ["entry", "locale", "Name", "Title"],
        238_050,
        _locale_key,
        f"locale ({' '.join(LOCALE_ORDER)}), then entry",
    ),
    Derivation(
        creature_queststarter,
        "azerothcore/creature_queststarter.csv",
        ["id", "quest"],
        7_496,
        _int_key(0, 1),
        "id, quest",
    ),
    Derivation(
        creature_questender,
        "azerothcore/creature_questender.csv",
        ["id", "quest"],
        7_896,
        _int_key(0, 1),
        "id, quest",
    ),
    Derivation(
        creature_spawn_markers,
        "wotlk/creature_spawns.csv",
        ["entry", "zone_id", "spawn_count"],
        19_117,
        _int_key(0, 1),
        "entry, zone_id",
    ),
    *(
        derivation
        for template, locale, columns, locale_columns, rows, locale_rows in (
            (
                quest_template,
                quest_template_locale,
                ["ID", "LogTitle", "MinLevel", "QuestLevel"],
                ["ID", "locale", "Title"],
                9_086,
                81_776,
            ),
            (
                item_template,
                item_template_locale,
                ["entry", "name"],
                ["ID", "locale", "Name"],
                36_727,
                330_685,
            ),
            (
                gameobject_template,
                gameobject_template_locale,
                ["entry", "name"],
                ["entry", "locale", "name"],
                12_959,
                32_194,
            ),
        )
        for derivation in (
            Derivation(
                template, f"wotlk/{template.name}.csv", columns, rows, _int_key(0), columns[0]
            ),
            Derivation(
                locale,
                f"wotlk/{locale.name}.csv",
                locale_columns,
                locale_rows,
                _locale_key,
                f"locale ({' '.join(LOCALE_ORDER)}), then {locale_columns[0]}",
            ),
        )
    ),
)


def read_source(source_dir: Path, derivation: Derivation) -> tuple[list[Row], str]:
    """The selected columns of every source row, checked, plus the source file's sha256."""
    path = source_dir / derivation.source
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: {exc.strerror}") from None
    reader = csv.reader(io.StringIO(payload.decode("utf-8"), newline=""), strict=True)
    header = next(reader)
    missing = [name for name in derivation.source_columns if name not in header]
    if missing:
        raise SourceError(f"{path}: missing columns {missing}; header is {header}")
    picks = [header.index(name) for name in derivation.source_columns]
    converters = [column_converter(column) for column in derivation.table.columns]
    rows: list[Row] = []
    for line, fields in enumerate(reader, start=2):
        if len(fields) != len(header):
            raise SourceError(
                f"{path}: line {line}: {len(fields)} fields, header has {len(header)}"
            )
        row = [fields[i] for i in picks]
        for column, convert, value in zip(derivation.table.columns, converters, row, strict=True):
            try:
                convert(value)
            except ValueError as exc:
                raise SourceError(f"{path}: line {line}: {column.name}: {exc}") from None
        rows.append(row)
    if len(rows) != derivation.expected_rows:
        raise SourceError(f"{path}: {len(rows)} rows, expected {derivation.expected_rows}")
    key_width = len(derivation.table.primary_key.columns)
    keys = {tuple(row[:key_width]) for row in rows}
    if len(keys) != len(rows):
        raise SourceError(f"{path}: duplicate primary key values")
    return rows, hashlib.sha256(payload).hexdigest()


def encode_table(table: Table, rows: list[Row]) -> bytes:
    """The deterministic gzip CSV bytes of ``rows`` (already sorted)."""
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(csv_header(table))
    writer.writerows(rows)
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as zipped:
        zipped.write(text.getvalue().encode("utf-8"))
    return raw.getvalue()


def check_references(tables: dict[str, list[Row]]) -> None:
    """Every creature id in the creature tables exists in creature_template, every quest of the
    quest giver tables in quest_template; no faction is 0.

    The locale tables of quests, items and objects are not checked against their templates: the
    source has ids only in the locale files (221 quests, 25 items, 4,175 objects), kept as they are.
    """
    entries = {row[0] for row in tables[creature_template.name]}
    if any(row[6] == "0" for row in tables[creature_template.name]):
        raise SourceError("a source faction is 0: storing an empty faction as 0 would be ambiguous")
    for table in CREATURE_TABLES:
        orphans = sorted({row[0] for row in tables[table.name]} - entries, key=int)
        if orphans:
            raise SourceError(
                f"{table.name}: {len(orphans)} ids not in creature_template: {orphans[:5]}"
            )
    quests = {row[0] for row in tables[quest_template.name]}
    for table in (creature_queststarter, creature_questender):
        orphans = sorted({row[1] for row in tables[table.name]} - quests, key=int)
        if orphans:
            raise SourceError(f"{table.name}: {len(orphans)} quests not in quest_template")


def _git_show(git_dir: Path, path: str) -> bytes:
    try:
        return subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{QUESTIE_COMMIT}:{path}"],
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SourceError(
            f"{QUESTIE_REPOSITORY}@{QUESTIE_COMMIT}:{path} not readable from {git_dir} "
            f"(--questie: a git directory of {QUESTIE_REPOSITORY} holding that commit): {exc}"
        ) from None


def derive_zone_names(git_dir: Path, marker_rows: list[Row]) -> tuple[list[Row], dict[str, Any]]:
    """The ``zone_names`` rows of every zone id of the spawn markers, from Questie's zone lookup
    and zone translations at :data:`QUESTIE_COMMIT`, and the manifest's source facts."""
    lookup_bytes = _git_show(git_dir, QUESTIE_ZONES)
    listing = _git_show(git_dir, f"{QUESTIE_TRANSLATIONS}/").decode("utf-8").split()
    names = sorted(name for name in listing if name.endswith(".lua"))
    if not names:
        raise SourceError(f"no translation file in {QUESTIE_TRANSLATIONS}")
    translation_bytes = [_git_show(git_dir, f"{QUESTIE_TRANSLATIONS}/{name}") for name in names]
    try:
        lookup = zone_lookup(lookup_bytes.decode("utf-8"))
        translations = zone_translations(b.decode("utf-8") for b in translation_bytes)
    except ZoneSourceError as exc:
        raise SourceError(f"{QUESTIE_REPOSITORY}: {exc}") from None
    rows, unnamed = zone_name_rows(lookup, translations, (int(row[1]) for row in marker_rows))
    if unnamed:
        raise SourceError(f"marker zones without a name in {QUESTIE_ZONES}: {unnamed}")
    digest = hashlib.sha256(lookup_bytes)
    for payload in translation_bytes:
        digest.update(payload)
    source = {
        "source_file": f"{QUESTIE_REPOSITORY}@{QUESTIE_COMMIT}:{QUESTIE_ZONES} + "
        + ", ".join(f"{QUESTIE_TRANSLATIONS}/{name}" for name in names),
        "source_columns": ["zoneLookup/zoneCategoryLookup [id]=name", *LOCALES],
        "source_sha256": digest.hexdigest(),
    }
    return rows, source


def packaged_zone_names(packaged: Path, marker_rows: list[Row]) -> tuple[list[Row], dict[str, Any]]:
    """Without ``--questie``: the packaged ``zone_names`` rows and source facts, checked against
    the packaged manifest's sha256 and the marker zones (the other tables are still re-derived)."""
    try:
        manifest = json.loads((packaged / "manifest.json").read_text(encoding="utf-8"))
        entry = manifest["tables"][zone_names.name]
        payload = (packaged / data_file_name(zone_names)).read_bytes()
    except (OSError, ValueError, KeyError) as exc:
        raise SourceError(
            f"no packaged zone_names to keep ({exc}); pass --questie (or $QUESTIE_GIT_DIR): a "
            f"git directory of {QUESTIE_REPOSITORY} holding commit {QUESTIE_COMMIT}"
        ) from None
    if hashlib.sha256(payload).hexdigest() != entry.get("sha256"):
        raise SourceError("packaged zone_names.csv.gz differs from its manifest sha256")
    reader = csv.reader(io.StringIO(gzip.decompress(payload).decode("utf-8"), newline=""))
    rows = list(reader)[1:]
    named = {int(row[0]) for row in rows}
    unnamed = sorted({int(row[1]) for row in marker_rows} - named)
    if unnamed:
        raise SourceError(f"marker zones without a packaged zone name: {unnamed}; use --questie")
    return rows, {key: entry[key] for key in ("source_file", "source_columns", "source_sha256")}


def derive(
    source_dir: Path, questie_dir: Path | None = None, packaged: Path = DEFAULT_OUTPUT
) -> dict[str, bytes]:
    """All output files (name -> bytes), computed in memory."""
    tables: dict[str, list[Row]] = {}
    manifest_tables: dict[str, Any] = {}
    outputs: dict[str, bytes] = {}
    for derivation in DERIVATIONS:
        rows, source_sha = read_source(source_dir, derivation)
        rows.sort(key=derivation.sort_key)
        tables[derivation.table.name] = rows
        payload = encode_table(derivation.table, rows)
        outputs[data_file_name(derivation.table)] = payload
        manifest_tables[derivation.table.name] = {
            "file": data_file_name(derivation.table),
            "rows": len(rows),
            "bytes": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "columns": csv_header(derivation.table),
            "sorted_by": derivation.sort_doc,
            "source_file": derivation.source,
            "source_columns": derivation.source_columns,
            "source_sha256": source_sha,
        }
    check_references(tables)
    if questie_dir is None:
        zone_rows, zone_source = packaged_zone_names(packaged, tables[creature_spawn_markers.name])
    else:
        zone_rows, zone_source = derive_zone_names(questie_dir, tables[creature_spawn_markers.name])
    tables[zone_names.name] = zone_rows
    payload = encode_table(zone_names, zone_rows)
    outputs[data_file_name(zone_names)] = payload
    manifest_tables[zone_names.name] = {
        "file": data_file_name(zone_names),
        "rows": len(zone_rows),
        "bytes": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "columns": csv_header(zone_names),
        "sorted_by": f"zone_id, then locale (enUS {' '.join(LOCALES)})",
        **zone_source,
    }
    if set(manifest_tables) != {table.name for table in WORLD_TABLES}:
        raise SourceError("the derivations do not cover every table of the schema")
    manifest = {"format": 1, "tables": manifest_tables}
    outputs[MANIFEST_NAME] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    outputs["SOURCES.md"] = render_sources(manifest, tables).encode("utf-8")
    return outputs


def render_sources(manifest: dict[str, Any], tables: dict[str, list[Row]]) -> str:
    """SOURCES.md, with the counts of this derivation filled in."""
    info = manifest["tables"]
    total = sum(entry["bytes"] for entry in info.values())
    template_rows = tables[creature_template.name]
    locale_rows = tables[creature_template_locale.name]
    empty_name = sum(1 for row in template_rows if row[1] == "")
    empty_subname = sum(1 for row in template_rows if row[2] == "")
    empty_faction = sorted((row[0] for row in template_rows if row[6] == ""), key=int)
    empty_title = sum(1 for row in locale_rows if row[3] == "")
    empty_locale_name = sum(1 for row in locale_rows if row[2] == "")
    no_locale = len({row[0] for row in template_rows} - {row[0] for row in locale_rows})
    locale_only = ", ".join(
        f"{len({r[0] for r in tables[locale.name]} - {r[0] for r in tables[template.name]}):,} "
        f"{label}"
        for template, locale, label in (
            (quest_template, quest_template_locale, "quests"),
            (item_template, item_template_locale, "items"),
            (gameobject_template, gameobject_template_locale, "objects"),
        )
    )
    lines = [
        f"| `{entry['file']}` | `{name}` | {entry['rows']:,} | {entry['bytes']:,} "
        f"| `{entry['source_file']}` | {entry['sorted_by']} |"
        for name, entry in info.items()
    ]
    return SOURCES_TEMPLATE.format(
        table_lines="\n".join(lines),
        total_bytes=f"{total:,}",
        total_mib=f"{total / 1048576:.2f}",
        empty_name=empty_name,
        empty_subname=f"{empty_subname:,}",
        empty_faction=", ".join(empty_faction),
        empty_faction_count=len(empty_faction),
        empty_title=f"{empty_title:,}",
        no_locale=f"{no_locale:,}",
        empty_locale_name=f"{empty_locale_name:,}",
        empty_object_name=f"{_count_empty(tables[gameobject_template.name], 1):,}",
        locale_only=locale_only,
        questie_commit=QUESTIE_COMMIT,
        zone_ids=sum(1 for row in tables[zone_names.name] if row[1] == "enUS"),
        zone_locale_rows=f"{sum(1 for row in tables[zone_names.name] if row[1] != 'enUS'):,}",
        shared_titles=f"{_shared_names(tables[quest_template.name]):,}",
        shared_items=f"{_shared_names(tables[item_template.name]):,}",
        shared_objects=f"{_shared_names(tables[gameobject_template.name]):,}",
    )


def _count_empty(rows: list[Row], column: int) -> int:
    return sum(1 for row in rows if row[column] == "")


def _shared_names(rows: list[Row]) -> int:
    """How many distinct non-empty names (column 1) more than one id carries."""
    counts: dict[str, int] = {}
    for row in rows:
        if row[1]:
            counts[row[1]] = counts.get(row[1], 0) + 1
    return sum(1 for count in counts.values() if count > 1)


SOURCES_TEMPLATE = """\
# Packaged demo world data: sources, licenses, transformations

Generated by `scripts/derive_world_data.py`; do not edit by hand. The embedded demo database
(`vba_assets.worlddata.ensure_demo_database()`) is built from these files on first use. The tables
are defined in `vba_assets/worlddata/schema.py` (shared by SQLite and MariaDB).

## Files

| file | table | rows | bytes | derived from (`../shared/data/...`) | row order |
|---|---|---:|---:|---|---|
{table_lines}

Total: {total_bytes} bytes ({total_mib} MiB). `manifest.json` pins the rows, bytes, sha256 and
columns of every file and the sha256 of its source file; the builder refuses files that do not
match it.

## Sources and licenses (as the sources state them)

* `creature_template`, `creature_template_locale`, `creature_spawn_markers`: derived from the NPC
  tables of the World of Warcraft addon database **`Xurkon/Questie-X-WotLKDB`** (public GitHub),
  commit `135e6590c8d2851506ef132153b6d5fb5ef334c4` (tag `v1.4.8`), via the CSVs in
  `../shared/data/wotlk/` (see its `SOURCE.md`). License: that repository's `README.md` ends with a
  "License" section that says **"MIT License"**; the tree has no `LICENSE` file, and the `.toc`
  names "Questie Team" as author. The license of the upstream Questie project was not checked.
* `quest_template`, `quest_template_locale`, `item_template`, `item_template_locale`,
  `gameobject_template`, `gameobject_template_locale`: derived from the quest, item and object
  tables and the locale lookups of the same repository and commit (same license facts), via the
  same folder (its `SOURCE.md`, part "Quests, items and gameobjects").
* `creature_queststarter`, `creature_questender`: the complete ACDB 12.0.1 base tables of
  **`azerothcore/azerothcore-wotlk`**, commit `abbd552ce578a55e5f89b63be572be933bf9a5ef`
  (`data/sql/base/db_world/creature_queststarter.sql` / `creature_questender.sql`), via
  `../shared/data/azerothcore/`. License: the repository's `LICENSE` is the **GNU Affero General
  Public License v3 (AGPL-3.0)**.
* `zone_names`: the zone lookups of the World of Warcraft addon **`Questie/Questie`** (public
  GitHub), commit `{questie_commit}`: `Localization/lookups/lookupZones.lua` (enUS names of
  AreaTable ids) and `Localization/Translations/Zones/*.lua` (their names in the client locales).
  License: that tree has **no `LICENSE` file at its root** and its `README.md` names no license
  (`Libs/LICENSE.txt` and `Icons/LICENSE.md` cover bundled libraries and icons only); zone names
  are the game client's names. The script reads the files from a git directory of that repository
  (`--questie`), at that commit.

## CSV format

UTF-8 without BOM, comma separator, `\\n` line ends, fields quoted only when needed (`"` doubled),
header row = the DB column names in table order, gzip level 9 with mtime 0 and no stored file name.
All numbers are integers, unsigned except `quest_template.QuestLevel` (-1 = the player's level).
An empty field is stored as declared per column in `schema.py`.

## What was transformed

* `creature_template`: columns `entry, name, subname, minlevel, maxlevel, rank, faction, npcflag` of
  all rows. Dropped: `friendly_to` (a Questie-only summary, not an AzerothCore column).
* `creature_template_locale`: every row of all 9 locales (`deDE esES esMX frFR koKR ptBR ruRU zhCN
  zhTW`), columns unchanged. `ptBR` is kept although AzerothCore's 3.3.5 table has no `ptBR`.
* `creature_spawn_markers`: `wotlk/creature_spawns.csv` with `spawn_count` renamed `marker_count`.
  This is **not an AzerothCore table**: it counts the addon's map markers per (entry, zone),
  including `{{-1,-1}}` "somewhere in this instance" placeholders and repeated pairs. It is not a
  count of `creature` spawn rows (guids), and zone ids follow Questie (an instance is sometimes
  filed under its own zone id).
* `creature_queststarter`, `creature_questender`: unchanged (`id, quest`).
* `zone_names`: one `enUS` row for each of the {zone_ids} zone ids of `creature_spawn_markers`
  (its literal, uncommented `[id]="name"` entries of `l10n.zoneLookup` and
  `l10n.zoneCategoryLookup`; the script fails when a marker zone has none or an id has two
  names), plus {zone_locale_rows} rows of the client locales whose translation of that English name
  is a literal string (`true` = the English name, and version-dependent expressions, are
  skipped). Zone ids follow Questie (some instances are filed under their own AreaTable id).
* `quest_template`: columns `ID, LogTitle, MinLevel, QuestLevel` of all rows (placeholder levels
  200/255 and QuestLevel -1 kept). `item_template`, `gameobject_template`: `entry, name`.
  Their locale tables: every row of all 9 locales, columns unchanged. Names and titles are copied
  exactly (trailing spaces, `’`, `‧`, one U+FFFD kept): strip and normalise before comparing.
  The addon's placeholder objects 300000-300244 (`TEMP ...`) are kept.
* Rows are re-sorted (see the table above); values are otherwise byte-for-byte the source's.

### Empty fields (the Questie source cannot tell nil from `''`)

* `creature_template.name`: {empty_name} rows are empty; stored as `''` (the column is NOT NULL like
  AzerothCore's).
* `creature_template.subname`: {empty_subname} rows are empty; stored as **NULL**.
* `creature_template.faction`: {empty_faction_count} rows are empty (re-assigned records whose
  factionID is nil: ids {empty_faction}); stored as **0**, like AzerothCore's NOT NULL default.
  No other source row has faction 0 (the script checks this), so 0 means "not given by the source".
* `creature_template_locale.Title`: {empty_title} rows are empty; stored as **NULL**.
  {empty_locale_name} `Name` fields are empty (an empty `Name` would be stored as NULL).
* `gameobject_template.name`: {empty_object_name} rows are empty; stored as `''` (NOT NULL like
  AzerothCore's). No other name or title of the quest, item or object tables is empty.

## Known limits

* Addon data, not a server database: names agree with AzerothCore in every row that could be
  compared, but levels, factions and flags can differ (Questie often has faction 35 and level 1
  where AzerothCore has real values), and some AzerothCore ids are missing (for example 24617 and
  24620).
  The addon's run-time corrections (`Database/Corrections/*.lua`) are not applied.
* Locale names can differ from AzerothCore's in characters (zhTW uses U+00B7 where AzerothCore uses
  U+2027; frFR apostrophes). {no_locale} creatures have no locale row at all (English only).
* Quest links come from AzerothCore only; quest titles come from Questie. Every quest of
  `creature_queststarter`/`creature_questender` is in `quest_template` (the script checks this).
* The locale tables of quests, items and objects do not match their templates id for id: ids only
  in a locale table ({locale_only}) are kept, so a title or name can have no English row.
  Titles and names repeat ({shared_titles} quest titles, {shared_items} item names and
  {shared_objects} non-empty object names are shared by several ids), and some are also creature
  names: a name alone does not say what the report means.
* Every creature id in the locale, quest and marker tables exists in `creature_template` (the
  script checks this).
* Text comparison: MariaDB uses `utf8mb4_unicode_ci` (case and accent insensitive); the SQLite
  demo DB compares search keys (`vba_search_key`) that fold case and accents the same way.
* The demo DB is a demonstration catalog. A miss in it never proves that an entity is absent from a
  running server.

## How to regenerate

```
.venv/bin/python scripts/derive_world_data.py            # writes this folder
.venv/bin/python scripts/derive_world_data.py --check    # exit 1 if anything here differs
```

It reads `../shared/data` relative to the repository (override with `--source`), and the zone
names from a git directory of `Questie/Questie` (`--questie DIR` or `$QUESTIE_GIT_DIR`; without
it the packaged `zone_names.csv.gz` is kept after checking its sha256 and its zone ids). Changing the data
or the schema changes the demo DB's file name, so the next use builds a fresh database.
"""


def write_atomically(path: Path, payload: bytes) -> None:
    """Write ``payload`` to ``path`` via a fsynced temp file and ``os.replace``."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="reference data dir")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="packaged data dir")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument(
        "--questie",
        type=Path,
        default=os.environ.get("QUESTIE_GIT_DIR") or None,
        help=f"git directory of {QUESTIE_REPOSITORY} holding commit {QUESTIE_COMMIT}; without "
        "it the packaged zone_names are kept (checked) and everything else is re-derived",
    )
    args = parser.parse_args(argv)
    try:
        outputs = derive(args.source, args.questie, args.output)
    except (SourceError, UnicodeDecodeError, csv.Error) as exc:
        print(f"derive_world_data: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = [
            name
            for name, payload in outputs.items()
            if not (args.output / name).is_file() or (args.output / name).read_bytes() != payload
        ]
        for name in stale:
            print(f"differs: {args.output / name}", file=sys.stderr)
        print("up to date" if not stale else f"{len(stale)} file(s) differ")
        return 1 if stale else 0
    args.output.mkdir(parents=True, exist_ok=True)
    for name, payload in outputs.items():
        write_atomically(args.output / name, payload)
        print(f"{len(payload):>10,}  {args.output / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
