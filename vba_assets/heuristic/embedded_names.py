"""A selected name that is only part of a longer name the report writes (pure logic, protocol v6).

A report about a creature the catalog does not hold often writes a longer name that contains a
catalog name: "Golden Cloud Serpent does not spawn" (a later mount beside the 3.3.5 "Cloud
Serpent"), "Echo of Tyrande" (a later boss beside "Tyrande"), "[Boss] Horde Shaman Infantry",
"Chasseur attise-flammes". The search for the inner name finds exactly that catalog row, and an
exact unique match would select it: a selection for a mention with no gold entry, which issue 29
rules out (``eval/later_expansion.jsonl`` measures it).

:func:`embedded_mention` reads the words right around a mention on its own line: a capitalized
word that is no function word (:func:`~.lexicon.is_stopword`: "The", "Le", "NPC", "After" are)
right before it ("Golden |Cloud Serpent|"), or such a word with "of"/"de"/"von" ... ("Echo of
|Tyrande|"), or one right after it ("|Horde Shaman| Infantry"), joined by one space or hyphen.
When the selected candidate's names do not hold that longer phrase, the mention names something
longer than the candidate. :func:`without_embedded_names` turns a selection whose every readable
mention is so embedded into ``ambiguous``; a lower-case mention counts as embedded only in the
same longer phrase ("golden cloud serpent" beside a title "Golden Cloud Serpent"), and a mention
that stands alone anywhere in the report keeps the selection ("Golden Cloud Serpent ... the Cloud
Serpent in Nagrand" still selects). A verb that opens a step ("2. Attack X") is no name word.

What it cannot do: a title the catalog name leaves out ("Warchief Thrall" for "Thrall") reads like
a longer name, so such a mention alone selects nothing; a longer lower-case phrase ("the golden
cloud serpent") is not seen. Linear: each mention reads a bounded window of its line.
"""

import re
from collections.abc import Mapping, Sequence

from vba_assets.domain.catalog.names import normalize_for_match
from vba_assets.domain.resolution.models import MentionCitation, SearchAssessmentOutput
from vba_assets.domain.stage_context import SearchView
from vba_assets.heuristic.candidate_names import candidate_names
from vba_assets.heuristic.lexicon import is_stopword
from vba_assets.heuristic.spelling_words import words_agree

#: Characters read on each side of a mention.
_WINDOW = 48
_UPPER = r"[A-ZÀ-ÖØ-ÞĀ-ŽА-ЯЁ]"
_CAPITALIZED = rf"{_UPPER}[\w'’]*"
_ANY_CASE = r"[^\W\d_][\w'’]*"
_OF = r"(?:[ -]| (?:of|de|du|des|del|von|der) )"


def _before(word: str) -> re.Pattern[str]:
    """ "Golden |X", "Echo of |X", "Chasseur |x": the word right before the mention."""
    return re.compile(rf"(?:^|[^\w'’-])({word}){_OF}$")


def _after(word: str) -> re.Pattern[str]:
    """ "X| Infantry": the word right after the mention."""
    return re.compile(rf"^[ -]({word})(?![\w'’])")


_PATTERNS = {
    False: (_before(_CAPITALIZED), _after(_CAPITALIZED)),
    True: (_before(_ANY_CASE), _after(_ANY_CASE)),
}
#: Verbs a reproduction step or a request opens with ("2. Attack X", "Tame X"): capitalized at
#: a line's start, they are no part of a name.
_STEP_VERBS = frozenset(
    [
        "attack",
        "kill",
        "fight",
        "pull",
        "tank",
        "kite",
        "tame",
        "loot",
        "skin",
        "talk",
        "speak",
        "ask",
        "find",
        "follow",
        "escort",
        "summon",
        "target",
        "click",
        "use",
        "visit",
        "help",
        "save",
        "free",
        "rescue",
        "defeat",
        "slay",
        "engage",
        "interact",
        "go",
        "run",
        "fly",
        "angreifen",
        "töte",
        "töten",
        "greife",
        "sprich",
        "rede",
        "attaque",
        "tue",
        "parle",
        "ataca",
        "mata",
        "habla",
    ]
)


def _name_word(word: str) -> bool:
    return not is_stopword(word) and not word.isupper() and word.casefold() not in _STEP_VERBS


