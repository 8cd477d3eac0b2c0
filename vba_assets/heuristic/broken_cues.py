"""The issue-29 role cues of one mention: the creature itself fails, or works (ARCHITECTURE 15).

:mod:`.roles` reads the older cues around a mention and calls these for the readings of "roles
follow what is broken"; the phrases are the word tables of :mod:`.role_words`, compiled here once.
Every function reads a bounded window around one mention (at most :data:`WINDOW` characters, and
a link tail of bounded length), so a pass over a report's mentions stays linear in its size.

* :func:`fails_before` / :func:`fails_after`: the creature itself fails ("can't be turned in at
  the end-npc X", "X has no quest marker", "(X) is DESPAWNING", "X nimmt die Quest nicht an");
  after the name, a short parenthesis (an id) and closing brackets or quotes are skipped;
* :func:`past_link`: the text after a markdown link's tail (``[X <Sub>](url) doesn't``), which
  the window after the link text does not reach;
* :func:`works_or_example`: the creature works ("turn it in to X just fine", "X was fine") or is
  an example ("e.g. the paladin trainer X").

* :func:`fails_through_pronoun`: a pronoun after the name, in its sentence, says it fails ("X ...
  he gets bugged out", "while X is fighting you cannot click him");
* :func:`should_after`: what it should do ("X should start the encounter");
* :func:`escorted`: it is escorted ("When escorting X for <quest>", "saving X");
* :func:`fails_around`: a failure said around it in a verb-last language ("Quest kann nicht bei X
  abgegeben werden"), also past a parenthesis of a bare link (at most :data:`_LINK_CHARS`).

What it cannot do: it reads phrases next to the name or a pronoun, not sentences; a failure
said in another sentence (unless it opens with the pronoun) or behind another name is not seen,
and a pronoun is not checked for number or gender.
"""

import re
from collections.abc import Sequence

from vba_assets.heuristic.lexicon import is_stopword
from vba_assets.heuristic.prose import Prose
from vba_assets.heuristic.role_phrases import (
    ESCORTED_AFTER,
    ESCORTED_BEFORE,
    GROUP_AFTER,
    POSSESSIVES,
    QUEST_PARTS,
    TURN_IN_AFTER,
    TURN_IN_BEFORE,
)
from vba_assets.heuristic.role_words import (
    CLAUSE_ENDS,
    COMPARED_AFTER,
    CREATURE_NOUNS,
    EXAMPLE_BEFORE,
    IT_FAILS,
    MISBEHAVES_AFTER,
    MISBEHAVES_BEFORE,
    OBJECT_FAILS,
    OTHER_SUBJECTS,
    SHOULD_AFTER,
    SUBJECT_PRONOUNS,
    WORKS_AFTER,
    WORKS_BEFORE,
    alternation,
)

