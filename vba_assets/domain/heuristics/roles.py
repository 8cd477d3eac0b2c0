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

What it cannot do: it does not parse sentences. A cue in another clause of the same line can be
attributed to the wrong name; pronouns ("I talked to him") are not resolved; irony, questions
and hypotheticals read like statements.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vba_assets.domain.heuristics.lexicon import PARTICLES, ZONE_WORDS, is_stopword
from vba_assets.domain.resolution.models import SearchRole

if TYPE_CHECKING:  # the term and gazetteer modules import this one
    from vba_assets.domain.heuristics.gazetteer import Gazetteer
    from vba_assets.domain.heuristics.name_index import NameIndex
    from vba_assets.domain.heuristics.spans import SourceText
    from vba_assets.domain.heuristics.terms import Term

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
_FROM = re.compile(r"\b(?:(\w+)\s+)?(?:from|von|bei)\s+(?:the\s+)?$")
_ATTRIBUTIVE = re.compile(r"^[ \t]+([a-zäöüß][\w'-]*)")
_QUEST_SENTENCE = re.compile(
    r"\b(?:quests?|picked up|pick up|got|took|take|accepted|accept|doing|questline|daily|"
    r"quête|aufgabe|angenommen|bekommen)\b"
)
_LOOT_SENTENCE = re.compile(r"\b(?:loot|looted|drop|drops|dropped|killed|kill)\b")
_PLACE_PHRASE = re.compile(
    r"[ \t]*,?[ \t]*(?:in|at|near|inside|around|im|bei|à|dans)[ \t]+(?:the[ \t]+|der[ \t]+)?"
    r"(?:[A-ZÄÖÜÀ-Þ][\w'’-]*[ \t]*){1,4}"
)
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

    def __add__(self, other: "RoleCues") -> "RoleCues":
        return RoleCues(
            self.affected + other.affected,
            self.quest_giver + other.quest_giver,
            self.location + other.location,
        )

    @property
    def any_subject_cue(self) -> bool:
        """True with an affected or quest-giver cue (the cues that justify a weak span)."""
        return self.affected > 0 or self.quest_giver > 0


def _context(text: str, start: int, end: int) -> tuple[str, str, str]:
    """(before, after, surroundings) on the mention's line, lower-cased.

    ``before`` and ``after`` are cut at sentence ends; the surroundings are not (a quest title
    ending in "!" often sits between the verb and "from X").
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
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


def _skip_place(text: str, end: int, after: str) -> str:
    """``after`` without a leading place phrase ("X in Naxxramas doesn't ..." -> " doesn't ...")."""
    match = _PLACE_PHRASE.match(text, end)
    return after[match.end() - end :] if match else after


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


def mention_cues(text: str, start: int, end: int) -> RoleCues:
    """The role cues of one mention ``text[start:end]``.

    A name inside a place phrase ("in Naxxramas") takes no affected cue from the words after it:
    "X in Naxxramas doesn't follow" is about X, which gets the cue across the place phrase; the
    quest-giver phrases after X are read across it too ("X in Lakeshire is waiting for ..."). A
    name that makes up a whole place header ("Dun Garok, Hillsbrad Foothills. ...") gets a
    location cue.
    """
    before, after, sentence = _context(text, start, end)
    in_place = bool(_LOCATIVE.search(before) or _PLACE_OF.search(before)) or place_header(
        text, start, end
    )
    beyond = _skip_place(text, end, after)
    affected = any(p.search(before) for p in _AFFECTED_BEFORE) or (
        not in_place and any(p.search(beyond) for p in _AFFECTED_AFTER)
    )
    line_end = text.find("\n", end)
    raw_after = text[end : min(len(text) if line_end < 0 else line_end, end + _WINDOW)]
    gave = bool(_GAVE.search(_skip_place(text, end, raw_after)))
    giver = (
        (not in_place and (gave or any(p.search(beyond) for p in _GIVER_AFTER + _GIVER_ACTS)))
        or (not _attributive(after) and _giver_before(before, sentence))
        or (bool(_FOR_POSSESSIVE.search(before)) and after.startswith(("'s", "s ")))
    )
    location = in_place and not affected and not giver
    return RoleCues(int(affected), int(giver), int(location))


_HEADER_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def place_header(text: str, start: int, end: int) -> bool:
    """True when the mention sits in a leading place header: "Dun Garok, Hillsbrad Foothills. ...".

    The first sentence of a line, made only of capitalized words (and particles) separated by
    spaces or commas, at most six words, followed by more text on the same line.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    stop = text.find(". ", end, line_end)
    if stop < 0 or text[line_start:start].count(".") or not text[stop + 2 : line_end].strip():
        return False
    header = text[line_start:stop]
    words = _HEADER_WORD.findall(header)
    if not 0 < len(words) <= 6 or re.search(r"[^\w\s,'’-]", header):
        return False
    return all(word[0].isupper() or word.casefold() in PARTICLES for word in words)


