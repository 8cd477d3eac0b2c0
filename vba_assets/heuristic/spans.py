"""Candidate name spans of a report, with exact offsets (the heuristic's grounding step).

The spans are read from the words of :mod:`.source_words`, which also decides what is never read
(headings, template labels, hidden markup; bracketed words are never part of a run). Every offset
is a code-point index into the source text, so ``text[start:end] == span.text`` always holds. What
is extracted:

* **capitalized runs**: consecutive capitalized words on one line, allowing up to two lower-case
  particles inside ("Avatar of Hakkar"), apostrophes and hyphens inside words ("Kael'thas",
  "Pint-Sized"); stop words (``I``, ``The``), calendar words and words with digits end a run;
* **sub-runs** of a run split at its particles ("Catch the Wild Wolpertinger" -> "Wild
  Wolpertinger") or after a zone word ("Black Temple Illidan Stormrage" -> "Black Temple",
  "Illidan Stormrage");
* **singulars inside plurals**: "Wolpertingers" -> the span "Wolpertinger" inside it;
* **possessive stems**: "Goldark's" -> "Goldark";
* **quoted strings** of at most six words ("...", “...”, „...“, «...»).

A span never crosses a line break, a zero-width or bidi control character
(:data:`~vba_assets.domain.case.text.FORMAT_CONTROL_CODEPOINTS`) or punctuation other than an
in-word apostrophe or hyphen.

What this cannot do: it knows no grammar. A sentence-initial capitalized word that is not a stop
word ("Killed Harpoon Master Yavus") stays in the run (a shorter variant without it is offered when
it looks like a verb, "-ed"/"-ing"); German capitalizes every noun, so without the catalog pass a
German report yields many non-name spans; lower-case names are found only by the catalog pass.
"""

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from vba_assets.domain.case.text import has_format_control
from vba_assets.domain.resolution.models import MentionCitation
from vba_assets.domain.text_budget import check_budget
from vba_assets.heuristic.lexicon import PARTICLES, ZONE_WORDS, is_stopword
from vba_assets.heuristic.source_words import (
    APOSTROPHES,
    JOINERS,
    SourceText,
    Token,
    name_gap,
    plain_gap,
    tokenize_source,
)

#: What other modules import from here (the words of a source live in :mod:`.source_words`; the
#: names they import from here are kept importable).
__all__ = [
    "JOINERS",
    "SourceText",
    "Span",
    "Token",
    "capitalized_runs",
    "extract_spans",
    "has_format_control",
    "name_gap",
    "plain_gap",
    "tokenize_source",
]

_MAX_PARTICLES = 2
_MAX_QUOTED_WORDS = 6
_MAX_SPAN_CHARS = 100
_QUOTED = re.compile(r'"([^"\n]{1,200})"|“([^”\n]{1,200})”|„([^“”\n]{1,200})[“”]|«([^»\n]{1,200})»')
_TRAILING_PUNCTUATION = ".,;:!?…"
_WORD = re.compile(r"[^\W_]+(?:['’ʼ‘-][^\W_]+)*")
_VERB_LIKE = re.compile(r"^[A-ZÄÖÜ][a-zäöüß]+(?:ed|ing)$")


@dataclass(frozen=True)
class Span:
    """A candidate name: an exact span of a source and how it was found."""

    source: str
    order: int
    start: int
    end: int
    text: str
    kind: str
    words: int
    weak: bool = False
    initial: bool = False
    #: A possessive glued to a capitalized word: part of a place or item name ("Thoradin's Wall").
    compound: bool = False
    #: Where the name as written ends when the span is only its uninflected part
    #: ("Wilde" of "Wilden Wolpertinger"); None when it is the span's own end.
    extent_end: int | None = None
    #: The catalogs whose names an inflected span matched (see :mod:`.inflection`).
    found_in: tuple[str, ...] = ()

    def citation(self) -> MentionCitation:
        """This span as a plan's mention citation (source, quote, offsets)."""
        return MentionCitation(source=self.source, quote=self.text, start=self.start, end=self.end)

    def with_compound(self, compound: bool) -> "Span":
        """This span with :attr:`compound` set."""
        return replace(self, compound=compound)

    @property
    def proper(self) -> bool:
        """Capitalization marks it as a name: several words, or one capitalized word that does not
        start a sentence (a sentence-initial "Chat" is no evidence), or a quoted string."""
        if self.kind == "quoted":
            return True
        if self.text == self.text.lower():
            return False
        return self.words > 1 or not self.initial

    @property
    def extent(self) -> int:
        """The end of the name as written (:attr:`extent_end`, else :attr:`end`)."""
        return self.end if self.extent_end is None else self.extent_end

    @property
    def position(self) -> tuple[int, int, int]:
        """Sort key: source order, start, then longer spans first."""
        return (self.order, self.start, -self.end)


def _name_word(token: Token) -> bool:
    stem = token.text if token.possessive_end is None else token.text[:-2]
    return (
        token.capitalized
        and not token.has_digit
        and not token.enclosed
        and not is_stopword(stem)
        and not is_stopword(token.text)
    )


