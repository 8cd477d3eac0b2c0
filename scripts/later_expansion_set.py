"""Build `eval/later_expansion.jsonl`: made-up reports naming REAL creatures the 3.3.5 catalog lacks.

Issue 29 ("no selection for a mention with no gold entry"). Real trackers of later expansions and
custom servers name creatures the WotLK catalog does not hold; the planner's misspelling lookups
(rare words, lower-case phrases, last-word and boss-word lookups) must not turn such a name into a
selection of some other creature that merely shares a rare word. This script writes a robustness
set in the eval format (`eval/README.md`) where every mention's `gold_entry` is null.

Two steps, both deterministic:

``extract --questie GIT_DIR``
    Reads creature names of Cataclysm and Mists of Pandaria from a checkout (or bare mirror) of the
    public repository `Questie/Questie` (the WoW addon's NPC data): the English names are the
    ``[id] = { -- Name`` comments of ``Database/Corrections/cataNPCFixes.lua`` and
    ``mopNPCFixes.lua``; the German, French and Spanish names of the same ids are read from
    ``Localization/lookups/{Cata,MoP}/lookupNpcs/{deDE,frFR,esES}.lua``. Only names that no row of
    the repo's ``creature_template*.csv.gz`` holds (any locale, after ``normalize_for_match``) are
    kept, and only ids of the later expansions (> 36 000, above the 3.3.5 catalog's range of new
    NPCs). Writes ``eval/later_expansion_names.tsv`` with the source, commit and licence note.

``generate``
    Samples names from that TSV with a fixed seed and writes report sentences around them in the
    shapes real reports use (a ``[Boss] X`` title, "X does not spawn", lower-case "x is bugged",
    a one-edit misspelling, "X's adds", German/French/Spanish frames).

The names are factual game data (creature names of Blizzard's game) used only as test inputs.
"""

import argparse
import csv
import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from vba_assets.domain.catalog.names import fold_accents, normalize_for_match

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "vba_assets" / "worlddata" / "data"
NAMES_TSV = ROOT / "eval" / "later_expansion_names.tsv"
DATASET = ROOT / "eval" / "later_expansion.jsonl"
SEED = 20261207
MIN_LATER_ID = 36000

_ENGLISH_FILES = ("Database/Corrections/cataNPCFixes.lua", "Database/Corrections/mopNPCFixes.lua")
_LOCALE_FILES = {
    loc: (
        f"Localization/lookups/Cata/lookupNpcs/{loc}.lua",
        f"Localization/lookups/MoP/lookupNpcs/{loc}.lua",
    )
    for loc in ("deDE", "frFR", "esES")
}
_COMMENT = re.compile(r"^\s+\[(\d+)\] = \{ -- (.+?)\s*$", re.MULTILINE)
_LOOKUP = re.compile(r'^\[(\d+)\] = \{"((?:[^"\\]|\\.)*)"', re.MULTILINE)
# Names that are technical (triggers, cameras, credits), not names a player writes.
_TECHNICAL = re.compile(
    r"\b(bunny|trigger|credit|camera|placeholder|vehicle|dnt|dnd|unused|test|kill|quest|"
    r"controller|dummy|target|summon|spell|visual|event|zz|old|copy|phase|stalker|invisible)\b|"
    r"[\[\]()<>{}0-9_/\\:;|=]",
    re.IGNORECASE,
)


def _catalog_rows() -> list[str]:
    names: list[str] = []
    for file, column in (
        ("creature_template.csv.gz", "name"),
        ("creature_template_locale.csv.gz", "Name"),
    ):
        with gzip.open(DATA / file, "rt", encoding="utf-8", newline="") as handle:
            names.extend(row[column] for row in csv.DictReader(handle) if row[column])
    return names


def _catalog_names() -> set[str]:
    return {normalize_for_match(name) for name in _catalog_rows()}


