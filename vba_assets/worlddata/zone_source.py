"""Zone names from the Questie addon's Lua lookups (the source of ``zone_names``). Pure.

Read by ``scripts/derive_world_data.py``; nothing reads it at run time (the derived
``zone_names.csv.gz`` is packaged). Two sources of the public repository ``Questie/Questie``:

* ``Localization/lookups/lookupZones.lua``: ``l10n.zoneLookup`` maps AreaTable ids to their enUS
  names per continent (``[0]={ [1]="Dun Morogh", ...``); some instance ids are commented out there
  (``--[3959]="Black Temple"``) and listed in ``l10n.zoneCategoryLookup`` (``[8] = { [206] =
  "Utgarde Keep", ...``) instead. Literal ``[id]="name"`` entries with a positive id are read,
  the zone lookup's first; commented entries are not; an id named twice differently within one
  table is an error.
* ``Localization/Translations/Zones/*.lua``: per enUS name, the name in each client locale
  (``["Black Temple"] = { ["enUS"] = true, ["deDE"] = "Der Schwarze Tempel", ...``). Only literal
  strings are read: ``true`` (the English name) and expressions (a name that depends on the game
  version) are skipped, and so are names the files give differently.
"""

import re
from collections.abc import Iterable

#: The client locales a translation may give (the locales of the other locale tables).
LOCALES = ("deDE", "esES", "esMX", "frFR", "koKR", "ptBR", "ruRU", "zhCN", "zhTW")
ENGLISH = "enUS"

_STRING = r'"((?:[^"\\]|\\.)*)"'
_ID_ENTRY = re.compile(r"\[\s*(-?[0-9]+)\s*\]\s*=\s*" + _STRING)
_BLOCK_START = re.compile(r"^\s*\[" + _STRING + r"\]\s*=\s*\{\s*$")
_LOCALE_ENTRY = re.compile(r"^\s*\[\"([a-zA-Z]{4})\"\]\s*=\s*" + _STRING + r"\s*,?\s*$")
_BLOCK_END = re.compile(r"^\s*\}\s*,?\s*$")
_ESCAPES = {"\\'": "'", '\\"': '"', "\\\\": "\\"}


class ZoneSourceError(ValueError):
    """The Lua text is not what this parser was written against."""


def _unescape(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        escape = match.group(0)
        if escape not in _ESCAPES:
            raise ZoneSourceError(f"unsupported Lua escape {escape!r} in {text!r}")
        return _ESCAPES[escape]

    return re.sub(r"\\.", replace, text)


def _code(line: str) -> str:
    """``line`` without its Lua comment (no zone name of the source holds ``--``)."""
    return line.split("--", 1)[0]


def zone_lookup(text: str) -> dict[int, str]:
    """Every literal, uncommented ``[id]="name"`` with a positive id of ``lookupZones.lua``'s
    ``l10n.zoneLookup``, then of ``l10n.zoneCategoryLookup`` for the ids the first does not name
    (the category lists name some instances shorter: "Ahn'kahet" for "Ahn'kahet: The Old
    Kingdom")."""
    tables: dict[str, dict[int, str]] = {"l10n.zoneLookup": {}, "l10n.zoneCategoryLookup": {}}
    reading: dict[int, str] | None = None
    for line in text.splitlines():
        head = line.split(" ", 1)[0]
        if head in tables:
            reading = tables[head]
            continue
        if line.startswith("}"):
            reading = None
            continue
        if reading is None:
            continue
        for match in _ID_ENTRY.finditer(_code(line)):
            zone_id, name = int(match.group(1)), _unescape(match.group(2))
            if zone_id <= 0 or not name.strip():
                continue
            if reading.setdefault(zone_id, name) != name:
                raise ZoneSourceError(f"zone {zone_id} is named {reading[zone_id]!r} and {name!r}")
    zones, categories = tables.values()
    if not zones:
        raise ZoneSourceError("no zone lookup entry found")
    return zones | {zone_id: name for zone_id, name in categories.items() if zone_id not in zones}


def zone_translations(texts: Iterable[str]) -> dict[str, dict[str, str]]:
    """enUS name -> {locale: literal name} of the ``Translations/Zones`` files; a locale whose
    files give one English name two different names (``Neues Avalon``, ``Neu-Avalon``) keeps
    neither."""
    found: dict[str, dict[str, str]] = {}
    disagree: set[tuple[str, str]] = set()
    for text in texts:
        current: str | None = None
        for line in text.splitlines():
            code = _code(line)
            start = _BLOCK_START.match(code)
            if start is not None:
                current = _unescape(start.group(1))
                continue
            if current is None:
                continue
            if _BLOCK_END.match(code):
                current = None
                continue
            entry = _LOCALE_ENTRY.match(code)
            if entry is None or entry.group(1) not in LOCALES:
                continue
            name = _unescape(entry.group(2)).strip()
            if not name:
                continue
            known = found.setdefault(current, {})
            if known.setdefault(entry.group(1), name) != name:
                disagree.add((current, entry.group(1)))
    for english, locale in disagree:
        del found[english][locale]
    return found


def zone_name_rows(
    lookup: dict[int, str], translations: dict[str, dict[str, str]], zone_ids: Iterable[int]
) -> tuple[list[list[str]], list[int]]:
    """The ``zone_names`` rows (zone_id, locale, name) of ``zone_ids``, sorted by zone id then
    locale (``enUS`` first, then :data:`LOCALES`), and the ids the lookup does not name."""
    rows: list[list[str]] = []
    unnamed: list[int] = []
    for zone_id in sorted(set(zone_ids)):
        english = lookup.get(zone_id)
        if english is None:
            unnamed.append(zone_id)
            continue
        rows.append([str(zone_id), ENGLISH, english])
        localized = translations.get(english, {})
        rows.extend(
            [str(zone_id), locale, localized[locale]] for locale in LOCALES if locale in localized
        )
    return rows, unnamed