#: The window read after a link tail and before a mention (as :mod:`.roles` reads).
WINDOW = 60
_BOUNDARY = re.compile(r"[.!?;]\s|[.!?;]$")
#: A short parenthesis (an id), closing brackets or quotes, and a plural's apostrophe ("X's were
#: not getting ...", "X(5981) ne despawn pas").
_NOISE = re.compile(r"^(?:'s|s')?[\s)\]\"*»”]*(?:\([^()\n]{0,30}\)[\s)\]\"*»”]*)?")
#: The tail of a markdown link after its text, as written (``](url)``, a subname ``<Innkeeper>``
#: first) or blanked out by spaces in the reading text (:attr:`~.source_words.SourceText.prose`).
_LINK_TAIL = re.compile(r"(?:[ \t]*<[^<>\n]{0,40}>)?(?:\]\([^()\s]{0,300}\)|\]?[ \t]{8,1000})")
_FAILS_AFTER = re.compile(rf"^\s*{alternation(MISBEHAVES_AFTER)}")
_FAILS_BEFORE = re.compile(rf"(?:^|\W){alternation(MISBEHAVES_BEFORE)}$")
_CLAUSE_END = re.compile(rf"[,;:.!?]|\b{alternation(CLAUSE_ENDS)}\b")
_WORKS = re.compile(
    rf"^\W*(?:(?!{alternation(OTHER_SUBJECTS)}\b)[^\W\d_]+\W+){{0,4}}?{alternation(WORKS_AFTER)}"
)
_COMPARED = re.compile(rf"^\s*{alternation(COMPARED_AFTER)}")
#: A subject pronoun (then read with the after-name phrases), "it" with what only a creature
#: does, or an object pronoun of a failed action; after a word boundary.
_PRONOUN = re.compile(rf"(?<![\w'])(?:{alternation(SUBJECT_PRONOUNS)})(?=\s)")
#: A possessive pronoun and one or two words of the creature's own thing ("his teleporter").
_POSSESSED = tuple(
    re.compile(
        rf"(?<![\w']){alternation(POSSESSIVES)}\s+(?!{alternation(QUEST_PARTS)}\b)"
        rf"[^\W\d_]+{extra}(?=\s)"
    )
    for extra in ("", r"\s+[^\W\d_]+")
)
#: A lower-case noun right after the name (or its possessive) that X qualifies ("Thaddous
#: teleporter didnt spawn", "X's adds never despawn"), not a quest word, a group word ("X trash")
#: or a zone word ("X camp").
_QUALIFIED = re.compile(
    rf"(?:'s|’s|s')?[ \t]+(?!(?:{alternation(QUEST_PARTS)}|{alternation(GROUP_AFTER)})(?!\w))"
    r"([a-zß-ÿа-яё][\w'’-]*)(?=\s)"
)
_PRONOUN_FAILS = re.compile(
    rf"(?<![\w']){alternation(IT_FAILS)}|(?<![\w']){alternation(OBJECT_FAILS)}"
)
#: The pronoun window ends before another name: a capitalized word right after a lower-case
#: word ("... and Marshal Dughan"; in German this also ends it at a noun, which only loses cues).
_NEXT_NAME = re.compile(r"(?<=[^\W\d_])[ \t]+[A-ZÀ-ÞА-ЯЁ][a-zß-ÿа-яё]")
#: ... and before a creature's common noun ("the quest giver", "the npc", "le pnj").
_CREATURE_NOUN = re.compile(rf"(?<![\w]){alternation(CREATURE_NOUNS)}(?!\w)", re.IGNORECASE)
#: How far after a name a pronoun is read.
PRONOUN_WINDOW = 120
_SHOULD = re.compile(rf"^\s*{alternation(SHOULD_AFTER)}")
_WORKS_BEFORE = re.compile(rf"(?:^|\W){alternation(WORKS_BEFORE)}$")
#: A next sentence that opens with a subject pronoun continues about the name ("Dashel
#: Stonefist is there. He does not start the fight.").
_OPENS_WITH_PRONOUN = re.compile(rf"\s*(?:{alternation(SUBJECT_PRONOUNS)})\s", re.IGNORECASE)
_ESCORTED_BEFORE = re.compile(rf"(?:^|\W){alternation(ESCORTED_BEFORE)}$")
_ESCORTED_AFTER = re.compile(rf"^\s*{alternation(ESCORTED_AFTER)}")
_TURN_IN_BEFORE = re.compile(rf"(?:^|\W){alternation(TURN_IN_BEFORE)}$")
#: After the name: a short parenthesis (an id, a bare link), then the verb of the turn-in.
_LINK_CHARS = 200
_TURN_IN_AFTER = re.compile(
    rf"^[\s)\]\"*»”]*(?:\([^()\n]{{0,{_LINK_CHARS}}}\)\s*)?{alternation(TURN_IN_AFTER)}"
)
_EXAMPLE_BEFORE = re.compile(
    rf"(?:^|\W){alternation(EXAMPLE_BEFORE)}[:,]?\s+(?:the\s+)?(?:[^\W\d_]+\s+){{0,3}}$"
)


def fails_before(before: str) -> bool:
    """True when the lower-cased text before a name says it fails ("unable to close quest with")."""
    return bool(_FAILS_BEFORE.search(before))


def fails_after(after: str, affected_after: Sequence[re.Pattern[str]]) -> bool:
    """True when the lower-cased text after a name says it fails: one of ``affected_after`` (the
    older cues of :mod:`.roles`) or of :data:`~.role_words.MISBEHAVES_AFTER`, also past a short
    parenthesis and closing brackets or quotes ("(X) is missing", "X(5981)ne despawn pas")."""
    if any(p.search(after) for p in affected_after):
        return True
    noise = _NOISE.match(after)
    plain = after[noise.end() :] if noise is not None else after
    return any(p.search(plain) for p in (*affected_after, _FAILS_AFTER))


def past_link(prose: Prose, end: int) -> str:
    """The text after a markdown link whose text ends at ``end`` (``[X <Sub>](url) doesn't``:
    " doesn't"), lower-cased and cut at the sentence end; "" when no link tail follows."""
    tail = _LINK_TAIL.match(prose.text, end)
    if tail is None:
        return ""
    after = prose.text[tail.end() : min(prose.line_end(end), tail.end() + WINDOW)]
    boundary = _BOUNDARY.search(after)
    return (after[: boundary.start() + 1] if boundary else after).replace("’", "'").casefold()