def _git_show(git_dir: Path, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _plausible(name: str) -> bool:
    words = name.split()
    return (
        0 < len(words) <= 4
        and 4 <= len(name) <= 40
        and name[0].isupper()
        and not _TECHNICAL.search(name)
        and '"' not in name
    )


def extract(git_dir: Path) -> None:
    commit = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    catalog = _catalog_names()
    english: dict[int, str] = {}
    for path in _ENGLISH_FILES:
        for match in _COMMENT.finditer(_git_show(git_dir, path)):
            english.setdefault(int(match.group(1)), match.group(2))
    rows: set[tuple[int, str, str]] = set()
    for entry, name in english.items():
        if entry > MIN_LATER_ID and _plausible(name) and normalize_for_match(name) not in catalog:
            rows.add((entry, "en", name))
    for locale, paths in _LOCALE_FILES.items():
        for path in paths:
            for match in _LOOKUP.finditer(_git_show(git_dir, path)):
                entry, name = int(match.group(1)), match.group(2).replace("\\'", "'")
                if (
                    entry in english
                    and entry > MIN_LATER_ID
                    and _plausible(name)
                    and normalize_for_match(name) not in catalog
                ):
                    rows.add((entry, locale[:2], name))
    header = (
        f"# source: https://github.com/Questie/Questie commit {commit}\n"
        f"# files: {', '.join(_ENGLISH_FILES)} (English, '-- Name' comments); "
        "Localization/lookups/{Cata,MoP}/lookupNpcs/{deDE,frFR,esES}.lua\n"
        "# licence: Questie is published on GitHub under GPL-3.0 (no root LICENSE file in the snapshot "
        "read); the names themselves are Blizzard game data, used here only as test inputs\n"
        "# kept: npc id > 36000 and a name no row of creature_template*.csv.gz holds "
        "(any locale, normalize_for_match)\n"
        "entry\tlocale\tname\n"
    )
    body = "".join(f"{e}\t{loc}\t{n}\n" for e, loc, n in sorted(rows))
    NAMES_TSV.write_text(header + body, encoding="utf-8")
    print(f"{len(rows)} names -> {NAMES_TSV}", file=sys.stderr)


def _read_names() -> dict[str, list[tuple[int, str]]]:
    by_locale: dict[str, list[tuple[int, str]]] = {}
    for line in NAMES_TSV.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("entry\t") or not line.strip():
            continue
        entry, locale, name = line.split("\t")
        by_locale.setdefault(locale, []).append((int(entry), name))
    return by_locale


def _misspell(name: str, rng: random.Random) -> str:
    """One edit (drop, double or swap a letter) inside the longest word, never its first letter."""
    words = name.split(" ")
    index = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[index]
    if len(word) < 5:
        return name
    pos = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("drop", "double", "swap"))
    if kind == "drop":
        word = word[:pos] + word[pos + 1 :]
    elif kind == "double":
        word = word[:pos] + word[pos] + word[pos:]
    else:
        word = word[:pos] + word[pos + 1] + word[pos] + word[pos + 2 :]
    words[index] = word
    return " ".join(words)


_EN_SHAPES = (
    (
        "title_boss",
        "[Boss] {X}",
        "{X} resets in the middle of the fight and heals to full. Happened three times tonight.",
    ),
    (
        "not_spawn",
        "{X} does not spawn",
        "Waited at the spot for over an hour, {X} never showed up. Other players say the same.",
    ),
    (
        "lower",
        "{x} is bugged",
        "{x} is bugged, it just stands there and does not attack anyone. please fix",
    ),
    (
        "misspelled",
        "Quest mob not working",
        "I cannot kill {M}, it evades every time I pull it. Tried with two characters.",
    ),
    (
        "adds",
        "{X}'s adds never despawn",
        "After the pull {X}'s adds stay up even after the boss dies, so we cannot loot.",
    ),
    (
        "loot",
        "No loot from {X}",
        "Killed {X} twice and the corpse had no loot at all, not even gold.",
    ),
)
_LOCALE_SHAPES = {
    "de": (
        "{X} spawnt nicht",
        "Ich warte seit einer Stunde, aber {X} erscheint einfach nicht. Bitte prüfen.",
    ),
    "fr": (
        "{X} ne réapparaît pas",
        "J'attends depuis une heure mais {X} n'apparaît jamais. Merci de corriger.",
    ),
    "es": ("{X} no aparece", "Llevo una hora esperando y {X} no aparece nunca. Por favor revisad."),
}


