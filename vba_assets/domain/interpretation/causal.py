"""Causal and diagnostic wording in the reporters' languages (protocol v6, issue 29 item 6).

The seed's rule: a database fact is not proof of a defect, and the interpretation states what was
reported and looked up, never why. Protocols v1-v5 refuse the English phrases of
:data:`~vba_assets.domain.interpretation.rules.CAUSAL_PHRASES` only; from v6
(``ProtocolSpec.multilingual_causal``) the same rule covers the languages the relative dates
support (:mod:`.date_phrases`) and Polish: :data:`CAUSAL_WORDS` is the table, one row per
language. The English row is ``CAUSAL_PHRASES`` itself, so an English text gets the same verdict
under every protocol.

Matching (:func:`causal_words`) is one pass of one compiled pattern over the text (its cost is the
text's length times the fixed table, ARCHITECTURE 14), case-insensitive:

* words of alphabetic scripts (Latin, Cyrillic) match as whole words: no letter or digit
  (``\\w``, which is Unicode-aware) right before or after, and the spaces between a phrase's words
  may be any run of whitespace; ``из-за`` is one word with its hyphen;
* Chinese and Korean phrases match anywhere: Chinese has no spaces, and Korean attaches the
  particle to the word before it (``DB때문에``), so there is no boundary to test.

The entries are chosen so that they do not collide with words of the other languages (the text's
language is not detected): French ``car`` (because) and Polish ``bo`` are left out, because the
English ``car`` and the name ``Bo`` would be refused too.

**Quotes of the report are report content, not the interpretation's claim.** A phrase inside a
quoted passage that occurs verbatim in a readable source is not counted: the reporter's own
"weil die DB falsch ist" quoted in an observation is what the report says. Quote marks are those
of the covered languages: ``"..."``, ``“...”``, ``„...“``/``„...”``, ``«...»``, ``»...«``,
``‚...‘``, ``「...」`` and ``『...』``. A quote that is not verbatim report text (paraphrased, or
the interpretation's own words in quote marks) is checked like any other text.
"""

import re
from collections.abc import Sequence
from typing import NamedTuple

from vba_assets.domain.text_budget import check_budget

#: Causal and diagnostic phrases (English, case-insensitive, whole words) refused in the
#: restatement, the observations and the sub-tasks under every protocol: causes, hypotheses and
#: fixes belong to the next phase. Deliberately short so plain descriptions pass ("does not
#: appear", "cannot find"). Also the ``en`` row of :data:`CAUSAL_WORDS`.
CAUSAL_PHRASES = (
    "because",
    "caused by",
    "due to",
    "as a result of",
    "results from",
    "resulting from",
    "root cause",
    "the cause is",
    "the reason is",
    "the bug is",
    "the problem is that",
    "should be fixed",
    "must be fixed",
    "needs to be fixed",
    "the fix is",
    "missing spawn",
    "missing spawns",
    "spawn is missing",
    "spawns are missing",
)

#: Causal and diagnostic phrases per language (protocol v6; case-insensitive; whole words outside
#: zh/ko). A phrase two languages share is listed once, under the first (``porque``: es).
CAUSAL_WORDS: dict[str, tuple[str, ...]] = {
    "en": CAUSAL_PHRASES,
    "de": (
        "weil", "wegen", "aufgrund", "auf grund", "verursacht", "verursacht durch", "liegt daran",
        "die ursache", "ursache ist", "der grund ist", "der fehler ist", "das problem ist",
        "muss behoben werden", "sollte behoben werden", "muss gefixt werden", "fehlender spawn",
        "fehlende spawns", "spawn fehlt", "spawns fehlen",
    ),
    "es": (
        "porque", "debido a", "a causa de", "por culpa de", "causado por", "causada por",
        "la causa es", "la razón es", "el error es", "el problema es que", "hay que arreglar",
        "debe ser corregido", "debe arreglarse", "falta el spawn", "faltan los spawns",
    ),
    "fr": (
        "parce que", "parce qu", "à cause de", "à cause du", "en raison de", "causé par",
        "causée par", "dû à", "due à", "la cause est", "la raison est", "le bug est",
        "le problème est que", "doit être corrigé", "il faut corriger", "spawn manquant",
        "spawns manquants",
    ),
    "pt": (
        "devido a", "por causa de", "a causa é",
        "a razão é", "o bug é", "o problema é que", "deve ser corrigido", "precisa ser corrigido",
        "spawn faltando", "falta o spawn",
    ),
    "ru": (
        "потому что", "так как", "из-за", "вследствие", "вызвано", "вызван", "вызвана",
        "причина в", "причина в том", "причиной", "ошибка в том", "проблема в том",
        "нужно исправить", "надо исправить", "должно быть исправлено", "нет спавна",
        "отсутствует спавн",
    ),
    "pl": (
        "ponieważ", "dlatego że", "z powodu", "spowodowane przez", "spowodowany przez",
        "przyczyną jest", "przyczyna to", "błąd polega na", "problem polega na",
        "trzeba naprawić", "należy naprawić", "brak spawnu",
    ),
    "zh": (
        "因为", "因為", "由于", "由於", "导致", "導致", "造成的", "原因是", "根本原因",
        "应该修复", "應該修復", "需要修复", "需要修復", "缺少刷新",
    ),
    "ko": ("때문에", "때문이", "원인은", "원인이", "로 인해", "으로 인해", "수정해야", "고쳐야"),
}  # fmt: skip

