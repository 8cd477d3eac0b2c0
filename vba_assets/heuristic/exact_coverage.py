"""Protocol v6, exact-name coverage: what the heuristic asks of a truncated search before it
selects the one entity of its exact-name capture (:func:`~.assessment.assess_exact_coverage`), or
one of several same-name entities of that capture by a grounded tie-break
(:func:`exact_tie_view`). Pure."""

import re

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.stage_context import CandidateView, SearchView
from vba_assets.heuristic.common_words import common_word

#: The catalog's boss rank.
BOSS_RANK = 3
_TERM_WORD = re.compile(r"[^\W\d_]+")
#: Words before a noun that make it a kind of thing, not one named creature ("my Scryer friend",
#: "an Ogre"): a term after one of them is used as a common noun.
DETERMINERS = frozenset(
    [
        "a",
        "an",
        "my",
        "your",
        "his",
        "her",
        "its",
        "our",
        "their",
        "every",
        "each",
        "some",
        "any",
        "another",
    ]
)
_LAST_WORD = re.compile(r"([^\W\d_]+)\W{0,2}$")


def written_as_name(search: SearchView, sources: dict[str, str], language: str) -> bool:
    """Whether the report writes a truncated search's term as a name of its own, not as ordinary
    words nor as part of a longer word: some mention starts with an upper-case letter, no
    mention is followed by a letter or digit in its source (``Scryer`` inside ``Scryers``), and
    no mention follows a determiner (``my Scryer friend``, ``an Ogre``: a kind, not one named
    creature), and not every word of the term is a common word of English or the report's language
    (:func:`~.common_words.common_word`: ``Trash``, ``Ogre``, ``mana spring totem``,
    ``Steward`` of ``Orthal the Steward`` are exact creature names a truncated search finds, and
    rarely what the report means). Measured on dev/dev2/devset: these guards remove the exact
    rows selected for words the gold does not name; they also drop a common given name
    (``Sara``)."""
    words = _TERM_WORD.findall(search.term)
    # a batched name (protocol v6) written as capitalized words is a name whatever its words
    # ("Foe Reaper 4000"); a single common word ("Whirlwind") is not
    capitalized = len(words) > 1 and all(w[:1].isupper() for w in words)
    common = all(common_word(word.casefold(), language) for word in words)
    if not words or (common and not (search.unsearched is not None and capitalized)):
        return False
    # a lower-case mention is a name when the exact capture holds a boss of that name
    if not any(m.quote[:1].isupper() for m in search.mentions) and not _boss_named(search):
        return False
    for mention in search.mentions:
        text = sources.get(mention.source, "")
        if mention.end < len(text) and text[mention.end].isalnum():
            return False
        before = _LAST_WORD.search(text, max(0, mention.start - 40), mention.start)
        if before is not None and before.group(1).casefold() in DETERMINERS:
            return False
    return True


def _boss_named(search: SearchView) -> bool:
    """Protocol v6: the complete exact-name capture (or a batched name's own, complete capture)
    holds a boss (the catalog's rank 3) named exactly the term: reporters write bosses in lower
    case ("yogg-saron", "sara")."""
    exact = search.exact
    if search.unsearched is not None and not search.truncated:  # a batched name's own capture
        rows = search.candidates
    elif exact is not None and not exact.truncated:
        rows = exact.candidates
    else:
        return False
    wanted = normalize_for_match(search.term)
    return any(
        c.data.get("rank") == BOSS_RANK and normalize_for_match(c.name) == wanted for c in rows
    )


def exact_competitors(search: SearchView) -> list[CandidateView]:
    """Protocol v6: the candidates of a complete exact-name capture (the same-name entities a
    truncated search could mean); none when there is no such capture."""
    exact = search.exact
    return list(exact.candidates) if exact is not None and not exact.truncated else []


def exact_tie_view(search: SearchView) -> SearchView | None:
    """Protocol v6: the complete exact-name capture of a truncated search as a search of its own
    (its alias, candidates, quest relations and zone markers) when it holds several entities
    named exactly the term and the controller recorded their tie-break facts; None otherwise.
    A grounded tie-break found on this view selects from the exact-name capture."""
    exact = search.exact
    if exact is None or exact.truncated or exact.unique:
        return None
    if exact.quest_relations is None and exact.zone_markers is None:
        return None
    return search.model_copy(
        update={
            "capture_alias": exact.capture_alias,
            "truncated": False,
            "candidates": list(exact.candidates),
            "quest_relations": exact.quest_relations,
            "zone_markers": exact.zone_markers,
            "exact": None,
        }
    )
