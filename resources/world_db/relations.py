"""The quest-relation query of grounded tie-breaks (protocol v6, issue 29 item 4).

For the creature entries that share a name in one capture, one literal, parameterized, read-only
statement over four allowlisted tables returns every quest they start or end with every title of
that quest::

    SELECT s.id, 0, s.quest, NULL, q.LogTitle FROM creature_queststarter s
        JOIN quest_template q ON q.ID = s.quest
        WHERE s.id IN (:identities) AND q.LogTitle IS NOT NULL
    UNION ALL SELECT s.id, 0, s.quest, l.locale, l.Title FROM creature_queststarter s
        JOIN quest_template_locale l ON l.ID = s.quest WHERE ... AND l.Title IS NOT NULL
    UNION ALL  (the same two for creature_questender, relation 1)
    ORDER BY identity, relation, quest, locale   -- NULL (the quest table's title) first
    LIMIT :row_limit                             -- limit + 1: truncation check

Every identifier comes from the reflected allowlisted tables (:mod:`resources.world_db.schema`),
every value is bound. The relation is the integer literal 0 (starts) or 1 (ends). ``(quest,
locale)`` is a key of the title tables, so the order is total without comparing titles.
"""

from typing import Any

from sqlalchemy import CompoundSelect, Table, bindparam, literal_column, null, select, union_all
from sqlalchemy.sql import sqltypes

from resources.world_db.schema import find_column
from vba_assets.domain.catalog.world import QuestRelationRow, SnapshotBinding

#: The tables the statement reads, in the order of its branches' names.
RELATION_TABLES = (
    "creature_queststarter",
    "creature_questender",
    "quest_template",
    "quest_template_locale",
)
#: Relation code in the statement -> the row's ``relation``.
RELATIONS = {0: "starts", 1: "ends"}


def _column(table: Table, name: str) -> Any:
    column = find_column(table, name)
    if column is None:
        raise KeyError(f"{table.name}.{name}")
    return column


def relation_statement(tables: dict[str, Table]) -> CompoundSelect[Any] | None:
    """The statement over the reflected ``tables``, or None when one of
    :data:`RELATION_TABLES` (or one of its columns) is not there: then no quest fact exists."""
    if any(name not in tables for name in RELATION_TABLES):
        return None
    starter, ender, quest, locale = (tables[name] for name in RELATION_TABLES)
    try:
        quest_id, log_title = _column(quest, "ID"), _column(quest, "LogTitle")
        locale_id, locale_code = _column(locale, "ID"), _column(locale, "locale")
        locale_title = _column(locale, "Title")
        relation_columns = [(_column(t, "id"), _column(t, "quest")) for t in (starter, ender)]
    except KeyError:
        return None
    if not isinstance(quest_id.type, sqltypes.Integer):
        return None
    branches = []
    for code, (creature, quest_of) in enumerate(relation_columns):
        wanted = creature.in_(bindparam("identities", expanding=True))
        branches.append(
            select(
                creature.label("identity"),
                literal_column(str(code)).label("relation"),
                quest_of.label("quest"),
                null().label("locale"),
                log_title.label("title"),
            )
            .join_from(creature.table, quest, quest_id == quest_of)
            .where(wanted, log_title.is_not(None))
        )
        branches.append(
            select(
                creature.label("identity"),
                literal_column(str(code)).label("relation"),
                quest_of.label("quest"),
                locale_code.label("locale"),
                locale_title.label("title"),
            )
            .join_from(creature.table, locale, locale_id == quest_of)
            .where(wanted, locale_title.is_not(None))
        )
    compound = union_all(*branches)
    return compound.order_by(
        literal_column("identity"),
        literal_column("relation"),
        literal_column("quest"),
        literal_column("locale"),
    ).limit(bindparam("row_limit"))


def to_relation_row(record: Any) -> QuestRelationRow:
    """A result record as a :class:`QuestRelationRow`."""
    identity, relation, quest, locale, title = tuple(record)
    return QuestRelationRow(
        identity=int(identity),
        relation="starts" if RELATIONS[int(relation)] == "starts" else "ends",
        quest=int(quest),
        locale=None if locale is None else str(locale),
        title=str(title),
    )


def relation_coverage_notes(binding: SnapshotBinding, limit: int, truncated: bool) -> list[str]:
    """What a quest-relation capture can and cannot say."""
    notes = [
        "quest relations: every row of creature_queststarter (starts) and creature_questender "
        "(ends) whose creature is one of the identities, joined with quest_template.LogTitle "
        "(locale null) and every quest_template_locale.Title; NULL titles are skipped",
        "order: identity, relation (starts before ends), quest, locale (the quest table's own "
        "title first)",
        f"a miss is scoped to these tables and snapshot '{binding.label}' (schema "
        f"{binding.schema_fingerprint[:16]}); it never proves that a creature gives no quest on "
        "the running server",
    ]
    if truncated:
        notes.append(f"truncated: more than {limit} rows matched; only the first {limit} are kept")
    return notes