def _particle(token: Token) -> bool:
    return not token.capitalized and token.text.casefold() in PARTICLES and not token.enclosed


def capitalized_runs(source: SourceText) -> Iterator[list[Token]]:
    """Maximal runs of capitalized name words (particles only inside, possessive only last)."""
    tokens = source.tokens
    index = 0
    while index < len(tokens):
        if not _name_word(tokens[index]):
            index += 1
            continue
        run = [tokens[index]]
        cursor = index + 1
        while tokens[cursor - 1].possessive_end is None and cursor < len(tokens):
            particles = 0
            probe = cursor
            while (
                probe < len(tokens)
                and particles < _MAX_PARTICLES
                and _particle(tokens[probe])
                and plain_gap(source.text, tokens[probe - 1], tokens[probe])
            ):
                particles += 1
                probe += 1
            if (
                probe < len(tokens)
                and _name_word(tokens[probe])
                and plain_gap(source.text, tokens[probe - 1], tokens[probe])
            ):
                run.extend(tokens[cursor : probe + 1])
                cursor = probe + 1
            else:
                break
        yield run
        index = cursor


def _span(
    source: SourceText,
    start: int,
    end: int,
    kind: str,
    weak: bool = False,
    initial: bool = False,
) -> Span | None:
    text = source.text[start:end]
    if not text or len(text) > _MAX_SPAN_CHARS or has_format_control(text) or "\n" in text:
        return None
    words = sum(1 for _ in _WORD.finditer(text))
    return Span(source.alias, source.order, start, end, text, kind, words, weak, initial)


def _singular_end(token: Token) -> int | None:
    """End of the singular inside a plural-looking last word ("Wolpertingers" -> "Wolpertinger")."""
    word = token.text
    if token.possessive_end is not None or len(word) < 4 or not word.endswith("s"):
        return None
    if word.endswith(("ss", "us", "is")) or word[-2] in APOSTROPHES:
        return None
    return token.end - 1


def _particle_groups(run: list[Token]) -> list[list[Token]]:
    groups: list[list[Token]] = [[]]
    for token in run:
        if _particle(token):
            groups.append([])
        else:
            groups[-1].append(token)
    return [group for group in groups if group]


def _run_spans(source: SourceText, run: list[Token]) -> Iterator[Span | None]:
    last = run[-1]
    end = last.possessive_end or last.end
    first = run[0]
    initial = first.sentence_initial
    leading_verb = initial and len(run) > 1 and bool(_VERB_LIKE.match(first.text))
    cuts = [
        index
        for index, token in enumerate(run[:-1])
        if token.text.casefold() in ZONE_WORDS and not _particle(run[index + 1])
    ]
    yield _span(source, first.start, end, "run", leading_verb or bool(cuts), initial)
    if leading_verb:
        tail = next((t for t in run[1:] if not _particle(t)), None)
        if tail is not None:
            yield _span(source, tail.start, end, "run_tail")
    singular = _singular_end(last)
    if singular is not None:
        yield _span(source, first.start, singular, "singular", leading_verb or bool(cuts), initial)
    for index in cuts:
        # "Black Temple Illidan Stormrage": a place name glued to the next name.
        yield _span(source, first.start, run[index].end, "subrun", initial=initial)
        yield _span(source, run[index + 1].start, end, "subrun")
    groups = _particle_groups(run)
    if len(groups) > 1:
        for group in groups:
            group_end = group[-1].possessive_end or group[-1].end
            group_initial = group[0].sentence_initial
            yield _span(source, group[0].start, group_end, "subrun", initial=group_initial)
            if group[-1] is last and singular is not None:
                yield _span(source, group[0].start, singular, "singular", initial=group_initial)


def _quoted_spans(source: SourceText) -> Iterator[Span | None]:
    for match in _QUOTED.finditer(source.text):
        group = next(index for index in range(1, 5) if match.group(index) is not None)
        start, end = match.start(group), match.end(group)
        if source.markup is not None and source.markup.is_hidden(start, end):
            continue
        while start < end and source.text[start].isspace():
            start += 1
        while end > start and (
            source.text[end - 1].isspace() or source.text[end - 1] in _TRAILING_PUNCTUATION
        ):
            end -= 1
        content = source.text[start:end]
        words = content.split()
        if not words or len(words) > _MAX_QUOTED_WORDS or not any(c.isalpha() for c in content):
            continue
        if all(is_stopword(word) for word in words):
            continue
        yield _span(source, start, end, "quoted")


def extract_spans(sources: Sequence[SourceText]) -> list[Span]:
    """Every candidate span of the sources, deduplicated, in reading order."""
    found: dict[tuple[str, int, int], Span] = {}
    for source in sources:
        candidates: list[Span | None] = []
        for run in capitalized_runs(source):
            check_budget()
            candidates.extend(_run_spans(source, run))
        candidates.extend(_quoted_spans(source))
        for span in candidates:
            if span is None:
                continue
            key = (span.source, span.start, span.end)
            previous = found.get(key)
            if previous is None or (previous.weak and not span.weak):
                found[key] = span
    return sorted(found.values(), key=lambda s: (s.position, s.kind))
