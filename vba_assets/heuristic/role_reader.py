"""The role of each planned search: the quest relations, the title and the sentence (issue 11).

:mod:`.roles` reads the cues around one mention; this module decides, for the terms a plan takes,
which role each gets (:class:`RoleReader`), from those cues summed per term, from whether the
term's creature gives quests (the name index) and from which creatures the title or an affected
cue singles out. It is separate because it weighs a whole report (every chosen term at once),
while the cues are read mention by mention.
"""

import re
from collections.abc import Sequence
from itertools import pairwise

from vba_assets.domain.catalog.identity_digits import parse_identity
from vba_assets.domain.resolution.models import SearchRole
from vba_assets.heuristic.gazetteer import Gazetteer
from vba_assets.heuristic.lexicon import ZONE_WORDS
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.role_items import heads_item
from vba_assets.heuristic.role_lists import (
    AND_WORDS,
    EXCEPT_BEFORE,
    LIST_FILLERS,
    OR_WORDS,
    PLURAL_AFTER,
)
from vba_assets.heuristic.role_phrases import GROUP_AFTER, GROUP_BEFORE
from vba_assets.heuristic.role_steps import StepSections, all_killed_by_reporter
from vba_assets.heuristic.role_words import alternation
from vba_assets.heuristic.roles import RoleCues, own_part_fails, zone_like
from vba_assets.heuristic.spans import SourceText
from vba_assets.heuristic.terms import Term

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
#: "X's tunnel" is a landmark; "X's were not getting debuffs" (a plural's apostrophe) and "X's
#: quest" are not.
_OTHER_AFTER = re.compile(
    r"^(?:'s|s'|’s)\s+(?!(?:quest|questline|quests|were|are|is|was|do|does|did|don'?t|doesn'?t|"
    r"have|has|had|can|can'?t|cannot|will|won'?t|should|keeps?|still|not|never|also|spawn)\b)[a-z]"
)
#: The name qualifies the group of creatures around it ("Morogrim trash", "the trash before X").
_GROUP_AFTER = re.compile(rf"^{alternation(GROUP_AFTER)}")
_GROUP_BEFORE = re.compile(rf"(?:^|\W){alternation(GROUP_BEFORE)}$")
#: "X's Shadow Bolt Volley": a name of two capitalized words after the possessive is X's own
#: ability (a landmark is a lower-case noun, "X's tunnel", or a zone word, "X's Lair"; one
#: capitalized word is too often a common noun, "X's Table").
_OWN_ABILITY = re.compile(
    r"(?:'s|’s|s')[ \t]+([A-ZÀ-ÞА-ЯЁ][\w'’-]*)[ \t]+(?:of[ \t]+)?([A-ZÀ-ÞА-ЯЁ][\w'’-]*)"
)
#: The comparison words of :data:`_OTHER_BEFORE` whose name is still the subject when a verb in
#: -ing follows ("instead of X looking at the skull, he ..."); the place words are not among them.
_COMPARISON = re.compile(r"\b(?:than|unlike|like|instead of|compared to|similar to)\s+(?:the\s+)?$")
_GERUND_AFTER = re.compile(r"^\s+[a-z]+ing\b")
_EXCEPT_BEFORE = re.compile(rf"(?:^|\W){alternation(EXCEPT_BEFORE)}\s+(?:the\s+)?$")
#: Between two names of one list (see :data:`~.role_lists.AND_WORDS`), also after a serial comma
#: ("X, Y, and Z"); group 1 is an "or" word.
_LIST_GAP = re.compile(
    rf"^[ \t]*(?:,[ \t]*)?(?:{alternation(AND_WORDS)}|({alternation(OR_WORDS)}))[ \t]*"
    rf"(?:{alternation(LIST_FILLERS)}[ \t]+)*$"
)
_LIST_GAP_CHARS = 40
#: After the second name: a verb of its own clause ("can't find Hogger, Marshal Dughan says he is
#: in the forest"): it is the subject of the next clause, not an item of the first one's list.
_OWN_CLAUSE_AFTER = re.compile(
    r"^(?:e?s)?[ \t]+(?:said|says|told|tells|asked|asks|is|was|has|had|gave|gives|sent|sends|"
    r"wants|wanted|will|would|can|could|does|did|sagt|sagte|ist|war|hat|dit|est|dijo|está)\b"
)
_PLURAL_AFTER = re.compile(rf"^(?:e?s)?[ \t]*{alternation(PLURAL_AFTER)}\b")
#: A title mention that qualifies a quest ("doesnt accept Hogger quest") names the quest, not its
#: subject.
_QUEST_QUALIFIER = re.compile(r"^[ \t]+(?:quest|questline|quest-?chain|quête|aufgabe)\b", re.I)
#: The separators of a title's segments ("[Black Temple] Illidan", "Black Temple - Illidan,
#: Essence", "Scarlet Commander Mograine and High Inquisitor Whitemane").
_SEGMENT_BEFORE = re.compile(r"(?:^|[\[\]():|/,;#–—]|\s-|\s(?:and|und|et|y|&|и))\s*$", re.I)
_SEGMENT_AFTER = re.compile(r"^\s*(?:$|[\[\]():|/,;–—]|-\s|(?:and|und|et|y|&|и)\s)", re.I)