def zone_like(term: str) -> bool:
    """True when a word of ``term`` is a zone word ("Howling Fjord", "Black Temple")."""
    return any(word.casefold() in ZONE_WORDS for word in re.findall(r"[^\W\d_]+", term))


# --- roles from the quest relations and the sentence (issue 11) -----------------------------------

#: Words that make a report one about a quest (any of the reporters' languages), or a quest link.
_QUEST_WORDS = re.compile(
    r"\b(?:quests?|questline|questgiver|quest-giver|quête|quêtes|misión|mision|misiones|"
    r"aufgabe|задание|задания|квест|квеста|zadanie|questa)\b|[?&/]quest=\d",
    re.IGNORECASE,
)
#: Context that makes a name a landmark, a comparison or an exception rather than the subject:
#: "near X", "north of X", "than (for example) X", "except X", "unlike X", "X's tunnel".
_OTHER_BEFORE = re.compile(
    r"\b(?:near|next to|close to|beside|behind|(?:north|south|east|west)(?:east|west)? of|than|"
    r"except|unlike|other than|for example|such as|like|tamed|instead of|"
    r"compared to|similar to)\s+(?:the\s+|for example\s+)?$"
)
_OTHER_AFTER = re.compile(r"^(?:'s|s'|’s)\s+(?!quest|questline|quests)[a-z]")


