"""Which terms of a report are worth a search (step 4 of the heuristic plan).

With the gazetteer, a term is kept when it exactly matches a catalog name, or when it has an
affected or quest-giver cue (a misspelled name is then narrowed to its longest part that some
catalog name contains: "Glodrak Huntsnipper" -> "Glodrak"), or when it is a capitalized
multi-word name some catalog name contains, or a boss's short form (a single capitalized word that
is no common word and a word of names most of which are bosses: "Illidan", :func:`short_form`; the
same word in any case or before a possessive compound when the names of at most
:data:`MAX_BOSS_SHORT_FORM_ENTITIES` entities hold it: "after razorgore dies", "Sathrovarr's
Shadow Bolt Volley", :func:`boss_short_form`). An exact match counts as a name when some mention is capitalized (also a single word at the start of a
sentence: "Bellygrub respawns instantly."), has several words, or has a subject cue. These are
never searched on their own, whatever the catalog holds:

* **common nouns**: a profession, skill or class ("Mining", "Priest"); a single word
  capitalized only at sentence starts that the report also writes in lower case ("Chicken keeps
  following me ... the chicken"), or whose capitalized mentions all look like verbs ("Mining",
  "Looted"); a single lower-case word, unless the reporter writes in lower case
  anyway (see :class:`~.terms.ReportFacts`). A word that exactly names a creature and that is no
  common word, or that the names of only a few entities contain, is a name however it is written
  (:func:`rare_lowercase_name`: "kill negatron", "[Raid] Rotface ... attempting rotface");
* **possessive parts of place and item names**: a name whose every mention is a possessive
  followed by a capitalized word ("Rattlegore's Bridge", "Thoradin's Wall"), unless a cue makes
  it a subject ("Goldark's Brewfest quest");
* **capitalized nouns** in a language that capitalizes every noun (German): a single word that
  no primary catalog holds exactly, unless it is a rare localized name that is no common word
  ("Datenbank" is both; see :func:`_capitalized_noun`);
* **places**, when no catalog holds places: a zone-like term (a zone word such as "Forest",
  "Valley") without an exact match or with only locative mentions, and any term whose only cue is
  locative ("in Dun Garok", a leading "Dun Garok, Hillsbrad Foothills.") and that no catalog name
  equals.

Without a gazetteer: every term capitalized like a name (not only at a sentence start) or with a
subject cue.

What it cannot do: it has no dictionary. A common noun that is a catalog name, capitalized in
the middle of a sentence and never written in lower case (German capitalizes every noun), is
still searched.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.stage_context import CatalogView
from vba_assets.heuristic.common_words import common_word
from vba_assets.heuristic.gazetteer import INDEX_ENTITY_TYPE, Gazetteer
from vba_assets.heuristic.lexicon import is_game_term, is_stopword
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.roles import zone_like
from vba_assets.heuristic.spans import SourceText, Span
from vba_assets.heuristic.terms import ARTICLES, ReportFacts, Term, fold

#: A misspelled name is narrowed to a part that the names of at most this many entities contain.
MAX_NARROWED = 3
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")
_VERB_LIKE = re.compile(r"^[A-ZÄÖÜ][a-zäöüß]+(?:ed|ing)$")
_POSSESSIVE_BEFORE_NAME = re.compile(r"(?:['’ʼ][sS]?|[sS]['’ʼ])[ \t]{1,2}(\w)")


def possessive_compound(text: str, end: int, start: int | None = None) -> bool:
    """True when ``text[:end]`` ends a possessive glued to a capitalized word ("Rattlegore's
    Bridge", "Thoradin's Wall"): the name before it is part of a place or item name. Not when the
    name ``text[start:end]`` is quoted by that apostrophe ("'Terenthis' NPC": the quote that
    opens it closes it)."""
    match = _POSSESSIVE_BEFORE_NAME.match(text, end)
    if match is None or not match.group(1).isupper():
        return False
    closing = text[end]
    return not (start is not None and start > 0 and text[start - 1] == closing)


def common_noun(term: Term, facts: ReportFacts) -> bool:
    """True for a term that is a common noun, not a name (see the module docstring)."""
    if is_game_term(term.text):
        return True
    if len(term.words) != 1:
        return False
    capitalized = [s for s in term.spans if s.text != s.text.lower()]
    if any(s.kind == "quoted" or not s.initial for s in capitalized):
        return False  # capitalized in the middle of a sentence: written like a name
    if capitalized and all(_VERB_LIKE.match(s.text) for s in capitalized):
        return True
    return not facts.casual and term.key in facts.lowercase_words


def _place(term: Term, facts: ReportFacts) -> bool:
    """True for a place name the creature catalogs should not be searched for."""
    if facts.location_catalog:
        return False
    locative_only = term.cues.location > 0 and not term.cues.any_subject_cue
    if zone_like(term.text) and (not term.exact or locative_only):
        return True
    return locative_only and not term.exact


def _narrowed(term: Term, gazetteer: Gazetteer, language: str) -> Term | None:
    """The longest word sequence of ``term`` that names of a few entities contain (misspellings).

    "Glodrak Huntsnipper" -> "Glodrak" (one entity's names contain it). A part that the names of
    many entities contain says nothing about which one is meant and is not used.
    """
    words = _WORD.findall(term.spans[0].text)
    for width in range(len(words) - 1, 0, -1):
        for first in range(len(words) - width + 1):
            part = words[first : first + width]
            if all(is_stopword(w) or len(w) < 3 for w in part):
                continue
            first_words = list(_WORD.finditer(term.spans[0].text))
            if len(first_words) != len(words):
                continue
            text = term.spans[0].text[
                first_words[first].start() : first_words[first + width - 1].end()
            ]
            spans = [s for s in term.spans if fold(text) in fold(s.text)]
            matches = gazetteer.containing_entities(text, MAX_NARROWED)
            if 0 < matches <= MAX_NARROWED:
                narrowed = Term(fold(text), spans, cues=term.cues, narrow=text)
                narrowed.exact = {}
                narrowed.containing = gazetteer.containing_catalogs(text)
                return narrowed
    return None


def _merge_spans(left: Sequence[Span], right: Sequence[Span]) -> list[Span]:
    merged: dict[tuple[str, int, int], Span] = {}
    for span in [*left, *right]:
        merged.setdefault((span.source, span.start, span.end), span)
    return sorted(merged.values(), key=lambda s: s.position)


def _capitalized_noun(term: Term, gazetteer: Gazetteer, facts: ReportFacts) -> bool:
    """In a language that capitalizes nouns, a single word is a name only when a primary
    catalog holds it exactly (a name shared with English), or a localized catalog holds
    it exactly and the names of at most :data:`MAX_NARROWED` entities contain it (a common
    creature word such as "Wolf" sits inside a hundred names, a proper name inside a few), or it
    is the inflected start of a longer catalog name ("Wilde" of "Wilden Wolpertinger")."""
    if not facts.noun_capitals or len(term.words) != 1 or term.inflected_phrase:
        return False
    if any(span.kind == "quoted" for span in term.spans):
        return False
    if any(ids for name, ids in term.strong_exact.items() if name in facts.primary):
        return False
    if common_word(term.text, facts.language):
        return True  # "Datenbank", "Trash": nouns of the language, whatever the catalog holds
    rare = gazetteer.containing_entities(term.text, MAX_NARROWED) <= MAX_NARROWED
    return not (term.strong_exact and rare and not gazetteer.fully_truncated(term.text))


def not_a_creature(term: Term, facts: ReportFacts) -> bool:
    """A lower-case phrase after an article ("the normal realm", "the beast") from a reporter who
    does not write names in lower case anyway, a quest title
    ("Quest The Heart of Hakkar"), the reporter's name ("Originally reported by: **Mikhail**";
    one word, as every player character's name is), or the text of a link to a quest, item or
    spell page."""
    lower = not facts.casual and all(span.text == span.text.lower() for span in term.spans)
    if lower and any((s.source, s.start) in facts.after_article for s in term.spans):
        return True
    if lower and term.words and term.words[0] in ARTICLES:
        return True
    if all((s.source, s.start) in facts.after_quest for s in term.spans):
        return True
    # a player character's name is one word: "as reported by Lorekeeper Raintotem" names a creature
    if len(term.words) == 1 and all(
        (s.source, s.start) in facts.after_reporter for s in term.spans
    ):
        return True
    return all(
        any(source == s.source and start <= s.start and s.end <= end
            for source, start, end in facts.other_links)
        for s in term.spans
    )  # fmt: skip


#: A lower-case word is a name when it is at least this long and the names of at most
#: :data:`MAX_RARE_ENTITIES` entities contain it ("negatron", "hogger"; not "guard", "chicken").
MIN_RARE_LETTERS = 5
MAX_RARE_ENTITIES = 6


def rare_lowercase_name(term: Term, gazetteer: Gazetteer, language: str = "en") -> bool:
    """A single word that exactly names a creature, that is no common word of English or the
    report's language (:func:`~.common_words.common_word`) or that few names contain, and that the
    report writes in lower case at least once: a name written in lower case, not a common noun
    ("kill negatron"; "[Raid] Rotface ... when attempting rotface"; "l'aura de givre de
    sindragosa", although nine entities' names contain Sindragosa)."""
    if len(term.words) != 1 or not term.strong_exact:
        return False
    if all(span.text != span.text.lower() for span in term.spans):
        return False
    text = term.text
    if len(text) < MIN_RARE_LETTERS or is_stopword(text) or is_game_term(text):
        return False
    if not common_word(text, language):
        return True
    return gazetteer.containing_entities(text, MAX_RARE_ENTITIES) <= MAX_RARE_ENTITIES


def _keep(term: Term, gazetteer: Gazetteer, facts: ReportFacts, language: str) -> Term | None:
    subject_cue = term.cues.any_subject_cue
    if rare_lowercase_name(term, gazetteer, facts.language) and not not_a_creature(term, facts):
        return term
    if boss_short_form(term, gazetteer, facts) and not not_a_creature(term, facts):
        return term
    if common_noun(term, facts) or _place(term, facts) or _capitalized_noun(term, gazetteer, facts):
        return None
    if not_a_creature(term, facts):
        return None
    if not subject_cue and all(span.compound for span in term.spans):
        return None
    if term.exact or (term.inflected and term.containing):
        named = (
            term.proper
            or any(span.words > 1 for span in term.spans)
            or any(span.text != span.text.lower() for span in term.spans)
        )
        return term if (named or subject_cue) else None
    if term.weak:
        return None
    if subject_cue:
        return term if term.containing else (_narrowed(term, gazetteer, language) or term)
    if term.containing and len(term.words) > 1 and term.proper:
        return term
    if short_form(term, gazetteer, facts):
        return term
    return None


#: A single word is read as a character's short form only from this many letters on.
MIN_SHORT_FORM_LETTERS = 4


def short_form(term: Term, gazetteer: Gazetteer, facts: ReportFacts) -> bool:
    """A single capitalized word (in the middle of a sentence, or only at sentence starts of a
    report that never writes it in lower case: "Illidan's glaives do not spawn.") that names no
    creature itself, that is no common word, and that is a word of names most of which are bosses (:meth:`~.gazetteer.Gazetteer.mostly_bosses`):
    "Illidan" for Illidan Stormrage, "Mograine", "Razorgore"; not "Stormwind" or "Dalaran",
    places whose names many ordinary creatures carry."""
    if len(term.words) != 1 or term.exact or not term.containing:
        return False
    capitalized = [s for s in term.spans if s.text != s.text.lower()]
    if not term.proper and not (capitalized and term.key not in facts.lowercase_words):
        return False  # capitalized only at sentence starts and also written in lower case
    text = term.text
    if len(text) < MIN_SHORT_FORM_LETTERS or is_stopword(text) or is_game_term(text):
        return False
    if common_word(text, facts.language) or common_word(text, "en"):
        return False
    return gazetteer.mostly_bosses(text)


#: A boss's short form in any case, or before a possessive compound, from this many letters on.
MIN_BOSS_SHORT_FORM_LETTERS = 5
#: ... and only when the names of at most this many entities contain it: a contains search
#: for it then captures every row that holds it (the default max_candidates).
MAX_BOSS_SHORT_FORM_ENTITIES = 8


def boss_short_form(term: Term, gazetteer: Gazetteer, facts: ReportFacts) -> bool:
    """A single word, however written, that a boss's name holds as a word and that is no common
    word of English or the report's language (:meth:`~.gazetteer.Gazetteer.mostly_bosses`): the
    short form of a boss also at a sentence start of a report that writes it in lower case
    elsewhere ("Razorgore: ... after razorgore dies"), in lower case ("kill vezax") and before a
    possessive compound, where it names the boss whose spell or loot it is ("Sathrovarr's Shadow
    Bolt Volley", "loot from Hydross's Table"). A word that the names of many entities contain
    (:data:`MAX_BOSS_SHORT_FORM_ENTITIES`) says too little, and a word that exactly names a
    creature is read by the exact-name rules."""
    if len(term.words) != 1 or term.exact or not term.containing:
        return False
    text = term.text
    if len(text) < MIN_BOSS_SHORT_FORM_LETTERS or is_stopword(text) or is_game_term(text):
        return False
    if common_word(text, facts.language) or common_word(text, "en"):
        return False
    if gazetteer.containing_entities(text, MAX_BOSS_SHORT_FORM_ENTITIES) > (
        MAX_BOSS_SHORT_FORM_ENTITIES
    ):
        return False
    return gazetteer.mostly_bosses(text)


def not_for_creatures(term: Term, index: NameIndex, catalogs: Sequence[CatalogView]) -> bool:
    """A term that is only an item's or gameobject's name or a quest's title, in some locale, and
    no creature's (the negative gazetteer, :meth:`~.name_index.NameIndex.only_non_creature`:
    "Cruel Barb", "Hearthstone") is no creature search, unless the report links or writes an
    identity for it; when some configured catalog holds other things than creatures (an item
    catalog) it may be that catalog's search, and is kept."""
    if any(c.entity_type.casefold() != INDEX_ENTITY_TYPE for c in catalogs):
        return False
    return term.reference is None and not term.exact and index.only_non_creature(term.text)


def admit_terms(
    terms: Sequence[Term],
    gazetteer: Gazetteer | None,
    facts: ReportFacts,
    language: str = "en",
) -> list[Term]:
    """The terms worth a search (see the module docstring), in order of first mention."""
    if gazetteer is None:
        return [t for t in terms if not t.weak and (t.proper or t.cues.any_subject_cue)]
    admitted: dict[str, Term] = {}
    for term in terms:
        keep = _keep(term, gazetteer, facts, language)
        if keep is None:
            continue
        existing = admitted.get(keep.key)
        if existing is None:
            admitted[keep.key] = keep
        else:
            existing.spans = _merge_spans(existing.spans, keep.spans)
            existing.cues = existing.cues + keep.cues
    return sorted(admitted.values(), key=lambda t: t.first)


def mark_compounds(spans: Sequence[Span], sources: Sequence[SourceText]) -> list[Span]:
    """The spans with :attr:`Span.compound` set where :func:`possessive_compound` holds."""
    texts = {source.alias: source.text for source in sources}
    return [
        span.with_compound(possessive_compound(texts[span.source], span.end, span.start))
        for span in spans
    ]