def fails_through_pronoun(
    prose: Prose, end: int, affected_after: Sequence[re.Pattern[str]]
) -> bool:
    """True when, after a name and in its sentence, a pronoun says it fails before another name
    comes: "If you DPS X too fast he gets bugged out", "while X is fighting you cannot click him",
    "when you click on him nothing", "(Guardians) are getting killed, they dont do any damage";
    or a possessive pronoun says its own thing fails: "we killed X and his teleporter did not
    spawn" (one or two words after the pronoun, not a quest word).

    The window is at most :data:`PRONOUN_WINDOW` characters, ends with the sentence ("Only
    Mottled Boars wander by. Is he despawned?" is about another), at a creature's common noun
    ("... went back to the quest giver but he ...") and at the next capitalized word after a
    lower-case one (another name may be what the pronoun stands for); each pronoun in
    it is read with :func:`fails_after`, so the cost per mention is bounded.
    """
    stop = min(prose.line_end(end), end + PRONOUN_WINDOW)
    raw = prose.text[end:stop]
    cut = _NEXT_NAME.search(raw)
    noun = _CREATURE_NOUN.search(raw)
    boundary = _BOUNDARY.search(raw)
    if boundary is not None and _OPENS_WITH_PRONOUN.match(raw, boundary.end() - 1):
        boundary = _BOUNDARY.search(raw, boundary.end())
    ends = [m.start() for m in (cut, noun, boundary) if m is not None]
    window = raw[: min(ends)] if ends else raw
    window = window.replace("’", "'").casefold()
    if _PRONOUN_FAILS.search(window):
        return True
    return any(
        fails_after(window[match.end() :], affected_after) for match in _PRONOUN.finditer(window)
    ) or any(
        fails_after(window[match.end() :], affected_after)
        for possessed in _POSSESSED
        for match in possessed.finditer(window)
    )


def should_after(after: str) -> bool:
    """True when the lower-cased text after a name says what it should do ("X should despawn"),
    also past a short parenthesis and closing brackets or quotes."""
    noise = _NOISE.match(after)
    return bool(_SHOULD.search(after[noise.end() :] if noise is not None else after))


def works_or_example(prose: Prose, start: int, after: str) -> bool:
    """True when the clause after a name (lower-cased ``after``, up to a comma or "but") says it
    works ("X was fine") or is the model of a comparison ("the same chance ... that the X do."), or
    the text before it on its line gives it as an example ("e.g. the trainer X": read without the
    sentence cut, whose period "e.g." would end)."""
    end = _CLAUSE_END.search(after)
    if _WORKS.search(after[: end.start()] if end is not None else after) or _COMPARED.search(after):
        return True
    window = prose.text[max(prose.line_start(start), start - WINDOW) : start]
    window = window.replace("’", "'").casefold()
    return bool(_EXAMPLE_BEFORE.search(window) or _WORKS_BEFORE.search(window))


def escorted(before: str, after: str) -> bool:
    """True when the lower-cased text around a name says it is escorted ("When escorting X",
    "saving X", "wenn man X eskortiert")."""
    return bool(_ESCORTED_BEFORE.search(before) or _ESCORTED_AFTER.search(after))


def fails_around(prose: Prose, end: int, before: str) -> bool:
    """True when a negation and a preposition before the name and the turn-in verb after it say
    it fails as an ender or giver ("Quest kann nicht bei X (link) abgegeben werden"); reads at
    most ``WINDOW + _LINK_CHARS`` characters after the name, on its line."""
    if not _TURN_IN_BEFORE.search(before):
        return False
    after = prose.text[end : min(prose.line_end(end), end + WINDOW + _LINK_CHARS)]
    return bool(_TURN_IN_AFTER.search(after.replace("’", "'").casefold()))


def qualified_fails(
    prose: Prose, end: int, affected_after: Sequence[re.Pattern[str]], zone_words: frozenset[str]
) -> bool:
    """True when the name qualifies a lower-case noun whose failure follows: "Thaddous teleporter
    didnt spawn", "Illidan fight is bugged", "X's adds never despawn" (X's own part; not "X
    quest", "X trash", "X camp")."""
    match = _QUALIFIED.match(prose.text, end, min(prose.line_end(end), end + WINDOW))
    if match is None or match.group(1).casefold() in zone_words or is_stopword(match.group(1)):
        return False
    after = prose.text[match.end() : min(prose.line_end(end), match.end() + WINDOW)]
    boundary = _BOUNDARY.search(after)
    after = after[: boundary.start() + 1] if boundary else after
    return fails_after(after.replace("’", "'").casefold(), affected_after)
