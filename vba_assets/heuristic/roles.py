"""Contextual role cues around a mention: affected subject, quest giver, location.

Each mention is read with a short window of its own line before and after it (cut at sentence
punctuation). The cues are phrase patterns, English first, with the German equivalents of the
common ones and a few French, Spanish and Russian ones:

* **affected** (``affected_subject``): the object of a negated perception or action verb ("can't
  find/see/catch/kill/loot ... X", "no X", "kein einziger X", "missing X"), or X followed by a
  negation or a failure verb ("X doesn't spawn", "X won't take my quest", "X evades", "X does
  nothing", "X nicht auffindbar"), also across a place phrase ("X in Naxxramas doesn't ...");
  a name inside a place phrase takes no such cue from the words after it;
* **quest giver** (``quest_giver``): "X's quest", "X quest", "X quest giver", "for X's",
  "Return to X", "Quest von X", "Quest bei X"; what a giver does, right after X, also across a
  place phrase ("X gave me", "X sent me to", "X wants me to", "X says I need to", "X is waiting
  for", "X hat mich ... geschickt", "X m'a donné", "X me dio", "X дал", "X просит"); "talk to X"
  and "from X" only in a sentence about a quest, and not when X qualifies the next word ("the
  quest from the X chain") or names the place of a zone word ("Wald von X"). A name inside a
  place phrase takes no giver cue from the words after it, and a plural mention none at all
  (:mod:`.terms`). "X won't take my quest" stays an affected cue: the NPC that fails is what the
  report is about;
* **location** (``location_context``): a locative preposition before X ("in", "at", "near",
  "im"), a zone word with "of"/"de"/"von" before X ("the camp of X"), or X in a leading place
  header ("Dun Garok, Hillsbrad Foothills. ..."); it only becomes the role when X also looks
  zone-like (see :func:`zone_like`).

Issue 29 ("roles follow what is broken") adds four readings, counted apart so that they decide
the role only and never admit or rank a term (:attr:`RoleCues.any_subject_cue` counts the three
above): ``broken`` (the creature itself fails, also a quest giver: "X has no quest marker",
"can't be turned in at the end-npc X", "X nimmt die Quest nicht an", "Quest kann nicht bei X
abgegeben werden", "X spawn is green", "bugged Boss X", "works on Y but not on X"; or a pronoun
in its sentence does: "X ... he gets bugged out", "you cannot click him", "his teleporter did
not spawn"; or a noun it qualifies: "X's adds never despawn", :mod:`.broken_cues`), ``gives`` (what a giver does in Portuguese, Polish, Chinese),
``contrast`` ("X was fine", "e.g. X", "works on X but not on Y", "the same ... that the X do."),
``should`` ("X should start the encounter": weaker than a failure) and ``escorted`` ("When
escorting X for <quest>": the escort it leads is what breaks, as weak); their phrases are the
word tables of :mod:`.role_words`. These readings also look past a plural ending that the span
leaves out ("the Death Talon Overseer|s do.").

These cues are what the sentence says about one mention; the role a search finally gets, from the
cues summed over a term's mentions, the quest relations and the title, is :mod:`.role_reader`.

What it cannot do: it does not parse sentences. A cue in another clause of the same line can be
attributed to the wrong name; a pronoun is read only in the mention's sentence (or a next one
that opens with it) and before another capitalized name, without number or gender agreement, so
"X ... he" may stand for an unnamed NPC; irony, questions and hypotheticals read like statements.
"""

import re
from dataclasses import dataclass

from vba_assets.heuristic.broken_cues import (
    escorted,
    fails_after,
    fails_around,
    fails_before,
    fails_through_pronoun,
    past_link,
    qualified_fails,
    should_after,
    works_or_example,
)
from vba_assets.heuristic.lexicon import PARTICLES, ZONE_WORDS, is_stopword
from vba_assets.heuristic.prose import Prose
from vba_assets.heuristic.role_words import GIVER_ACTS_AFTER, PLACE_PREPOSITIONS, alternation

