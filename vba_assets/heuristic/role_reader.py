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
        self._texts = {source.alias: source.reading for source in sources}
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
