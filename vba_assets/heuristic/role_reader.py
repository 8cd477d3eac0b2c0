"""The role of each planned search: the quest relations, the title and the sentence (issue 11).

:mod:`.roles` reads the cues around one mention; this module decides, for the terms a plan takes,
which role each gets (:class:`RoleReader`), from those cues summed per term, from whether the
term's creature gives quests (the name index) and from which creatures the title or an affected
cue singles out. It is separate because it weighs a whole report (every chosen term at once),
while the cues are read mention by mention.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.catalog.identity_digits import parse_identity
from vba_assets.domain.resolution.models import SearchRole
from vba_assets.heuristic.gazetteer import Gazetteer
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.roles import RoleCues, zone_like
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
_OTHER_AFTER = re.compile(r"^(?:'s|s'|’s)\s+(?!quest|questline|quests)[a-z]")
#: A mention that heads a list item ("- X ...", "1. X ...", "- [x] NPC - X ...") or a label line
#: ("X: drops loot ...") is an item of the report's own list of what is broken.
_ITEM_PREFIX = re.compile(
    r"^[ \t>]*(?:(?:[-*•+]|\d{1,3}[.)])[ \t]+)+(?:\[[ xX]\][ \t]*)?"
    r"(?:(?:npc|nip|нип|нпс|pnj|mob|boss)[ \t]*[-:][ \t]*)?[*_]*$",
    re.IGNORECASE,
)
_LABEL_PREFIX = re.compile(r"^[ \t>*_]*$")
_LABEL_AFTER = re.compile(r"^[*_]*[ \t]*:[ \t]*\S")


class RoleReader:
    """Roles of the heuristic plan by what is broken (step 7; issue 29, ARCHITECTURE 15).

    In order, for a taken term with the summed ``cues`` of its mentions:

    * ``other_context``: every mention is a landmark, a comparison or an exception ("near X",
      "north of X", "more than X", "except X", "X's tunnel");
    * ``affected_subject``: a mention says the creature itself fails (an affected cue of
      :mod:`.roles`: "X doesn't spawn", "no X", "X has no quest marker", "can't turn in to X",
      "X nimmt die Quest nicht an"), or another term of the same creature does. A quest giver
      or ender that misbehaves is affected like any creature;
    * ``other_context``: a mention says it works or gives it as an example ("turn it in to X just
      fine", "X was fine", "e.g. X");
    * ``quest_giver``: the sentence names it as a quest's giver ("X gave me", "X's quest",
      "return to X", "quest from X"); a plural mention never is;
    * ``location_context``: a locative cue and a zone-like name;
    * ``quest_giver``: its creature starts or ends some quest (``creature_queststarter`` /
      ``creature_questender`` in the name index: a linked or written identity, else every entry
      of its exact name), the title names a quest or links one, and another term is the
      subject (the defect lies elsewhere);
    * ``other_context``: the title names some creature of the plan and this one is only in the
      body, or another term has an affected cue and this one none ("Thrall is missing ... only
      Eitrigg is there"), unless a mention heads an item of the report's own list ("- X ...",
      "X: drops loot ...");
    * ``quest_giver``: a quest-giving creature in a report about a quest beside another subject;
    * else ``affected_subject``: a name a bug report gives is what it is about unless the
      sentence says otherwise; a quest giver that is the only subject is what is broken ("the
      NPC <link> does not give the quest").

    What it cannot do: the quest tables say that a creature gives *some* quest, not the one the
    report is about; a failure written far from the name or through a pronoun ("talk to him
    again: nothing") is not seen, so a giver beside another named creature stays ``quest_giver``.
    """

    def __init__(
        self, sources: Sequence["SourceText"], index: "NameIndex", gazetteer: "Gazetteer"
    ) -> None:
        self._texts = {source.alias: source.reading for source in sources}
        self._index = index
        self._gazetteer = gazetteer
        title = next((s.text for s in sources if s.order == 0), "")
        body = " ".join(s.text for s in sources if s.order != 0)
        self.quest_title = bool(_QUEST_WORDS.search(title))
        self.quest_report = self.quest_title or bool(_QUEST_WORDS.search(body))
        self._title_terms: set[int] = set()
        self._title_identities: set[int] = set()
        self._broken_identities: set[int] = set()
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
            if not (_OTHER_BEFORE.search(before) or _OTHER_AFTER.match(after)):
                return False
            found = True
        return found

    def _heads_item(self, term: "Term") -> bool:
        """True when a mention heads a list item or a label line with more text after it."""
        for span in term.spans:
            prose = self._texts.get(span.source)
            if prose is None:
                continue
            line_start, line_end = prose.line_start(span.start), prose.line_end(span.extent)
            prefix = prose.text[line_start : span.start]
            rest = prose.text[span.extent : line_end]
            if (_ITEM_PREFIX.match(prefix) and rest.strip(" \t*_")) or (
                _LABEL_PREFIX.match(prefix) and _LABEL_AFTER.match(rest)
            ):
                return True
        return False

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
        self._broken_identities = {
            identity
            for t, c in zip(terms, cues, strict=False)
            if c.fails and (t.reference or t.exact or t.misspelling)
            for identity in self.identities(t)
        }
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
            if cue.fails or (known and not named_only):
                self._subjects.append((id(term), identities))

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
        if cues.fails or bool(identities & self._broken_identities):
            return "affected_subject"
        if cues.contrast > 0:
            return "other_context"
        if cues.hands_out and not plural:
            return "quest_giver"
        if cues.location > 0 and zone_like(term.text):
            return "location_context"
        giver = self._giver_by_tables(term, identities)
        beside = giver and self._beside_subject(term, identities)
        if beside and self.quest_title:
            return "quest_giver"
        in_title = id(term) in self._title_terms or bool(identities & self._title_identities)
        cued = bool(self._cued_terms) and id(term) not in self._cued_terms
        if ((self._title_terms and not in_title) or cued) and not self._heads_item(term):
            return "other_context"
        if beside and self.quest_report:
            return "quest_giver"
        return "affected_subject"
