"""``vba lookup`` by identity: ``23487``, ``npc=23487`` or a database URL (ARCHITECTURE 11).

An operator reading a report with a link (``https://www.wowhead.com/npc=23487/...``) wants that
entry's row, not a name search for the URL's words. :func:`identity_query` recognizes the three
forms; :func:`lookup_identity` fetches the identity from the catalogs in scope with the
catalog's own fetch by identity (no contains search) and returns the same four-outcome
:class:`~.lookup_result.LookupResult` as a name lookup:

* ``success``: the first catalog in scope that holds the identity gives the entity (tier
  ``identity``) with its data columns; its rows in the other catalogs of its type are the
  ``records``;
* ``error`` / ``no_match``: no catalog in scope holds the identity (scoped to those catalogs and
  that snapshot, like every miss).

The digits are read by :func:`~.identity_digits.parse_identity`, the one reading of identity digits
(ASCII only, leading zeros normalised: ``npc=000023487`` is 23487; ``２３４８７`` or ``٢٣٤`` stay a
name query), and only the keys
``npc`` and ``creature`` (what creature pages of public databases use); any other text is a name
query. Pure: the database is injected as a :class:`~.world.CatalogSearch`.
"""

import json
import re
from collections.abc import Sequence

from vba_assets.domain.catalog.identity_digits import parse_identity
from vba_assets.domain.catalog.lookup_result import (
    CatalogRecord,
    EntityRow,
    LookupResult,
    MatchedEntity,
    field_values,
)
from vba_assets.domain.catalog.matching import name_key
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.catalog.world import CatalogRow, CatalogSearch
from vba_assets.errors import ErrorCode

#: The digit patterns take a whole run of digits (any script); parse_identity refuses non-ASCII.
_BARE = re.compile(r"\d+")
_KEYED = re.compile(r"(?:npc|creature)\s*[=:/#]\s*(\d+)", re.IGNORECASE)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
#: A creature page inside a URL: ``/npc=23487/slug``, ``?npc=23487``, ``/npc/23487``.
_URL_PAGE = re.compile(r"(?<![A-Za-z])(?:npc|creature)[=/](\d+)", re.IGNORECASE)


def identity_query(query: str) -> int | None:
    """The identity ``query`` gives (``23487``, ``npc=23487``, a URL of a creature page), else
    None (a name query). Surrounding blanks are ignored; digits are ASCII only."""
    text = query.strip()
    digits: str | None = None
    if bare := _BARE.fullmatch(text):
        digits = bare.group(0)
    elif keyed := _KEYED.fullmatch(text):
        digits = keyed.group(1)
    elif _URL.fullmatch(text) and (page := _URL_PAGE.search(text)):
        digits = page.group(1)
    return None if digits is None else parse_identity(digits)


def _sorted_rows(rows: Sequence[CatalogRow]) -> list[CatalogRow]:
    return sorted(rows, key=lambda r: (name_key(r.name), json.dumps(r.data, sort_keys=True)))


def lookup_identity(
    query: str,
    identity: int,
    scope: Sequence[CatalogConfig],
    catalogs: Sequence[CatalogConfig],
    search: CatalogSearch,
    *,
    limit: int,
    notes: Sequence[str] = (),
) -> LookupResult:
    """Fetch ``identity`` from the catalogs in ``scope``; the result of :func:`.lookup.lookup`.

    Args:
        query: the query as given (echoed in the result).
        identity: what :func:`identity_query` read from it.
        scope: the catalogs searched (:func:`.lookup.select_catalogs`).
        catalogs: every configured catalog (the matched entity's other catalogs come from them).
        search: the read-only world database.
        limit: the clamped limit (echoed; an identity has no options to show).
        notes: notes the caller already has (a clamped limit).
    """
    fetched = {
        config.name: _sorted_rows(search.fetch_by_identity(config.name, identity))
        for config in scope
    }
    said = [f"{name} -> {len(rows)} row(s)" for name, rows in fetched.items()]
    common: dict[str, object] = {
        "query": query,
        "limit": limit,
        "catalogs": [config.name for config in scope],
        "notes": [*notes, f"fetched identity {identity} (no name search): {'; '.join(said)}"],
    }
    matched = next((config for config in scope if fetched[config.name]), None)
    if matched is None:
        names = ", ".join(config.name for config in scope)
        return LookupResult.model_validate(
            {
                **common,
                "status": "error",
                "message": f"no row of {names} has identity {identity}",
                "reason": "no_match",
                "code": ErrorCode.LOOKUP_NO_MATCH,
            }
        )
    row = fetched[matched.name][0]
    records: list[CatalogRecord] = []
    for config in catalogs:
        if config.entity_type != matched.entity_type or config.name == matched.name:
            continue
        rows = fetched.get(config.name)
        if rows is None:
            rows = _sorted_rows(search.fetch_by_identity(config.name, identity))
        records.append(
            CatalogRecord(
                catalog=config.name,
                catalog_kind=config.kind,
                rows=[
                    EntityRow(name=r.name, fields=field_values(r, config.data_columns))
                    for r in rows
                ],
                note=None if rows else f"{config.name} holds no row with this identity",
            )
        )
    match = MatchedEntity(
        identity=row.identity,
        name=row.name,
        entity_type=matched.entity_type,
        catalog=matched.name,
        catalog_kind=matched.kind,
        tier="identity",
        fields=field_values(row, matched.data_columns),
        also_matched=[],
        records=records,
    )
    message = f"{match.name!r} is {match.entity_type} {match.identity} (fetched by identity)"
    return LookupResult.model_validate(
        {
            **common,
            "status": "success",
            "message": message,
            "match": match,
            "best_tier": "identity",
            "tied": 1,
        }
    )
