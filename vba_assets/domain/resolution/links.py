"""Identity references: does the report's own wording agree with the linked entity? (pure)

An identity-reference search (protocol v4, :class:`~.models.IdentityReference`) fetches the
identity a report links. The link proves only what was linked: a reporter may paste the wrong id,
link a quest giver next to a mob's name, or link a later expansion's page. So the controller
accepts a selection of such a search only when the report's words for the entity agree with one
of the fetched names (any locale), and records a ``link_disagrees`` unknown otherwise.

**The report's words** (:func:`report_words`): the search's term when it holds a letter (the link
text or the name beside the link), and the slug of every cited link that names the same identity
(``.../npc=3432/mankrik`` -> ``mankrik``; ``...npc=14221&name=gravis-slipknot``), percent-decoded
with hyphens as spaces. A term of digits only (a creature named only by its link) contributes no
words; without a slug such a link has no words at all, and nothing agrees.

**Agreement** (:func:`agrees`), after :func:`~vba_assets.domain.catalog.names.normalize_for_match`
and accent folding, comparing letters and digits only (``Mai'Zoth`` = slug ``maizoth``):

* the words equal a name; or
* the words are a run of whole words of a name, or a name is a run of whole words of the words
  (a short form "Legoso" of "Demolitionist Legoso", a link text with a title "Innkeeper Firebrew
  <Innkeeper>"), with at least :data:`MIN_LETTERS` letters on the shorter side; or
* they are near-equal: an Indel similarity of at least :data:`MIN_SIMILARITY` between the two
  (a misspelling "Ornok Torn-heart" of "Oronok Torn-heart", an inflection "Эндоры" of "Эндора").

What it cannot do: it compares strings, not meaning. A description ("el robot" for S.T.O.U.T.)
never agrees; a translated name agrees only when the catalog holds that translation.
"""

import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote

from rapidfuzz.distance import Indel

from vba_assets.domain.catalog.identity_digits import parse_identity
from vba_assets.domain.catalog.names import fold_accents, normalize_for_match, split_tokens
from vba_assets.domain.resolution.models import (
    IdentityReference,
    MentionCitation,
    ProposedSearch,
)

#: Shortest side of a whole-word agreement, in letters ("Ruul" of "Ruul Snowhoof" agrees).
MIN_LETTERS = 4
#: Indel similarity (0-1) at which two spellings agree.
MIN_SIMILARITY = 0.85
#: A creature page and its slug; the id is the whole digit run after the key (any script, so a
#: run is never read in part), read by :func:`~.identity_digits.parse_identity` (ASCII only).
_SLUG = re.compile(
    r"npc(?:=|/)(?P<id>\d+)(?:/(?P<path>[^\s?#&/)\]\"'<>]+)|[^\s)\]\"'<>]*?[?&]name="
    r"(?P<query>[^\s&#)\]\"'<>]+))?",
    re.IGNORECASE,
)


def slugs(text: str, identity: int) -> list[str]:
    """The slugs of ``text``'s database links to ``identity``, as words ("mankrik")."""
    words = []
    for match in _SLUG.finditer(text):
        if parse_identity(match.group("id")) != identity:
            continue
        slug = match.group("path") or match.group("query")
        if slug:
            decoded = unquote(slug).replace("-", " ").replace("_", " ").replace("+", " ")
            if any(char.isalpha() for char in decoded):
                words.append(" ".join(decoded.split()))
    return words


def report_words(search: ProposedSearch) -> list[str]:
    """The report's words for the entity of an identity-reference search (module docstring)."""
    return words_for(search.term, search.reference, search.mentions)


def words_for(
    term: str, reference: IdentityReference | None, mentions: Sequence[MentionCitation]
) -> list[str]:
    """:func:`report_words` from a search's parts (the assessment stage's view has no plan)."""
    words = [term] if any(char.isalpha() for char in term) else []
    if reference is None:
        return words
    quotes = [reference.link.quote, *(m.quote for m in mentions)]
    for quote in quotes:
        words += slugs(quote, reference.identity)
    return list(dict.fromkeys(words))


def _tokens(text: str) -> list[str]:
    folded = fold_accents(normalize_for_match(text))
    tokens = ["".join(c for c in token if c.isalnum()) for token in split_tokens(folded)]
    return [token for token in tokens if token]


def _run_of(short: Sequence[str], long: Sequence[str]) -> bool:
    width = len(short)
    return 0 < width <= len(long) and any(
        list(long[i : i + width]) == list(short) for i in range(len(long) - width + 1)
    )


def agrees_with(words: str, name: str) -> bool:
    """Whether one wording agrees with one name (see the module docstring)."""
    said, named = _tokens(words), _tokens(name)
    if not said or not named:
        return False
    compact_said, compact_named = "".join(said), "".join(named)
    if compact_said == compact_named:
        return True
    shorter = min(len(compact_said), len(compact_named))
    if shorter >= MIN_LETTERS and (_run_of(said, named) or _run_of(named, said)):
        return True
    return Indel.normalized_similarity(compact_said, compact_named) >= MIN_SIMILARITY


def agrees(words: Iterable[str], names: Iterable[str]) -> bool:
    """Whether any of the report's wordings agrees with any of the entity's names."""
    names = list(names)
    return any(agrees_with(said, name) for said in words for name in names)