_WINDOW = 60
_BOUNDARY = re.compile(r"[.!?;]\s|[.!?;]$")
_ARTICLES = (
    r"(?:(?:a|an|the|any|single|one|some|those|these|that|this|even|more|of|den|die|das|"
    r"der|einen|eine|einzigen|einzige|einziger|einziges|le|la|les|un|une|des|du)\s+)*"
)
_NEGATION = (
    r"(?:can'?t|cannot|can not|couldn'?t|could not|unable to|won'?t|wont|doesn'?t|does not|"
    r"don'?t|do not|didn'?t|did not|never|impossible to|no way to)"
)
_ACTION = (
    r"(?:find|see|spot|catch|kill|loot|target|attack|tame|net|zap|hit|stun|interact with|talk to|"
    r"speak to|locate|summon|fight|damage|engage|get|use|reach|click|select|skin|track)"
)
_AFFECTED_BEFORE = [
    re.compile(rf"{_NEGATION}\s+(?:even\s+)?{_ACTION}\s+{_ARTICLES}$"),
    re.compile(rf"\b(?:no|not a single|not one|not any|zero|without)\s+{_ARTICLES}$"),
    re.compile(
        rf"\b(?:missing|bugged|broken|where is|where are|where'?s|looking for|searching for|"
        rf"search for)\s+{_ARTICLES}$"
    ),
    re.compile(rf"\b(?:kein|keine|keinen|keinem|keiner|keines)\s+{_ARTICLES}$"),
    re.compile(rf"\b(?:finde|sehe|sieht|fange|töte|treffe)\s+(?:\w+\s+)?nicht\s+{_ARTICLES}$"),
    re.compile(rf"\b(?:wo (?:ist|sind)|fehlt|fehlen)\s+{_ARTICLES}$"),
    re.compile(rf"\b(?:aucun|aucune|pas de|pas d'|impossible de trouver)\s+{_ARTICLES}$"),
    re.compile(r"(?:не могу найти|не вижу|нет)\s+$"),
]
_AFFECTED_AFTER = [
    re.compile(
        r"^\s*(?:is|are|was|were|seems?|appears?)?\s*(?:still\s+)?(?:missing|not spawning|"
        r"not there|nowhere|gone|bugged|broken|invisible|not visible|untargetable|immune|stuck|"
        r"evading|not attackable|unkillable)\b"
    ),
    re.compile(
        r"^\s*(?:doesn'?t|does not|don'?t|do not|won'?t|will not|wont|isn'?t|is not|aren'?t|"
        r"are not|wasn'?t|weren'?t|never|can'?t|cannot|didn'?t|did not|has no|have no|had no)\b"
    ),
    re.compile(
        r"^\s*(?:evades|evaded|resets|reset|despawns|despawned|does nothing|did nothing|"
        r"bugs out|bugged out|keeps (?:evading|resetting|despawning|dying|running)|just walks|"
        r"runs away|disappears|disappeared)\b"
    ),
    re.compile(
        r"^\s*(?:\w+\s+)?(?:nicht|fehlt|fehlen|spawnt|spawnen|erscheint|erscheinen|verbuggt|"
        r"buggt|introuvable|absent|absente|ne )"
    ),
]
#: The ending of a plural right after a span that stops at the singular ("Overseer|s do.").
_PLURAL_TAIL = re.compile(r"^e?s(?=[\s.,;:!?)\]]|$)")
_NOT_FUNCTION = (
    r"(?!(?:for|in|on|at|from|of|to|and|or|the|my|a|an|this|that|with|during|after|before|"
    r"while)\b)"
)
_GIVER_AFTER = [
    re.compile(rf"^(?:'s|s')\s+(?:{_NOT_FUNCTION}[\w-]+\s+){{0,2}}quest(?:s|line)?\b"),
    re.compile(r"^\s*[(,-]?\s*(?:the\s+)?quest\s*-?giver\b"),
    re.compile(
        r"^\s*(?:gave|gives|give|offered|offers|hands out|handed)\s+(?:me\s+)?"
        r"(?:the|a|this|that|his|her)\s+quest\b"
    ),
    re.compile(
        r"^\s*(?:hat|gab|gibt)\s+(?:mir\s+|uns\s+)?(?:die|eine|den|seine)\s+"
        r"(?:quest|aufgabe)\b"
    ),
    re.compile(r"^\s*(?:questgeber|auftraggeber)\b"),
]
#: "X gave me ...", "X sent me ...", "X m'a donné ...": X hands out the quest (any language).
#: What a quest giver does, read right after X: "X gave me ...", "X sent me to ...", "X m'a
#: donné ...", "X says I need to kill ...". A short lower-case place phrase may come between
#: ("X on the old bridge wants me to ...").
_GIVER_ACT_PHRASES = (
    r"(?:sent|sends|asked|asks|told|tells|wants|wanted|needs|needed)\s+(?:me|us)\s+to\b",
    r"(?:says|said|told me|tells me)\s+(?:that\s+)?(?:i|we)\s+(?:need|have|must|should)\s+to\b",
    r"(?:is|was|keeps|kept)?\s*(?:still\s+)?(?:waiting|waits)\s+for\b",
    r"(?:hat|hatte)\s+(?:mich|uns)\b[^.!?]{0,50}\b(?:geschickt|losgeschickt|beauftragt|gebeten)\b",
    r"(?:schickte|schickt|beauftragte|bat)\s+(?:mich|uns)\b",
    r"(?:wartet|wartete)\s+(?:noch\s+|immer noch\s+)?auf\b",
    r"m'a\s+(?:donné|demandé|envoyé|confié|chargé)\b",
    r"(?:attend|attendait)\b",
    r"me\s+(?:dio|dió|pidió|envió|mandó|encargó|ha dado|ha pedido)\b",
    r"(?:дал|дала|даёт|дает|выдал|выдала|просит|попросил|попросила|послал|послала|отправил|"
    r"отправила|ждёт|ждет)\b",
)
_LOWER_PLACE = (
    r"(?:,\s*)?(?:in|at|on|near|by|inside|behind|next to|over|under|im|am|bei|dans|à|en|в|у)\s+"
    r"(?:[a-zäöüßàâçéèêëîïôûùüÿñáíóúа-яё'’-]+\s+){1,4}?"
)
_GIVER_ACTS = [re.compile(rf"^\s*(?:{_LOWER_PLACE})?{phrase}") for phrase in _GIVER_ACT_PHRASES]
#: Issue 29: what a giver does in the languages the phrases above miss ("O X em Goldshire
#: continua esperando", "X dał mi zadanie"); read for the role only (:attr:`RoleCues.gives`).
_GIVES = re.compile(
    rf"^\s*(?:(?:{_LOWER_PLACE})|(?:(?:{'|'.join(PLACE_PREPOSITIONS)})\s+"
    rf"(?:[^\W\d_]+\s+){{1,3}}?))?{alternation(GIVER_ACTS_AFTER)}"
)
#: "X gave me The Missing Diplomat" / "X gave me the quest", read in the original case: what X
#: gave is a quest (a capitalized title or a quest word), not "no loot" or "a beating".
_GAVE = re.compile(
    rf"^\s*(?:{_LOWER_PLACE})?(?:gave|gives|give|handed|hands)\s+(?:me|us)\s+"
    r"(?:(?:the|a|an|his|her|this|that|my)\s+)?(?:(?:quest|task|bounty|mission|job|errand)s?\b|"
    r"[A-ZÀ-ÞА-Я])"
)
#: Before X, always a giver: "Return to X", "turn in to X", "quest giver X".
_GIVER_BEFORE = [
    re.compile(
        r"(?<!'t )(?<!not )\b(?:return to|returned to|go back to|went back to|report to|"
        r"reported to|turn in to|turned in to|turn it in to|hand in to|handed in to|quest from|"
        r"quest giver|questgiver|quest von|quest bei|aufgabe von|questgeber|quête de|donneur de "
        r"quête|misión de|задание у|задание от)\s+(?:the\s+)?$"
    ),
]
#: Before X, a giver only in a sentence about a quest: "talked to X" (an innkeeper is talked to
#: about a hearthstone, not a quest).
_TALK_BEFORE = re.compile(
    r"(?<!'t )(?<!not )\b(?:talk to|talked to|speak to|speak with|spoke to|spoke with|"
    r"sprach mit|rede mit|parlé à)\s+(?:the\s+)?$"
)
_FOR_POSSESSIVE = re.compile(r"\bfor\s+$")
#: "from X" in a quest sentence; not "the forest of X", "Wald von X" (a place) and not
#: "from the X chain" (X qualifies the next noun).
#: A class noun may come between ("picked up from NPC - <link>", issue 29 item 1).
_FROM = re.compile(
    r"\b(?:(\w+)\s+)?(?:from|von|bei)\s+(?:the\s+)?"
    r"(?:(?:npc|quest\s*-?giver|questgeber|pnj|нпс)\s*[-:–]?\s*)?$"
)
_ATTRIBUTIVE = re.compile(r"^[ \t]+([a-zäöüß][\w'-]*)")
_QUEST_SENTENCE = re.compile(
    r"\b(?:quests?|picked up|pick up|got|took|take|accepted|accept|doing|questline|daily|"
    r"quête|aufgabe|angenommen|bekommen)\b"
)
_LOOT_SENTENCE = re.compile(r"\b(?:loot|looted|drop|drops|dropped|killed|kill)\b")
_LOCATIVE = re.compile(
    r"\b(?:in|at|near|around|inside|outside|behind|into|towards?|im|am|nahe|bei der|dans|à|"
    r"près de)\s+(?:the\s+|der\s+|dem\s+|den\s+)?$"
)
#: "the camp of X", "Wald von X", "camp de X": X names the place of a zone word.
_PLACE_OF = re.compile(
    rf"\b(?:{'|'.join(sorted(ZONE_WORDS))})\s+(?:of|de|du|des|del|von|d')\s*(?:the\s+|la\s+)?$"
)


