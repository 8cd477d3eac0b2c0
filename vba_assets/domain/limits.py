"""The limits of the model stages' replies, and of the rules that require listing things (pure).

Every output-schema cap (the interpretation's lists, a mention list, a question's length) and
every rule that requires a reply to list something (every ``D`` alias in ``unknowns``, every
``N`` alias in an entity list, every unresolvable date as an unknown, a clarification that names
the competing candidates) is derived from the constants here, so a valid reply always exists
whatever the report holds (issue 30; ARCHITECTURE 15 "Bounded work"). :func:`contradictions`
states the inequalities and a unit test keeps them true.

What happens past a limit (protocol v5, ``ProtocolSpec.bounded_lists``):

* **Unresolved identities**: a resolution context holds at most :data:`MAX_UNRESOLVED` ``D``
  aliases: every unresolved search (at most ``max_searches`` <= :data:`MAX_SEARCHES`), then the
  names the plan left unsearched, in plan order, while there is room. The other unsearched names
  get no alias: they are recorded in the context's ``not_examined`` list with the reason
  ``not examined: over the limit of N unresolved identities`` and need no unknown.
* **Unknowns**: :data:`MAX_UNKNOWNS` = :data:`MAX_UNRESOLVED` + :data:`MAX_TIME_REFERENCES`, room
  for every ``D`` alias and every unresolvable date; open points beyond those are optional.
* **Restatement**: it names the selected affected subjects the reply lists in order while their
  shortest words (catalog name or the report's words) fit :data:`RESTATEMENT_NAMES_BUDGET`
  characters (the first always; a mention's quote is at most :data:`MAX_QUOTE_CHARS`).
* **Clarification**: the question names the competing candidates (or the report's word, when
  nothing matched) of the unresolved affected subjects in order while their listing fits
  :data:`CLARIFICATION_LISTING_BUDGET` characters; the first subject is always required (its
  listing fits by construction), later ones past the budget are not.

Protocols 1-4 keep their caps and rules as they were (a report past a limit can fail there:
that is what v5 fixes); the numbers they share with v5 are the same constants.
"""

from vba_assets.domain.catalog.identity_digits import MAX_IDENTITY

#: ``max_searches`` of a project config is at most this (``EntityResolutionConfig``).
MAX_SEARCHES = 32
#: Mentions a search, an unsearched name or an entity reference cites.
MAX_MENTIONS = 8
#: Characters of a search term or an unsearched name.
MAX_TERM_CHARS = 100
#: The interpretation's lists.
MAX_AFFECTED_SUBJECTS = 16
#: Every ``N`` alias must be listed; an ambiguous or out-of-scope reply lists them all here.
MAX_CONTEXT_ENTITIES = MAX_SEARCHES
MAX_OBSERVATIONS = 32
MAX_CITATIONS = 12
MAX_TIME_REFERENCES = 16
MAX_SUB_TASKS = 12
#: ``unknowns`` of protocols 1-4 (which required every ``D`` alias without bounding them).
MAX_UNKNOWNS_V4 = 32
#: ``D`` aliases of one resolution context (protocol v5): room for every unresolved search.
MAX_UNRESOLVED = MAX_SEARCHES
#: ``unknowns`` from protocol v5: every ``D`` alias and every unresolvable date fit.
MAX_UNKNOWNS = MAX_UNRESOLVED + MAX_TIME_REFERENCES
#: Characters of a clarification question.
MAX_CLARIFICATION_CHARS = 500
#: Competing candidates a clarification names per unresolved subject (the first ones).
CLARIFICATION_MAX_CANDIDATES = 8
#: The longest listing of the shown candidates' ids and names (over every unresolved identity) a
#: clarification must spell out; past it only the ids are required, so the rule can be met
#: within the question's characters (three subjects of eight long names each cannot), with
#: room for a few words about each subject.
CLARIFICATION_NAMES_BUDGET = 260
#: Protocol v5: the longest listing of required subjects (their ids, names and unmatched words)
#: a clarification must spell out; subjects past it are not required.
CLARIFICATION_LISTING_BUDGET = CLARIFICATION_NAMES_BUDGET
#: Characters of the restatement, and of a mention's quote (the report's words for a subject).
MAX_RESTATEMENT_CHARS = 2000
MAX_QUOTE_CHARS = 300
#: Protocol v5: the longest listing of the selected affected subjects' shortest words the
#: restatement must hold; subjects past it are not required (the first always is).
RESTATEMENT_NAMES_BUDGET = MAX_RESTATEMENT_CHARS - 500
#: What an ``id, `` costs in a listing at most.
_ID_CHARS = len(str(MAX_IDENTITY)) + 2


def not_examined_reason(limit: int) -> str:
    """The reason recorded for a name past :data:`MAX_UNRESOLVED` (protocol v5)."""
    return f"not examined: over the limit of {limit} unresolved identities"


def contradictions() -> list[str]:
    """The limits that would make some report impossible to answer (empty: none)."""
    found = []
    if MAX_CONTEXT_ENTITIES < MAX_SEARCHES:
        found.append("every N alias (one per search) must fit in context_entities")
    if MAX_UNKNOWNS < MAX_UNRESOLVED + MAX_TIME_REFERENCES:
        found.append("every D alias and every unresolvable date must fit in unknowns")
    if MAX_UNRESOLVED < MAX_SEARCHES:
        found.append("every unresolved search must get a D alias")
    first = max(CLARIFICATION_MAX_CANDIDATES * _ID_CHARS, MAX_TERM_CHARS + 4)
    if first > CLARIFICATION_LISTING_BUDGET:
        found.append("the first subject's listing must fit the clarification budget")
    if max(CLARIFICATION_LISTING_BUDGET, CLARIFICATION_NAMES_BUDGET) + 200 > (
        MAX_CLARIFICATION_CHARS
    ):
        found.append("a required listing must leave room for words in the question")
    if MAX_QUOTE_CHARS + 2 > RESTATEMENT_NAMES_BUDGET:
        found.append("the first affected subject's words must fit the restatement's budget")
    return found