def embedded_mention(text: str, mention: MentionCitation, any_case: bool = False) -> str | None:
    """The longer phrase ``mention`` is part of in ``text``: the mention with the name-like
    capitalized word (any word with ``any_case``) right before or after it on its line, or
    None."""
    start, end = mention.start, mention.end
    line_start = text.rfind("\n", max(0, start - _WINDOW), start) + 1
    line_end = text.find("\n", end, end + _WINDOW)
    before = text[max(line_start, start - _WINDOW) : start]
    after = text[end : line_end if line_end >= 0 else end + _WINDOW]
    before_word, after_word = _PATTERNS[any_case]
    found = before_word.search(before)
    if found is not None and _name_word(found.group(1)):
        return text[start - len(before) + found.start(1) : end]
    found = after_word.match(after)
    if found is not None and _name_word(found.group(1)):
        return text[start : end + found.end(1)]
    return None


def _longer_quote(mention: MentionCitation, term: str) -> str | None:
    """The mention itself when it cites more than the term: the term at word boundaries inside
    it, beside a capitalized name word ("Golden Cloud Serpent" cited for "Cloud Serpent"; not the
    plural "Cloud Serpents")."""
    quote = mention.quote
    at = quote.casefold().find(term.casefold())
    if at < 0 or len(term) == len(quote):
        return None
    head, tail = quote[:at], quote[at + len(term) :]
    if (head and head[-1].isalnum()) or (tail and tail[0].isalnum()):
        return None
    words = re.findall(rf"{_CAPITALIZED}", f"{head} {tail}")
    return quote if any(_name_word(word) for word in words) else None


def _held(phrase: str, names: Sequence[str]) -> bool:
    """Whether a name holds the phrase, or is what it misspells or inflects ("Corporate
    Keeshan", "Sons of Flame": :func:`~.spelling_words.words_agree`)."""
    key = normalize_for_match(phrase)
    return any(key in normalize_for_match(name) for name in names) or words_agree([phrase], names)


def all_embedded(
    mentions: Sequence[MentionCitation],
    sources: Mapping[str, str],
    names: Sequence[str],
    term: str,
) -> bool:
    """Whether every readable mention of ``term`` is part of a longer phrase none of ``names``
    holds (and there is at least one readable mention)."""
    readable = [m for m in mentions if m.source in sources]
    capitalized = {
        m: _longer_quote(m, term) or embedded_mention(sources[m.source], m) for m in readable
    }
    longer = {normalize_for_match(p) for p in capitalized.values() if p is not None}
    if not readable or not longer:
        return False
    for mention in readable:
        phrase = capitalized[mention]
        if phrase is None:  # "golden cloud serpent" where the title writes "Golden Cloud Serpent"
            phrase = embedded_mention(sources[mention.source], mention, any_case=True)
            if phrase is None or normalize_for_match(phrase) not in longer:
                return False
        if _held(phrase, names):
            return False
    return True


def without_embedded_names(
    search: SearchView, verdict: SearchAssessmentOutput, sources: Mapping[str, str]
) -> SearchAssessmentOutput:
    """``verdict``, or ``ambiguous`` when it selects a name-search candidate whose every readable
    mention is part of a longer name the candidate does not carry; not when a link or a written
    identity of that very candidate grounds it (a ``link`` tie-break): the report then says
    which creature it means ("Rift Keeper Immune" under "ID of the NPC: 21104")."""
    if verdict.status != "selected" or search.reference is not None:
        return verdict
    if verdict.tiebreak is not None and verdict.tiebreak.fact == "link":
        return verdict
    chosen = next((c for c in search.candidates if c.candidate_id == verdict.candidate_id), None)
    if chosen is None and search.exact is not None:
        chosen = next(
            (c for c in search.exact.candidates if c.candidate_id == verdict.candidate_id), None
        )
    if chosen is None or not all_embedded(
        search.mentions, sources, candidate_names(chosen), search.term
    ):
        return verdict
    mention = next(m for m in search.mentions if m.source in sources)
    phrase = (
        _longer_quote(mention, search.term)
        or embedded_mention(sources[mention.source], mention)
        or mention.quote
    )
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="ambiguous",
        competing_candidate_ids=[chosen.candidate_id],
        rationale=f"heuristic: every mention of {search.term!r} is part of a longer name the "
        f"report writes (e.g. {phrase!r}) that {chosen.candidate_id} ({chosen.name!r}) does not "
        "carry: the report may name another creature, so nothing is selected",
    )