def _own_ability(text: str, end: int) -> bool:
    """True when the possessive after a name (ending at ``end``) is followed by two capitalized
    words, neither a zone word: X's own spell or ability, not a landmark."""
    match = _OWN_ABILITY.match(text, end, min(len(text), end + 40))
    return match is not None and not {match.group(1).casefold(), match.group(2).casefold()} & (
        ZONE_WORDS
    )


class RoleReader:
    """Roles of the heuristic plan by what is broken (step 7; issue 29, ARCHITECTURE 15).

    In order, for a taken term with the summed ``cues`` of its mentions:

    * ``other_context``: every mention is a landmark, a comparison or an exception ("near X",
      "north of X", "more than X", "except X", "X's tunnel"), or names the group of creatures
      around it ("Morogrim trash", "the trash before X");
    * ``affected_subject``: a mention says the creature itself fails (an affected cue of
      :mod:`.roles`: "X doesn't spawn", "no X", "X has no quest marker", "can't turn in to X",
      "X nimmt die Quest nicht an", "X ... he gets bugged out"), or another term of the same
      creature does, or it is an item of a list with one that does (:meth:`_failing_lists`:
      "tame X or a Y", "X, Y and Z are missing"). A quest giver or ender that misbehaves is
      affected like any creature;
    * ``other_context``: a mention says it works or gives it as an example ("turn it in to X just
      fine", "X was fine", "e.g. X", "works on X but not on Y"), is the exception ("except X"),
      or every mention is what a reproduction step kills (:mod:`.role_steps`) beside another
      term, or what the reporter tells they killed beside another term that fails;
    * ``affected_subject``: a mention says what it should do ("X should despawn") or that it is
      escorted ("When escorting X for <quest>": the escort it leads is what breaks);
    * ``quest_giver``: the sentence names it as a quest's giver ("X gave me", "X's quest",
      "return to X", "quest from X"); a plural mention never is;
    * ``location_context``: a locative cue and a zone-like name;
    * ``quest_giver``: its creature starts or ends some quest (``creature_queststarter`` /
      ``creature_questender`` in the name index: a linked or written identity, else every entry
      of its exact name), the title names a quest or links one, and another term is the
      subject (the defect lies elsewhere);
    * ``other_context``: the title names some creature of the plan and this one is only in the
      body, or another term has an affected cue and this one none ("Thrall is missing ... only
      Eitrigg is there") unless it fills a segment of the title ("[Black Temple] Illidan"),
      unless a mention heads an item of the report's own list ("- X ...", "X: drops loot ...");
    * ``quest_giver``: a quest-giving creature in a report about a quest beside another subject;
    * else ``affected_subject``: a name a bug report gives is what it is about unless the
      sentence says otherwise; a quest giver that is the only subject is what is broken ("the
      NPC <link> does not give the quest").

    What it cannot do: the quest tables say that a creature gives *some* quest, not the one the
    report is about; a failure written in another sentence than the name ("X is there. Talk to
    him again: nothing") is not seen, so a giver beside another named creature stays
    ``quest_giver``.
    """

    def __init__(
        self, sources: Sequence["SourceText"], index: "NameIndex", gazetteer: "Gazetteer"
    ) -> None:
        self._texts = {source.alias: source.reading for source in sources}
        # as written (the reading blanks links out, at the same positions)
        self._written = {source.alias: source.text for source in sources}
        self._index = index
        self._gazetteer = gazetteer
        title = next((s.text for s in sources if s.order == 0), "")
        body = " ".join(s.text for s in sources if s.order != 0)
        self.quest_title = bool(_QUEST_WORDS.search(title))
        self.quest_report = self.quest_title or bool(_QUEST_WORDS.search(body))
        self._title_terms: set[int] = set()
        self._title_identities: set[int] = set()
        self._broken_identities: set[int] = set()
        self._failing: set[int] = set()
        self._steps: dict[str, StepSections] = {}
        self._outside_steps = 0  # terms with a mention that is not what a reproduction step kills
        self._cued_terms: set[int] = set()
        self._subjects: list[tuple[int, set[int]]] = []

    def identities(self, term: "Term") -> set[int]:
        """The creatures a term may be: its reference, its misspelling's, else its exact names."""
        if term.reference is not None:
            return {term.reference.identity}
        if term.misspelling is not None:
            return {term.misspelling.identity}
        found = (
            identity if isinstance(identity, int) else parse_identity(str(identity))
            for identities in term.strong_exact.values()
            for identity in identities
        )
        return {identity for identity in found if identity is not None}

    def _other(self, term: "Term") -> bool:
        found = False
        for span in term.spans:
            prose = self._texts.get(span.source)
            text = prose.text if prose is not None else ""
            line_start = prose.line_start(span.start) if prose is not None else 0
            before = text[max(line_start, span.start - 40) : span.start].casefold()
            after = text[span.extent : span.extent + 20].casefold()
            compared = bool(_OTHER_BEFORE.search(before)) and not (
                _COMPARISON.search(before) and _GERUND_AFTER.match(after)
            )
            group = bool(_GROUP_AFTER.match(after) or _GROUP_BEFORE.search(before))
            landmark = (
                _OTHER_AFTER.match(after)
                and not _own_ability(text, span.extent)
                and not (prose is not None and own_part_fails(prose, span.extent))
            )
            if not (compared or group or landmark):
                return False
            found = True
        return found

    def _excepted(self, term: "Term") -> bool:
        """True when a mention is the exception to what the report says ("(except X)")."""
        for span in term.spans:
            prose = self._texts.get(span.source)
            if prose is None:
                continue
            line_start = prose.line_start(span.start)
            before = prose.text[max(line_start, span.start - 40) : span.start].casefold()
            if _EXCEPT_BEFORE.search(before):
                return True
        return False

    def _only_killed_in_steps(self, term: "Term") -> bool:
        """True when every mention is what a reproduction step kills ("2. kill vezax")."""
        for span in term.spans:
            prose = self._texts.get(span.source)
            if prose is None:
                return False
            if span.source not in self._steps:
                self._steps[span.source] = StepSections(prose.text)
            if not self._steps[span.source].killed_in_step(
                prose.line_start(span.start), span.start
            ):
                return False
        return bool(term.spans)

    def _title_mentions(self, term: "Term") -> list[tuple[str, int, int]]:
        """(title, start, end) of the term's title mentions that do not qualify a quest word
        ("Hogger quest" names the quest, the report's subject is what fails in it)."""
        found = []
        for span in term.spans:
            prose = self._texts.get(span.source)
            if span.order != 0 or prose is None:
                continue
            if not _QUEST_QUALIFIER.match(prose.text, span.extent):
                found.append((prose.text, span.start, span.extent))
        return found

    def _failing_lists(self, terms: Sequence["Term"], cues: Sequence[RoleCues]) -> set[int]:
        """The terms that fail: by their own cues, or as an item of a list with one that does
        ("can't tame Qirot or a Hive'Zara Wasp", "mostly the X, sometimes the Y too", "X, Y and Z
        are missing"). A failure passes forward over any list word, back over an "or" word, and
        back over any list word when the last name takes a plural verb; never to a term whose own
        mentions name it a giver or a contrast. Reads only the short gaps between
        consecutive mentions (linear in the number of mentions)."""
        failing = {id(t) for t, c in zip(terms, cues, strict=False) if c.fails}
        blocked = {id(t) for t, c in zip(terms, cues, strict=False) if c.hands_out or c.contrast}
        ordered = sorted(
            (span.source, span.start, span.extent, id(term))
            for term in terms
            for span in term.spans
        )
        pairs: list[tuple[int, int, bool, bool]] = []
        blocked_forward: set[tuple[int, int]] = set()
        for (source, _, end, left), (other, start, extent, right) in pairwise(ordered):
            prose = self._texts.get(source)
            if source != other or left == right or prose is None:
                continue
            if not 0 <= start - end <= _LIST_GAP_CHARS:
                continue
            gap = _LIST_GAP.match(prose.text[end:start].casefold())
            if gap is not None:
                tail = prose.text[extent : extent + 20].casefold()
                plural = bool(_PLURAL_AFTER.match(tail))
                own = bool(_OWN_CLAUSE_AFTER.match(tail))
                pairs.append((left, right, gap.group(1) is not None, plural))
                if own:
                    blocked_forward.add((left, right))
        for left, right, _, _ in pairs:
            if left in failing and right not in blocked and (left, right) not in blocked_forward:
                failing.add(right)
        whole: set[int] = set()  # the items of a list whose last name takes a plural verb
        for left, right, either, plural in reversed(pairs):
            if right in failing and (either or plural or right in whole) and left not in blocked:
                failing.add(left)
                if plural or right in whole:
                    whole.add(left)
        return failing

    def _heads_item(self, term: "Term") -> bool:
        """True when a mention heads an item of the report's own list (:func:`.role_items.heads_item`)."""
        return any(
            heads_item(self._texts[span.source], self._written.get(span.source, ""), span)
            for span in term.spans
            if span.source in self._texts
        )

    def _giver_by_tables(self, term: "Term", identities: set[int]) -> bool:
        """True when every creature the term may be starts or ends some quest (not a plural)."""
        plural = all(span.kind in ("singular", "catalog_singular") for span in term.spans)
        return (
            not plural and bool(identities) and all(self._index.quest_giver(i) for i in identities)
        )

    def anchor(self, terms: Sequence["Term"], cues: Sequence[RoleCues] = ()) -> None:
        """Note which creatures the title names, which ones a sentence says fail, and which
        terms are a subject (see :meth:`role`): terms with a mention in the title whose creature
        is known (a reference, a misspelling's, or one exact name); terms with an affected cue;
        subjects are those and every term of a known creature that is neither a quest giver (by
        the tables or the sentence), a contrast nor a landmark."""
        cued = [
            t
            for t, c in zip(terms, cues, strict=False)
            if c.affected > 0 and (t.reference or t.exact or t.misspelling)
        ]
        self._cued_terms = {id(t) for t in cued}
        self._failing = self._failing_lists(terms, cues)
        self._outside_steps = sum(1 for t in terms if not self._only_killed_in_steps(t))
        self._broken_identities = {
            identity
            for t in terms
            if id(t) in self._failing and (t.reference or t.exact or t.misspelling)
            for identity in self.identities(t)
        }
        context_givers = {
            id(t) for t, c in zip(terms, cues, strict=False) if c.quest_giver > c.affected
        }
        titled = [t for t in terms if id(t) not in context_givers and self._titles(t)]
        self._title_identities = {identity for term in titled for identity in self.identities(term)}
        self._title_terms = {id(t) for t in titled}
        self._subjects = []
        for term, cue in zip(terms, cues, strict=False):
            identities = self.identities(term)
            known = bool(term.reference or term.exact or term.misspelling or term.inflected)
            named_only = (
                cue.hands_out
                or cue.contrast > 0
                or self._giver_by_tables(term, identities)
                or self._other(term)
            )
            if id(term) in self._failing or (known and not named_only):
                self._subjects.append((id(term), identities))

    def _titles(self, term: "Term") -> bool:
        """True when the title names the term as a subject: a title mention of a known creature
        (a reference, a misspelling's, an exact or inflected name), or one that fills a whole
        segment of the title (:meth:`_heads_title`), also when its name is only part of a
        creature's; a mention that qualifies a quest word ("Hogger quest") names none."""
        if not self._title_mentions(term):
            return False
        known = term.reference or term.exact or term.misspelling or term.inflected
        return bool(known) or (self._heads_title(term) and self._character_like(term))

    def _character_like(self, term: "Term") -> bool:
        """True when a name that is only part of creatures' names is a character's name: several
        words without a zone word ("Inquisitor Whitemane"), or a word most of whose holders are
        bosses ("Illidan"); not a place tag ("[Black Temple]": a zone word, "[Naxxramas]": a word
        guards and adds carry)."""
        if zone_like(term.text):
            return False
        words = re.findall(r"[^\W\d_][\w'’-]*", term.text)
        return len(words) > 1 or any(self._gazetteer.mostly_bosses(word) for word in words)

    def _heads_title(self, term: "Term") -> bool:
        """True when a title mention fills a whole segment of the title ("[Black Temple] Illidan",
        "Black Temple - Illidan, Essence", "X and Y"): the title is about it, so another term's
        affected cue does not make it context (a name inside the title's sentence, "won't take my
        quest after killing X", may still be)."""
        return any(
            _SEGMENT_BEFORE.search(title[:start]) and _SEGMENT_AFTER.match(title[end:])
            for title, start, end in self._title_mentions(term)
        )

    def _beside_subject(self, term: "Term", identities: set[int]) -> bool:
        """True when another term, of another creature, is a subject of the report."""
        return any(
            other != id(term) and not (found & identities) for other, found in self._subjects
        )

    def role(self, term: "Term", cues: RoleCues) -> SearchRole | None:
        """The role of ``term`` with the summed ``cues`` of its mentions (see the class)."""
        identities = self.identities(term)
        plural = all(span.kind in ("singular", "catalog_singular") for span in term.spans)
        if self._other(term):
            return "other_context"
        if cues.fails or id(term) in self._failing or bool(identities & self._broken_identities):
            return "affected_subject"
        if cues.contrast > 0 or self._excepted(term):
            return "other_context"
        if (self._outside_steps and self._only_killed_in_steps(term)) or (
            self._failing - {id(term)} and all_killed_by_reporter(term.spans, self._texts)
        ):
            return "other_context"  # a prerequisite (a step's or the reporter's kill) of a failure
        if (cues.should > 0 or cues.escorted > 0) and not (cues.hands_out or self._other(term)):
            return "affected_subject"  # what it should do, it does not; the escort it leads
        if cues.hands_out and not plural:
            return "quest_giver"
        if cues.location > 0 and zone_like(term.text):
            return "location_context"
        giver = self._giver_by_tables(term, identities)
        beside = giver and self._beside_subject(term, identities)
        if beside and self.quest_title:
            return "quest_giver"
        in_title = id(term) in self._title_terms or bool(identities & self._title_identities)
        cued = (
            bool(self._cued_terms)
            and id(term) not in self._cued_terms
            and not (in_title and self._heads_title(term))
        )
        if ((self._title_terms and not in_title) or cued) and not self._heads_item(term):
            return "other_context"
        if beside and self.quest_report:
            return "quest_giver"
        return "affected_subject"