class RoleReader:
    """Roles of the heuristic plan from the quest relations and the sentence (step 7).

    * ``quest_giver``: the term's creature starts or ends some quest (``creature_queststarter`` /
      ``creature_questender`` in the name index: a linked or written identity, else every entry
      of its exact name) and the report is about a quest (its title names a quest or links one,
      or a quest-giver cue stands next to the name); a plural mention never is;
    * ``other_context``: every mention is a landmark, a comparison or an exception ("near X",
      "north of X", "more than X", "except X", "X's tunnel");
    * ``location_context``: as before (a locative cue and a zone-like name);
    * else ``affected_subject``: a name a bug report gives is what it is about unless the
      sentence says otherwise (in real reports most named creatures are affected).

    What it cannot do: the quest tables say that a creature gives *some* quest, not the one the
    report is about; a quest NPC whose problem is its gossip or spawn, in a report that also
    talks about quests, is read as a quest giver.
    """

    def __init__(
        self, sources: Sequence["SourceText"], index: "NameIndex", gazetteer: "Gazetteer"
    ) -> None:
        self._texts = {source.alias: source.prose for source in sources}
        self._index = index
        self._gazetteer = gazetteer
        title = next((s.text for s in sources if s.order == 0), "")
        body = " ".join(s.text for s in sources if s.order != 0)
        self.quest_title = bool(_QUEST_WORDS.search(title))
        self.quest_report = self.quest_title or bool(_QUEST_WORDS.search(body))
        self._title_terms: set[int] = set()
        self._title_identities: set[int] = set()
        self._cued_identities: set[int] = set()
        self._cued_terms: set[int] = set()

    def identities(self, term: "Term") -> set[int]:
        """The creatures a term may be: its reference, its misspelling's, else its exact names."""
        if term.reference is not None:
            return {term.reference.identity}
        if term.misspelling is not None:
            return {term.misspelling.identity}
        return {
            int(identity)
            for identities in term.strong_exact.values()
            for identity in identities
            if isinstance(identity, int) or str(identity).isdigit()
        }

    def _other(self, term: "Term") -> bool:
        found = False
        for span in term.spans:
            text = self._texts.get(span.source, "")
            line_start = text.rfind("\n", 0, span.start) + 1
            before = text[max(line_start, span.start - 40) : span.start].casefold()
            after = text[span.extent : span.extent + 20].casefold()
            if not (_OTHER_BEFORE.search(before) or _OTHER_AFTER.match(after)):
                return False
            found = True
        return found

    def _giver(self, term: "Term", cues: RoleCues) -> SearchRole | None:
        """``quest_giver`` by the quest relations and the title or a giver cue, or by more giver
        than affected cues; None otherwise."""
        identities = self.identities(term)
        plural = all(span.kind in ("singular", "catalog_singular") for span in term.spans)
        if plural:
            return None
        givers = bool(identities) and all(self._index.quest_giver(i) for i in identities)
        if givers and (self.quest_title or cues.quest_giver > 0):
            return "quest_giver"
        if cues.quest_giver > cues.affected:
            return "quest_giver"  # the sentence says so, whatever the tables hold
        return None

    def anchor(self, terms: Sequence["Term"], cues: Sequence[RoleCues] = ()) -> None:
        """Note which creatures the title names and whether the sentences single out a subject
        (see :meth:`role`): terms with a mention in the title whose creature is known (a
        reference, a misspelling's, or one exact name); some term with an affected cue."""
        cued = [
            t
            for t, c in zip(terms, cues, strict=False)
            if c.affected > 0 and (t.reference or t.exact or t.misspelling)
        ]
        self._cued_terms = {id(t) for t in cued}
        self._cued_identities = {identity for term in cued for identity in self.identities(term)}
        context_givers = {
            id(t) for t, c in zip(terms, cues, strict=False) if c.quest_giver > c.affected
        }
        titled = [
            t
            for t in terms
            if any(s.order == 0 for s in t.spans)
            and id(t) not in context_givers
            and (t.reference or t.exact or t.misspelling or t.inflected)
        ]
        self._title_identities = {identity for term in titled for identity in self.identities(term)}
        self._title_terms = {id(t) for t in titled}

    def role(self, term: "Term", cues: RoleCues) -> SearchRole | None:
        """The role of ``term`` with the summed ``cues`` of its mentions (None: no opinion).

        In order: a quest giver (its creature gives quests and the title names a quest, or a
        giver cue stands next to it); more giver than affected cues; a landmark or
        comparison; a place; then, when the title names some creature of the plan, a creature
        named only in the body without an affected cue is context ("Thrall is missing ... only
        Eitrigg is there"); a quest-giving creature in a report about a quest; else affected.
        """
        identities = self.identities(term)
        plural = all(span.kind in ("singular", "catalog_singular") for span in term.spans)
        givers = bool(identities) and all(self._index.quest_giver(i) for i in identities)
        giver = self._giver(term, cues)
        if giver is not None:
            return giver
        if self._other(term):
            return "other_context"
        if cues.location > 0 and cues.affected == 0 and zone_like(term.text):
            return "location_context"
        in_title = id(term) in self._title_terms or bool(identities & self._title_identities)
        cued = (
            bool(self._cued_terms)
            and id(term) not in self._cued_terms
            and not identities & self._cued_identities
        )
        if ((self._title_terms and not in_title) or cued) and cues.affected == 0:
            return "other_context"
        if givers and not plural and self.quest_report and cues.affected == 0:
            return "quest_giver"
        return "affected_subject"
