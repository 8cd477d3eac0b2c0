"""One search per distinct creature (step 5 of the heuristic plan, :mod:`.planning`).

Two terms of a report may aim at the same creature: its English and its localized name ("Marshal
Dughan", "Marschall Dughan"), a name and a misspelled repeat of it narrowed to the part a catalog
name contains, a name and a link to its database page. Searching both spends a search of
``max_searches`` on a creature already searched while another creature of the report goes
unsearched (issue 29: "one search per distinct creature"). :func:`distinct_first` keeps the
ranked order but moves such repeats behind every other term: they are still searched when the
budget allows, and still cited then.

What it cannot do: it knows a term's creature only from what the plan already knows (a link, a
misspelling's closest name, exact catalog matches that all name one identity); two spellings that
name several same-name entities ("Mograine") are not recognised as one.
"""

from collections.abc import Sequence

from vba_assets.heuristic.terms import Term


def identities(term: Term) -> frozenset[int | str]:
    """The creature identities a search for ``term`` is known to aim at: its linked identity, the
    name its misspelled mention is closest to, or the one identity its exact catalog matches name
    (empty when the term may mean several creatures)."""
    if term.reference is not None:
        return frozenset({term.reference.identity})
    if term.misspelling is not None:
        return frozenset({term.misspelling.identity})
    found = {identity for ids in term.exact.values() for identity in ids}
    return frozenset(found) if len(found) == 1 else frozenset()


def distinct_first(ranked: Sequence[Term]) -> list[Term]:
    """One search per distinct creature: a term whose every identity an earlier term already aims
    at (the English and the localized name of one creature, a name and its misspelled repeat)
    moves behind all other terms, so it is searched only when the budget is not needed for another
    creature."""
    seen: set[int | str] = set()
    first: list[Term] = []
    repeats: list[Term] = []
    for term in ranked:
        aimed = identities(term)
        if aimed and aimed <= seen:
            repeats.append(term)
            continue
        seen.update(aimed)
        first.append(term)
    return first + repeats