@dataclass(frozen=True)
class RoleCues:
    """Cue counts of one term over its mentions (and those of shorter terms folded into it)."""

    affected: int = 0
    quest_giver: int = 0
    location: int = 0
    #: Issue 29 readings (:mod:`.role_words`), for the role only: they never admit or rank a
    #: term (:attr:`any_subject_cue` counts the three above), so the searches stay as they were.
    broken: int = 0  # mentions that say the creature itself fails, beyond ``affected``
    gives: int = 0  # mentions that say it hands out a quest, beyond ``quest_giver``
    contrast: int = 0  # mentions that say it works, or give it as an example
    should: int = 0  # mentions that say what it should do (a weaker failure)
    escorted: int = 0  # mentions that say it is escorted (its escort is what breaks)

    def __add__(self, other: "RoleCues") -> "RoleCues":
        return RoleCues(
            self.affected + other.affected,
            self.quest_giver + other.quest_giver,
            self.location + other.location,
            self.broken + other.broken,
            self.gives + other.gives,
            self.contrast + other.contrast,
            self.should + other.should,
            self.escorted + other.escorted,
        )

    def without_giver(self) -> "RoleCues":
        """These cues without the quest-giver ones (a plural mention is never a giver)."""
        return RoleCues(
            self.affected,
            0,
            self.location,
            self.broken,
            0,
            self.contrast,
            self.should,
            self.escorted,
        )

    @property
    def fails(self) -> bool:
        """True when some mention says the creature itself misbehaves or is missing."""
        return self.affected > 0 or self.broken > 0

    @property
    def hands_out(self) -> bool:
        """True when some mention names it as the giver of a quest."""
        return self.quest_giver > 0 or self.gives > 0

    @property
    def any_subject_cue(self) -> bool:
        """True with an affected or quest-giver cue (the cues that justify a weak span)."""
        return self.affected > 0 or self.quest_giver > 0


