"""How far the SQLite search key agrees with a MariaDB collation, measured on a real server.

For letters ``a`` and ``b`` (a letter and its lower case, its upper case, and the letter without
its accents), the collation says ``a LIKE b``; the search key says
``search_key(a) == search_key(b)`` (:mod:`vba_assets.domain.catalog.search_key`). :func:`measure`
lists the letters where they disagree. Measured on MariaDB 10.11 with ``utf8mb4_unicode_ci``
(UCA 4.0.0) over every assigned letter up to U+2FFFF: the accents agree everywhere; case folding
disagrees only on letters added to Unicode after 4.0 (Georgian Mtavruli, Cherokee small letters,
later Latin and Cyrillic additions: MariaDB does not fold them) and on Greek and Latin variant
forms (``ς``, ``ϐ``, ``ſ``: MariaDB folds them, :meth:`str.lower` does not).

Run it against any MariaDB: ``python -m vba_assets.evaluation.search_key_parity --help``.
"""

import argparse
import json
import os
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from vba_assets.domain.catalog.search_key import search_key

#: Letters compared in one statement.
BATCH = 400
#: Unicode blocks of the catalogs' locales (deDE, esES/esMX, frFR, ruRU; koKR and zh are caseless).
CATALOG_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x0020, 0x024F),  # ASCII, Latin-1 Supplement, Latin Extended-A and -B
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x04FF),  # Cyrillic
    (0x1E00, 0x1EFF),  # Latin Extended Additional
)

Compare = Callable[[Sequence[tuple[str, str]]], list[bool]]


def without_marks(text: str) -> str:
    """``text``'s canonical decomposition without nonspacing marks, composed again."""
    parts = unicodedata.normalize("NFD", text)
    kept = "".join(part for part in parts if unicodedata.category(part) != "Mn")
    return unicodedata.normalize("NFC", kept)


def letter_pairs(ranges: Iterable[tuple[int, int]]) -> list[tuple[str, str]]:
    """Each letter with its lower case, upper case and unaccented form (one character each)."""
    pairs: set[tuple[str, str]] = set()
    for first, last in ranges:
        for code in range(first, last + 1):
            char = chr(code)
            if unicodedata.category(char) in ("Cs", "Cn", "Co", "Mn", "Cc"):
                continue
            for other in (char.lower(), char.upper(), without_marks(char), search_key(char)):
                if len(other) == 1 and other != char:
                    pairs.add((char, other))
    return sorted(pairs)


def measure(pairs: Sequence[tuple[str, str]], compare: Compare) -> list[dict[str, object]]:
    """The pairs on which the collation (``compare``) and the search key disagree."""
    disagreements: list[dict[str, object]] = []
    for start in range(0, len(pairs), BATCH):
        batch = pairs[start : start + BATCH]
        for (left, right), collation_equal in zip(batch, compare(batch), strict=True):
            key_equal = search_key(left) == search_key(right)
            if key_equal != collation_equal:
                disagreements.append(
                    {
                        "left": f"U+{ord(left):04X} {unicodedata.name(left, '?')}",
                        "right": f"U+{ord(right):04X} {unicodedata.name(right, '?')}",
                        "collation_equal": collation_equal,
                        "key_equal": key_equal,
                    }
                )
    return disagreements


def like_statement(count: int, collation: str) -> str:
    """``SELECT (%s LIKE %s), ...`` for ``count`` pairs, both sides in ``collation``."""
    side = f"CAST(%s AS CHAR CHARACTER SET utf8mb4) COLLATE {collation}"
    return "SELECT " + ", ".join([f"({side} LIKE {side})"] * count)


def main(argv: Sequence[str] | None = None) -> int:
    import pymysql  # only this command talks to a server

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3306)
    parser.add_argument("--user", default="vba_reader")
    parser.add_argument("--password-env", default="VBA_WORLD_DB_PASSWORD")
    parser.add_argument("--collation", default="utf8mb4_unicode_ci")
    parser.add_argument("--all", action="store_true", help="every letter up to U+2FFFF")
    args = parser.parse_args(argv)
    if not args.collation.replace("_", "").isalnum():
        parser.error("--collation must be a collation name")
    connection = pymysql.connect(
        host=args.host,
        port=args.port,
        user=args.user,
        password=os.environ.get(args.password_env, ""),
        charset="utf8mb4",
    )

    def compare(batch: Sequence[tuple[str, str]]) -> list[bool]:
        with connection.cursor() as cursor:
            cursor.execute(
                like_statement(len(batch), args.collation), [c for pair in batch for c in pair]
            )
            row = cursor.fetchone() or ()
        return [bool(value) for value in row]

    ranges = [(0x0020, 0x2FFFF)] if args.all else list(CATALOG_BLOCKS)
    pairs = letter_pairs(ranges)
    found = measure(pairs, compare)
    print(json.dumps({"pairs": len(pairs), "disagreements": found}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