_UNSPACED = frozenset({"zh", "ko"})


class CausalHit(NamedTuple):
    """One causal phrase found: exactly ``text[start:end]`` and the table row it matched."""

    words: str
    language: str


def _phrase(phrase: str) -> str:
    return r"\s+".join(map(re.escape, phrase.split()))


def _first_characters(languages: Sequence[str]) -> str:
    firsts = {
        case(p[0])
        for lang in languages
        for p in CAUSAL_WORDS[lang]
        for case in (str.lower, str.upper)
    }
    return "".join(re.escape(char) for char in sorted(firsts))


def _compile() -> tuple[re.Pattern[str], list[str]]:
    """One alternation, a named group per language (longest phrases first within a row).

    The whole-word languages share one branch that starts with the word boundary and a class of
    their phrases' first characters, the unspaced ones a branch behind the class of theirs: a
    position inside a word, or where no phrase starts, costs a test or two, not a try per phrase.
    """
    spaced = [lang for lang in CAUSAL_WORDS if lang not in _UNSPACED]
    unspaced = [lang for lang in CAUSAL_WORDS if lang in _UNSPACED]

    def groups(languages: Sequence[str]) -> str:
        return "|".join(
            f"(?P<{lang}>{'|'.join(_phrase(p) for p in sorted(CAUSAL_WORDS[lang], key=len, reverse=True))})"
            for lang in languages
        )

    pattern = (
        rf"(?<!\w)(?=[{_first_characters(spaced)}])(?:{groups(spaced)})(?!\w)"
        rf"|(?=[{_first_characters(unspaced)}])(?:{groups(unspaced)})"
    )
    return re.compile(pattern, re.IGNORECASE), [*spaced, *unspaced]


_CAUSAL, _LANGUAGES = _compile()
#: Quoted passages (module docstring): the inner text is one of the groups.
_QUOTED = re.compile(
    r"\"([^\"\n]+)\"|“([^”\n]+)”|„([^“”\n]+)[“”]|«([^»\n]+)»|»([^«\n]+)«|‚([^‘\n]+)‘"
    r"|「([^」\n]+)」|『([^』\n]+)』"
)


def blank_report_quotes(text: str, sources: Sequence[str]) -> str:
    """``text`` with every quoted passage that occurs verbatim in ``sources`` blanked (spaces)."""

    def blank(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        return " " * len(match.group(0)) if any(inner in s for s in sources) else match.group(0)

    return _QUOTED.sub(blank, text)


def causal_words(text: str, sources: Sequence[str] = ()) -> list[CausalHit]:
    """The :data:`CAUSAL_WORDS` in ``text``, outside quotes copied verbatim from ``sources``."""
    check_budget()  # per text of the reply, each searched for every source's quotes
    return [
        CausalHit(match.group(0), next(lang for lang in _LANGUAGES if match.group(lang)))
        for match in _CAUSAL.finditer(blank_report_quotes(text, sources))
    ]


def causal_texts(text: str, sources: Sequence[str] = ()) -> list[str]:
    """The words of :func:`causal_words` (the v6 counterpart of ``rules.causal_phrases``)."""
    return [hit.words for hit in causal_words(text, sources)]