def _context(prose: Prose, start: int, end: int) -> tuple[str, str, str]:
    """(before, after, surroundings) on the mention's line, lower-cased.

    ``before`` and ``after`` are cut at sentence ends; the surroundings are not (a quest title
    ending in "!" often sits between the verb and "from X").
    """
    text = prose.text
    line_start = prose.line_start(start)
    line_end = prose.line_end(end)
    surroundings = text[max(line_start, start - 2 * _WINDOW) : min(line_end, end + _WINDOW)]
    before = text[max(line_start, start - _WINDOW) : start]
    boundaries = list(_BOUNDARY.finditer(before))
    if boundaries:
        before = before[boundaries[-1].end() :]
    after = text[end : min(line_end, end + _WINDOW)]
    boundary = _BOUNDARY.search(after)
    if boundary:
        after = after[: boundary.start() + 1]
    normalized = [part.replace("’", "'").casefold() for part in (before, after, surroundings)]
    return normalized[0], normalized[1], normalized[2]


def _skip_place(place_end: int | None, end: int, after: str) -> str:
    """``after`` without a leading place phrase ("X in Naxxramas doesn't ..." -> " doesn't ...");
    ``place_end`` is where that phrase ends (:meth:`~.prose.Prose.place_end`)."""
    return after[place_end - end :] if place_end is not None else after


def _attributive(after: str) -> bool:
    """True when X is followed by a lower-case content word: "the Lakeshire chain"."""
    match = _ATTRIBUTIVE.match(after)
    return match is not None and not is_stopword(match.group(1))


def _from_giver(before: str, sentence: str) -> bool:
    """A "from X" where X hands out the quest the sentence is about (see :data:`_FROM`)."""
    match = _FROM.search(before)
    if match is None or not _QUEST_SENTENCE.search(sentence) or _LOOT_SENTENCE.search(sentence):
        return False
    return match.group(1) is None or match.group(1) not in ZONE_WORDS


