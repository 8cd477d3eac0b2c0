"""Identity digits a report writes as a number of their own (protocol v6, pure).

Reports filed through a tracker's template often write a creature's id beside or under its name
("**ID of the NPC:** 21140", "*Thrall* *(ID:4949)*", "Loolruna (id 19694)"). For the grounded
tie-breaks of same-name rows (:mod:`.tiebreaks`) such a number is the same kind of fact as a link
(``npc=21140``): when several candidates carry the searched name and the report writes the digits
of exactly one of their identities, the ``link`` fact may cite that number.

A **written identity** is a run of 1-9 ASCII digits that is a number of its own: no letter, digit,
underscore, ``=``, ``/``, ``.`` or ``,`` touches it before (a URL's parameter or path is read as a
link, "3.3.5" is a version), and no letter, digit or underscore follows it, nor a ``.`` or ``,``
followed by a digit (a coordinate "7158.18", a thousands group).

What it cannot do: it cannot tell an id from another number of the same digits (a spawn GUID, a
quest or spell id, a client build "(12340)"); only the tie decides, so such a number counts only
when it equals the identity of exactly one same-name candidate.
"""

import re
from collections.abc import Mapping

from vba_assets.domain.resolution.models import MentionCitation

#: A number of its own (see the module docstring); group 1 is its digits.
WRITTEN_NUMBER = re.compile(r"(?<![\w=/.,])([0-9]{1,9})(?![\w]|[.,][0-9])")
_DIGITS = re.compile(r"[0-9]{1,9}")


def written_identity(quote: str) -> int | None:
    """The identity ``quote`` writes when it is digits only (a cited written number), else
    None."""
    return int(quote) if _DIGITS.fullmatch(quote) else None


def written_at(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a written number of its own (the context around it
    included)."""
    match = WRITTEN_NUMBER.match(text, start)
    return match is not None and match.end() == end


def written_span_problem(span: MentionCitation, sources: Mapping[str, str]) -> str | None:
    """Why a cited span of digits is no written identity in its source (part of a longer
    number, a word, a version or a URL); None when it is one, or is no number at all."""
    if written_identity(span.quote) is None:
        return None
    if written_at(sources.get(span.source, ""), span.start, span.end):
        return None
    return (
        f"the number {span.quote!r} is part of a longer number, word, version or URL: a written "
        "identity is a number of its own"
    )
