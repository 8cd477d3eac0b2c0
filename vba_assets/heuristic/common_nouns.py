"""A creature's name used as a common noun ("Create a Dark Iron Dwarf", "your launcher", "an
Ogre"): a kind of thing, not one named creature, which the gold policy does not count as a
mention (eval/real/README.md, "Not mentions": creature kinds with an article used as common
nouns). Pure.

:func:`without_common_noun_use` (heuristic-10, protocol v6) turns a selection whose every mention
follows such a determiner into ``ambiguous``; :func:`follows_determiner` is also the determiner
test of the exact-name guard (:func:`~.exact_coverage.written_as_name`). "the" is no such
determiner: "the Lurker Below", "kill the keepers" name or count creatures as often as not.
"""

import re
from collections.abc import Mapping

from vba_assets.domain.resolution.models import MentionCitation, SearchAssessmentOutput
from vba_assets.domain.stage_context import SearchView

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
#: How far before a mention the determiner is looked for (a word and its separator).
_LOOK_BACK = 40


def follows_determiner(text: str, mention: MentionCitation) -> bool:
    """Whether the word right before ``mention`` in ``text`` is one of :data:`DETERMINERS`."""
    before = _LAST_WORD.search(text, max(0, mention.start - _LOOK_BACK), mention.start)
    return before is not None and before.group(1).casefold() in DETERMINERS


def without_common_noun_use(
    search: SearchView, verdict: SearchAssessmentOutput, sources: Mapping[str, str]
) -> SearchAssessmentOutput:
    """``verdict``, or ``ambiguous`` when it selects from a name search whose every readable
    mention follows a determiner (an identity the report links is kept: the link names it)."""
    if verdict.status != "selected" or search.reference is not None:
        return verdict
    readable = [m for m in search.mentions if m.source in sources]
    if not readable or not all(follows_determiner(sources[m.source], m) for m in readable):
        return verdict
    mention = readable[0]
    text = sources[mention.source]
    phrase = text[max(0, mention.start - _LOOK_BACK) : mention.end].split("\n")[-1].strip()
    return SearchAssessmentOutput(
        search_id=search.search_id,
        status="ambiguous",
        competing_candidate_ids=[verdict.candidate_id] if verdict.candidate_id else [],
        rationale=f"heuristic: every mention of {search.term!r} follows a determiner (e.g. "
        f"{phrase!r}): the report uses the name as a common noun, a kind of creature rather than "
        "one it names, so nothing is selected",
    )