def _giver_before(before: str, sentence: str) -> bool:
    return (
        any(p.search(before) for p in _GIVER_BEFORE)
        or (bool(_TALK_BEFORE.search(before)) and bool(_QUEST_SENTENCE.search(sentence)))
        or _from_giver(before, sentence)
    )


def mention_cues(prose: Prose, start: int, end: int) -> RoleCues:
    """The role cues of one mention ``prose.text[start:end]``.

    A name inside a place phrase ("in Naxxramas") takes no affected cue from the words after it:
    "X in Naxxramas doesn't follow" is about X, which gets the cue across the place phrase; the
    quest-giver phrases after X are read across it too ("X in Lakeshire is waiting for ..."). A
    name that makes up a whole place header ("Dun Garok, Hillsbrad Foothills. ...") gets a
    location cue.
    """
    before, after, sentence = _context(prose, start, end)
    in_place = bool(_LOCATIVE.search(before) or _PLACE_OF.search(before)) or place_header(
        prose, start, end
    )
    place_end = prose.place_end(end)
    beyond = _skip_place(place_end, end, after)
    affected = any(p.search(before) for p in _AFFECTED_BEFORE) or (
        not in_place and any(p.search(beyond) for p in _AFFECTED_AFTER)
    )
    raw_after = prose.text[end : min(prose.line_end(end), end + _WINDOW)]
    gave = bool(_GAVE.search(_skip_place(place_end, end, raw_after)))
    giver = (
        (not in_place and (gave or any(p.search(beyond) for p in _GIVER_AFTER + _GIVER_ACTS)))
        or (not _attributive(after) and _giver_before(before, sentence))
        or (bool(_FOR_POSSESSIVE.search(before)) and after.startswith(("'s", "s ")))
    )
    location = in_place and not affected and not giver
    # the issue-29 readings also read past a plural's ending that the span leaves out
    # ("the Death Talon Overseer|s do."), the older cues stay as they were
    beyond = _PLURAL_TAIL.sub("", beyond, count=1)
    broken = not affected and (
        fails_before(before)
        or (not in_place and fails_after(beyond, _AFFECTED_AFTER))
        or fails_after(past_link(prose, end), _AFFECTED_AFTER)
        or (not in_place and fails_through_pronoun(prose, end, _AFFECTED_AFTER))
        or fails_around(prose, end, before)
        or (not in_place and own_part_fails(prose, end))
    )
    gives = not giver and not in_place and bool(_GIVES.search(after))
    contrast = not affected and not broken and works_or_example(prose, start, beyond)
    should = not affected and not broken and not contrast and not in_place and should_after(beyond)
    escort = not affected and not broken and not contrast and escorted(before, after)
    return RoleCues(
        int(affected),
        int(giver),
        int(location),
        int(broken),
        int(gives),
        int(contrast),
        int(should),
        int(escort),
    )


def own_part_fails(prose: Prose, end: int) -> bool:
    """True when a noun the name ending at ``end`` qualifies fails ("X's adds never despawn")."""
    return qualified_fails(prose, end, _AFFECTED_AFTER, ZONE_WORDS)


_HEADER_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def place_header(prose: Prose, start: int, end: int) -> bool:
    """True when the mention sits in a leading place header: "Dun Garok, Hillsbrad Foothills. ...".

    The first sentence of a line, made only of capitalized words (and particles) separated by
    spaces or commas, at most six words, followed by more text on the same line. Judged once
    per header, whatever the number of mentions in it.
    """
    line_start = prose.line_start(start)
    line_end = prose.line_end(end)
    stop = prose.stop(end, line_end)
    if stop < 0 or prose.dots(line_start, start):
        return False
    text = prose.text
    return prose.once(
        (line_start, stop),
        lambda: not prose.blank(stop + 2, line_end) and _header(text[line_start:stop]),
    )


def _header(header: str) -> bool:
    """True when ``header`` is a place header: 1-6 capitalized words (or particles) separated by
    spaces or commas."""
    words = _HEADER_WORD.findall(header)
    if not 0 < len(words) <= 6 or re.search(r"[^\w\s,'’-]", header):
        return False
    return all(word[0].isupper() or word.casefold() in PARTICLES for word in words)


def zone_like(term: str) -> bool:
    """True when a word of ``term`` is a zone word ("Howling Fjord", "Black Temple")."""
    return any(word.casefold() in ZONE_WORDS for word in re.findall(r"[^\W\d_]+", term))