def _boss_words() -> set[str]:
    """Words (five letters or more) of the names of catalog bosses (``rank`` 3), any locale."""
    bosses: set[int] = set()
    words: set[str] = set()
    with gzip.open(DATA / "creature_template.csv.gz", "rt", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["rank"] == "3":
                bosses.add(int(row["entry"]))
                words.update(re.findall(r"[^\W\d_]{5,}", normalize_for_match(row["name"])))
    with gzip.open(
        DATA / "creature_template_locale.csv.gz", "rt", encoding="utf-8", newline=""
    ) as handle:
        for row in csv.DictReader(handle):
            if int(row["entry"]) in bosses:
                words.update(re.findall(r"[^\W\d_]{5,}", normalize_for_match(row["Name"])))
    return words


def _near(word: str, words: set[str]) -> bool:
    """``word`` is one of ``words`` or one edit (drop, add, substitute, swap) from one."""
    if word in words:
        return True
    letters = "abcdefghijklmnopqrstuvwxyz"
    for i in range(len(word) + 1):
        if word[:i] + word[i + 1 :] in words:
            return True
        if i < len(word) - 1 and word[:i] + word[i + 1] + word[i] + word[i + 2 :] in words:
            return True
        for c in letters:
            if word[:i] + c + word[i:] in words or word[:i] + c + word[i + 1 :] in words:
                return True
    return False


#: Shapes of the boss-word stratum: a later name with a word a 3.3.5 boss's name holds (or one
#: edit from it), written as reports do (title case, lower case, a sentence start).
_BOSS_SHAPES = (
    ("bossword_title", "{X} does not spawn", "Waited an hour at the spot, {X} never showed up."),
    (
        "bossword_lower",
        "{x} is bugged",
        "{x} is bugged, it just stands there and does not attack anyone. please fix",
    ),
    (
        "bossword_adds",
        "Raid problem",
        "{X}'s adds never despawn after the pull, so we cannot loot the boss.",
    ),
)


#: Shapes of the single-word stratum: a one-word later name in lower case or only at a sentence
#: start ("Kaelthas evade bug"), as the rare-word lookups read them.
_SINGLE_SHAPES = (
    ("single_lower", "{x} evade bug", "we pulled {x} twice and it evades at 50%, please fix"),
    ("single_start", "Raid boss bug", "{X} evades at 50% every time we pull, please fix."),
    (
        "single_kill",
        "cant kill boss",
        "cant kill {x} in the last room, it resets when the tank moves",
    ),
)


#: Shapes of the near-spelling stratum: a later name within the assessment's near-spelling
#: similarity (0.85) of a catalog name, written in title case, in lower case and in a title.
_NEAR_SHAPES = (
    (
        "near_title",
        "{X} does not spawn",
        "Waited at the spot for over an hour, {X} never showed up.",
    ),
    (
        "near_lower",
        "npc bugged",
        "the {x} is bugged, it just stands there and does not talk to anyone",
    ),
    (
        "near_body",
        "Evade bug",
        "I cannot kill {X}, it evades every time I pull it. Tried with two characters.",
    ),
)


def _compact(text: str) -> str:
    folded = fold_accents(normalize_for_match(text))
    return "".join(c for c in folded if c.isalnum() or c == " ")


def _near_catalog(pool: list[str]) -> list[str]:
    """The names of ``pool`` whose letters are a near spelling of some catalog name's (Indel
    similarity at least 0.85) without being equal to them ("Rockshell Snapclaw" ~ "Muckshell
    Snapclaw"; "Ku'ma" ~ "Kuma" is left out: the same letters, punctuation aside)."""
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    catalog = sorted({_compact(name) for name in _catalog_rows()})
    found = []
    for name in pool:
        match = process.extractOne(
            _compact(name), catalog, scorer=Indel.normalized_similarity, score_cutoff=0.85
        )
        if match is not None and match[1] < 1.0:
            found.append(name)
    return found


def generate(per_shape: int, per_locale: int, per_boss_shape: int = 30) -> None:
    rng = random.Random(SEED)
    names = _read_names()
    lines: list[dict[str, object]] = []
    english = sorted(names.get("en", []))
    picks = rng.sample(english, min(len(english), per_shape * len(_EN_SHAPES)))
    for number, (entry, name) in enumerate(picks):
        shape, title, body = _EN_SHAPES[number % len(_EN_SHAPES)]
        surface = {"lower": name.lower(), "misspelled": _misspell(name, rng)}.get(shape, name)
        fields = {"X": name, "x": name.lower(), "M": surface}
        lines.append(
            _line(f"LATER-EN-{number + 1:03d}", title, body, fields, surface, "en", shape, entry)
        )
    for locale, (title, body) in _LOCALE_SHAPES.items():
        pool = sorted(names.get(locale, []))
        for number, (entry, name) in enumerate(rng.sample(pool, min(len(pool), per_locale))):
            fields = {"X": name}
            lines.append(
                _line(
                    f"LATER-{locale.upper()}-{number + 1:03d}",
                    title,
                    body,
                    fields,
                    name,
                    locale,
                    "frame",
                    entry,
                )
            )
    boss_words = _boss_words()
    pool = sorted(
        (entry, name)
        for entry, name in names.get("en", [])
        if any(_near(w, boss_words) for w in re.findall(r"[^\W\d_]{5,}", normalize_for_match(name)))
    )
    picks = rng.sample(pool, min(len(pool), per_boss_shape * len(_BOSS_SHAPES)))
    for number, (entry, name) in enumerate(picks):
        shape, title, body = _BOSS_SHAPES[number % len(_BOSS_SHAPES)]
        surface = name.lower() if shape == "bossword_lower" else name
        fields = {"X": name, "x": name.lower()}
        lines.append(
            _line(f"LATER-BW-{number + 1:03d}", title, body, fields, surface, "en", shape, entry)
        )
    singles = sorted(
        {
            name: entry for entry, name in names.get("en", []) if len(name) >= 5 and " " not in name
        }.items()
    )
    picks2 = rng.sample(singles, min(len(singles), per_boss_shape * len(_SINGLE_SHAPES)))
    for number, (name, entry) in enumerate(picks2):
        shape, title, body = _SINGLE_SHAPES[number % len(_SINGLE_SHAPES)]
        surface = name.lower() if shape != "single_start" else name
        fields = {"X": name, "x": name.lower()}
        lines.append(
            _line(f"LATER-SW-{number + 1:03d}", title, body, fields, surface, "en", shape, entry)
        )
    entries = {name: entry for entry, name in sorted(names.get("en", []), reverse=True)}
    near = _near_catalog(sorted(entries))
    near_lines = [(n, shape) for n in near for shape in _NEAR_SHAPES]
    for number, (name, (kind, near_title, near_body)) in enumerate(near_lines):
        surface = name.lower() if kind == "near_lower" else name
        fields = {"X": name, "x": name.lower()}
        case_id = f"LATER-NEAR-{number + 1:03d}"
        lines.append(
            _line(case_id, near_title, near_body, fields, surface, "en", kind, entries[name])
        )
    text = "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
    DATASET.write_text(text, encoding="utf-8")
    print(f"{len(lines)} reports -> {DATASET}", file=sys.stderr)


def _line(
    case_id: str,
    title: str,
    body: str,
    fields: dict[str, str],
    surface: str,
    language: str,
    shape: str,
    entry: int,
) -> dict[str, object]:
    return {
        "id": case_id,
        "title": title.format(**fields),
        "body": body.format(**fields),
        "language": language,
        "tags": ["later_expansion", shape],
        "tracker": "made-up",
        "in_scope": True,
        "mentions": [{"surface": surface, "role": "affected_subject", "gold_entry": None}],
        "note": f"Questie npc {entry}: a later-expansion creature no 3.3.5 catalog row holds; no gold entry.",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ext = sub.add_parser("extract")
    ext.add_argument(
        "--questie", type=Path, required=True, help="git dir of a Questie/Questie checkout"
    )
    gen = sub.add_parser("generate")
    gen.add_argument("--per-shape", type=int, default=40)
    gen.add_argument("--per-locale", type=int, default=25)
    args = parser.parse_args()
    if args.command == "extract":
        extract(args.questie)
    else:
        generate(args.per_shape, args.per_locale)


if __name__ == "__main__":
    main()
