"""Near misses: what to search and how to score names when nothing matched (ARCHITECTURE 11).

When no catalog name matches a whole query, the lookup tool makes a bounded number of probe
searches (:func:`probe_plan`): the query's words (longest first) and, for each word that no name
contains, its leading and then its trailing n-gram, which survive a typo elsewhere in the word. At
most :data:`MAX_PROBE_TERMS` probe terms are searched, each of at least
:data:`MIN_PROBE_CHARS` characters, so a misspelling costs at most ``MAX_PROBE_TERMS`` searches per
catalog, and each one can use the trigram index of the embedded demo DB.

Every row the searches return is scored by how many of the query's words it covers
(:func:`suggestion_score`), with RapidFuzz's InDel similarity (``2 * LCS / (len a + len b)``, the
ratio ``difflib`` approximates with its greedy matching blocks, computed in C);
:func:`.matching.rank_suggestions` ranks the scored rows with the same entity grouping as the
match ranking. Scores are pure functions of the two strings, so the ranking stays deterministic.
"""

from collections.abc import Callable, Iterator, Sequence
from typing import Literal, NamedTuple

from rapidfuzz.distance import Indel

from vba_assets.domain.catalog.names import split_tokens, token_parts, tokenize, unify_punctuation

#: At most this many probe terms are searched on a miss (each on every catalog in scope).
MAX_PROBE_TERMS = 4
#: Length of a spelling probe (the leading or trailing n-gram of a word).
SPELLING_NGRAM = 4
#: Shortest probe term: a probe that the trigram index can answer (3 characters or more).
MIN_PROBE_CHARS = 3

ProbePurpose = Literal["word_probe", "spelling_probe"]


class Probe(NamedTuple):
    """One probe search term and why it is searched."""

    term: str
    purpose: ProbePurpose
    #: The query word it comes from.
    word: str


def _ascii_fold(text: str) -> str:
    return "".join(char.lower() if char.isascii() else char for char in text)


def probe_words(query: str) -> list[str]:
    """The query's distinct words of at least :data:`MIN_PROBE_CHARS` characters, longest first
    (ties in query order), as typed: case is kept because not every collation folds case beyond ASCII."""
    words = list(dict.fromkeys(split_tokens(unify_punctuation(query))))
    useful = [word for word in words if len(word) >= MIN_PROBE_CHARS]
    return sorted(useful, key=lambda word: -len(word))


def candidate_probes(query: str, searched: Sequence[str] = ()) -> Iterator[Probe]:
    """Every probe of ``query`` in priority order, before the budget and the hit rule apply.

    First each word itself (``word_probe``, longest word first) unless it was already searched
    (``searched``, compared with ASCII case folded: a one-word query IS its word), then the leading
    :data:`SPELLING_NGRAM`-gram of each word longer than that, then the trailing ones
    (``spelling_probe``). Taking one probe of every word before a second probe of any word lets a
    small budget reach every misspelled word of a name. Duplicates are dropped.
    """
    words = probe_words(query)
    long_words = [word for word in words if len(word) > SPELLING_NGRAM]
    ordered: list[Probe] = [Probe(word, "word_probe", word) for word in words]
    ordered += [Probe(word[:SPELLING_NGRAM], "spelling_probe", word) for word in long_words]
    ordered += [Probe(word[-SPELLING_NGRAM:], "spelling_probe", word) for word in long_words]
    seen = {_ascii_fold(term) for term in searched}
    for probe in ordered:
        if _ascii_fold(probe.term) not in seen:
            seen.add(_ascii_fold(probe.term))
            yield probe


def probe_plan(
    query: str,
    searched: Sequence[str],
    run: Callable[[Probe], bool],
) -> list[Probe]:
    """Search probes of ``query`` until :data:`MAX_PROBE_TERMS` have run; return them in order.

    ``run`` searches one probe (on every catalog in scope) and says whether any row came back.
    A word that some name contains (its word probe returned rows) needs no spelling probes: they
    are skipped, which spends the budget on the words that are actually misspelled.
    """
    done: list[Probe] = []
    found_words: set[str] = set()
    for probe in candidate_probes(query, searched):
        if len(done) >= MAX_PROBE_TERMS:
            break
        if probe.purpose == "spelling_probe" and probe.word in found_words:
            continue
        done.append(probe)
        if run(probe) and probe.purpose == "word_probe":
            found_words.add(probe.word)
    return done


#: A query word counts as covered by a name word at least this similar (InDel similarity).
FUZZY_MIN_RATIO = 0.75


class SuggestionScore(NamedTuple):
    """How well a name covers the query's words (see :func:`suggestion_score`)."""

    covered_words: int
    similarity: float
    extra_tokens: int


def token_similarity(left: str, right: str) -> float:
    """1.0 for equal tokens, else RapidFuzz's normalized InDel similarity, in [0, 1]."""
    if left == right:
        return 1.0
    return float(Indel.normalized_similarity(left, right))


def suggestion_score(query_tokens: Sequence[str], name: str) -> SuggestionScore:
    """Score ``name`` against normalized query tokens, for no-match suggestions.

    A query word is *covered* when some name token (or part of a joined token) has a
    :func:`token_similarity` of at least :data:`FUZZY_MIN_RATIO`; ``similarity`` sums the best
    ratios of the covered words (rounded to 6 places); ``extra_tokens`` counts the name tokens no
    query word used: how much else the name carries. Ties between name tokens go to the first.
    """
    name_tokens = tokenize(name)
    forms = [
        (form, index)
        for index, name_token in enumerate(name_tokens)
        for form in (name_token, *token_parts(name_token))
    ]
    covered = 0
    similarity = 0.0
    used: set[int] = set()
    for query_token in dict.fromkeys(query_tokens):
        best_ratio = 0.0
        best_index = -1
        for form, index in forms:
            ratio = token_similarity(query_token, form)
            if ratio > best_ratio:
                best_ratio, best_index = ratio, index
        if best_ratio >= FUZZY_MIN_RATIO:
            covered += 1
            similarity += best_ratio
            used.add(best_index)
    return SuggestionScore(covered, round(similarity, 6), len(name_tokens) - len(used))
