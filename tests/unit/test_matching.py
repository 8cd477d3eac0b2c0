"""Match tiers, normalization, tokenization and the one deterministic ranking (ARCHITECTURE 6.3)."""

import random
from collections.abc import Sequence
from typing import Any

import pytest

from vba_assets.domain.catalog.matching import (
    MatchTier,
    RankedCandidate,
    match_tier,
    rank_key,
    rank_search_results,
    rank_suggestions,
)
from vba_assets.domain.catalog.names import (
    fold_accents,
    normalize_for_match,
    split_tokens,
    tokenize,
)
from vba_assets.domain.catalog.suggestions import suggestion_score
from vba_assets.domain.catalog.world import CatalogRow, SearchResult, SnapshotBinding

SNAPSHOT = SnapshotBinding(label="test", backend="sqlite", schema_fingerprint="0" * 64)


def result(
    catalog: str,
    term: str,
    rows: Sequence[tuple[int | str, str] | CatalogRow],
    *,
    kind: str = "name",
    entity_type: str = "creature",
    truncated: bool = False,
) -> SearchResult:
    catalog_rows = [
        row if isinstance(row, CatalogRow) else CatalogRow(identity=row[0], name=row[1])
        for row in rows
    ]
    return SearchResult(
        catalog=catalog,
        entity_type=entity_type,
        catalog_kind=kind,
        term=term,
        sql="SELECT ...",
        parameters={"term": term},
        snapshot=SNAPSHOT,
        row_limit=10,
        truncated=truncated,
        rows=catalog_rows,
        elapsed_ms=0.1,
        coverage_notes=[],
    )


# --- normalization and tokens ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Wild   Wolpertinger ", "wild wolpertinger"),
        ("Kael’thas", "kael'thas"),
        ("Kael‘thas", "kael'thas"),
        ("Kaelʼthas", "kael'thas"),
        ("Ｔｈｒａｌｌ", "thrall"),  # NFKC folds fullwidth letters
        ("Straße", "strasse"),  # casefold, not lower
        ("苟達克‧狙獵者", "苟達克·狙獵者"),
        ("苟達克・狙獵者", "苟達克·狙獵者"),
        ("Wild\tWolpertinger\n", "wild wolpertinger"),
    ],
)
def test_normalize_for_match_folds_case_width_punctuation_and_space(
    raw: str, expected: str
) -> None:
    assert normalize_for_match(raw) == expected


def test_normalize_keeps_zero_width_and_bidi_characters() -> None:
    assert normalize_for_match("Wild\u200bWolpertinger") == "wild\u200bwolpertinger"
    assert normalize_for_match("\u202eThrall") == "\u202ethrall"


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Kael'thas Sunstrider", ["kael'thas", "sunstrider"]),
        ("Kael’thas", ["kael'thas"]),
        ("Half-Orc Brute", ["half-orc", "brute"]),
        ("Thrall's Hero Music", ["thrall's", "hero", "music"]),
        ("Дикий зайцелоп", ["дикий", "зайцелоп"]),
        ("야생 노루토끼", ["야생", "노루토끼"]),
        ("野生鹿角兔", ["野生鹿角兔"]),
        ("葛达克·猎枪", ["葛达克", "猎枪"]),
        ("Young Thrall (Equipped) (1)", ["young", "thrall", "equipped", "1"]),
        ("50% off_sale", ["50", "off", "sale"]),
        ("' OR 1=1 --", ["or", "1", "1"]),
        ("-dash- 'quote'", ["dash", "quote"]),
        ("?!...", []),
        ("%%", []),
        ("___", []),
        ("\u200b\u200f", []),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_format_characters_stay_inside_a_token() -> None:
    # A zero-width space does not split a word, so the token equals no clean token.
    assert tokenize("Wild\u200bWolpertinger") == ["wild\u200bwolpertinger"]
    assert split_tokens("Thrall\u200f") == ["Thrall\u200f"]


def test_fold_accents() -> None:
    assert fold_accents(normalize_for_match("Émile Chassebécasse")) == "emile chassebecasse"


# --- tiers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name", "localized", "tier"),
    [
        ("Wild Wolpertinger", "Wild Wolpertinger", False, MatchTier.EXACT_NAME),
        ("wild  WOLPERTINGER", "Wild Wolpertinger", False, MatchTier.EXACT_NAME),
        ("Wilder Wolpertinger", "Wilder Wolpertinger", True, MatchTier.EXACT_LOCALIZED_NAME),
        ("Kael’thas Sunstrider", "Kael'thas Sunstrider", False, MatchTier.EXACT_NAME),
        ("苟達克·狙獵者", "苟達克‧狙獵者", True, MatchTier.EXACT_LOCALIZED_NAME),
        ("Goldark", "Goldark Snipehunter", False, MatchTier.WHOLE_PHRASE),
        ("Thrall Event", "Thrall Event Generator", False, MatchTier.WHOLE_PHRASE),
        ("Equipped Young Thrall", "Young Thrall (Equipped)", False, MatchTier.ALL_TOKENS),
        ("thrall", "Thrall's Hero Music", False, MatchTier.ALL_TOKENS),
        ("wild-wolpertinger", "Wild Wolpertinger", False, MatchTier.ALL_TOKENS),
        ("Thrall", "Thrallmar Grunt", False, MatchTier.SUBSTRING),
        ("wolperting", "Wild Wolpertinger", False, MatchTier.SUBSTRING),
        ("chassebecasse", "Archedor Chassebécasse", True, MatchTier.SUBSTRING),
        ("тралл", "Тралл", True, MatchTier.EXACT_LOCALIZED_NAME),
        ("Goldark", "Glodrak Huntsniper", False, None),
        ("?!", "Thrall", False, None),
        ("", "Thrall", False, None),
    ],
)
def test_match_tier(query: str, name: str, localized: bool, tier: MatchTier | None) -> None:
    assert match_tier(query, name, localized=localized) == tier


@pytest.mark.parametrize(
    "query",
    [
        "Wild\u200bWolpertinger",
        "Wild\u200b Wolpertinger",
        "\u202eThrall",
        "Thr\u200dall",
        "Thrall\u200f",
    ],
)
def test_hidden_characters_never_match_a_clean_name(query: str) -> None:
    for name in ("Wild Wolpertinger", "Thrall", "Thrall's Hero Music"):
        assert match_tier(query, name, localized=False) is None


def test_tiers_order_from_best_to_worst() -> None:
    assert list(MatchTier) == sorted(MatchTier)
    assert MatchTier.EXACT_NAME < MatchTier.EXACT_LOCALIZED_NAME < MatchTier.WHOLE_PHRASE
    assert MatchTier.WHOLE_PHRASE < MatchTier.ALL_TOKENS < MatchTier.SUBSTRING
    assert MatchTier.ALL_TOKENS.label == "all_tokens"


# --- rank keys ---------------------------------------------------------------------------------


def test_rank_key_breaks_ties_by_length_then_name_then_identity() -> None:
    keys: list[tuple[str, int | str]] = [
        ("Thrall", 35368),
        ("Thrall", 4949),
        ("thrall", 17),
        ("Thrall (1)", 20548),
        ("Thrall", "4949"),
        ("Thrall", 10),
    ]
    ordered = sorted(keys, key=lambda k: rank_key(MatchTier.EXACT_NAME, k[0], k[1]))
    # same normalized name: raw "Thrall" < "thrall" (code points), then ints numerically, then str
    assert ordered == [
        ("Thrall", 10),
        ("Thrall", 4949),
        ("Thrall", 35368),
        ("Thrall", "4949"),
        ("thrall", 17),
        ("Thrall (1)", 20548),
    ]


def test_rank_key_puts_tier_before_length() -> None:
    exact_long = rank_key(MatchTier.EXACT_NAME, "A very long exact name", 9)
    substring_short = rank_key(MatchTier.SUBSTRING, "Ab", 1)
    assert exact_long < substring_short


# --- rank_search_results -----------------------------------------------------------------------


def _results() -> list[SearchResult]:
    names = result(
        "creature_name",
        "Wolpertinger",
        [
            (23487, "Wild Wolpertinger"),
            (22943, "Wolpertinger"),
            (90001, "Wolpertinger Trainer"),
            (90002, "Wolpertinger Trainer"),
        ],
    )
    localized = result(
        "creature_localized_name",
        "Wolpertinger",
        [
            CatalogRow(identity=22943, name="Wolpertinger", data={"locale": "frFR"}),
            CatalogRow(identity=22943, name="Wolpertinger", data={"locale": "deDE"}),
            CatalogRow(identity=23487, name="Wilder Wolpertinger", data={"locale": "deDE"}),
            CatalogRow(identity=23487, name="Wolpertinger salvaje", data={"locale": "esES"}),
            CatalogRow(identity=90003, name="Petit Wolpertinger", data={"locale": "frFR"}),
        ],
        kind="localized_name",
    )
    quests = result("quest_title", "Wolpertinger", [(23487, "Wolpertinger")], entity_type="quest")
    return [names, localized, quests]


def _view(candidates: list[RankedCandidate], results: list[SearchResult]) -> list[Any]:
    """Everything but row indices, plus the content each pointer resolves to."""
    by_search = {(r.catalog, r.term): r for r in results}

    def resolve(catalog: str, term: str, index: int) -> tuple[Any, ...]:
        row = by_search[(catalog, term)].rows[index]
        return (catalog, row.identity, row.name, tuple(sorted(row.data.items())))

    return [
        (
            c.model_dump(exclude={"source_index", "also_matched"}),
            resolve(c.catalog, c.term, c.source_index),
            [(r.tier, r.name, resolve(r.catalog, r.term, r.source_index)) for r in c.also_matched],
        )
        for c in candidates
    ]


def test_rank_search_results_ranks_and_collapses_identities() -> None:
    ranked = rank_search_results("Wolpertinger", _results())
    summary = [(c.entity_type, c.identity, c.name, c.tier, c.catalog) for c in ranked]
    assert summary == [
        ("creature", 22943, "Wolpertinger", MatchTier.EXACT_NAME, "creature_name"),
        # a quest with the same id and name is another entity (and an exact name too)
        ("quest", 23487, "Wolpertinger", MatchTier.EXACT_NAME, "quest_title"),
        ("creature", 23487, "Wild Wolpertinger", MatchTier.WHOLE_PHRASE, "creature_name"),
        (
            "creature",
            90003,
            "Petit Wolpertinger",
            MatchTier.WHOLE_PHRASE,
            "creature_localized_name",
        ),
        ("creature", 90001, "Wolpertinger Trainer", MatchTier.WHOLE_PHRASE, "creature_name"),
        ("creature", 90002, "Wolpertinger Trainer", MatchTier.WHOLE_PHRASE, "creature_name"),
    ]
    first = ranked[0]
    assert [(r.catalog, r.tier) for r in first.also_matched] == [
        ("creature_localized_name", MatchTier.EXACT_LOCALIZED_NAME)
    ] * 2
    # Every pointer leads back to its capture row.
    results = {(r.catalog, r.term): r for r in _results()}
    for candidate in ranked:
        row = results[(candidate.catalog, candidate.term)].rows[candidate.source_index]
        assert (row.identity, row.name, row.data) == (
            candidate.identity,
            candidate.name,
            candidate.data,
        )
    # The localized rows of 22943 are ranked by data (deDE before frFR), not by row order.
    localized = results[("creature_localized_name", "Wolpertinger")]
    pointed = [localized.rows[r.source_index].data["locale"] for r in first.also_matched]
    assert pointed == ["deDE", "frFR"]


def test_an_entity_is_shown_by_its_primary_name_at_the_same_tier() -> None:
    ranked = rank_search_results(
        "Goldark",
        [
            result("creature_name", "Goldark", [(23486, "Goldark Snipehunter")]),
            result(
                "creature_localized_name",
                "Goldark",
                [(23486, "Goldark Novatada"), (23486, "Goldark Spatzenjäger")],
                kind="localized_name",
            ),
        ],
    )
    assert len(ranked) == 1
    assert (ranked[0].name, ranked[0].catalog) == ("Goldark Snipehunter", "creature_name")
    assert sorted(r.name for r in ranked[0].also_matched) == [
        "Goldark Novatada",
        "Goldark Spatzenjäger",
    ]


def test_rows_that_do_not_match_are_left_out() -> None:
    ranked = rank_search_results(
        "Goldark", [result("creature_name", "Goldark", [(24657, "Glodrak Huntsniper")])]
    )
    assert ranked == []


@pytest.mark.parametrize("seed", range(8))
def test_rank_search_results_ignores_row_and_result_order(seed: int) -> None:
    rng = random.Random(seed)
    baseline_results = _results()
    baseline = _view(rank_search_results("Wolpertinger", baseline_results), baseline_results)
    shuffled = []
    for item in baseline_results:
        rows = list(item.rows)
        rng.shuffle(rows)
        shuffled.append(item.model_copy(update={"rows": rows}))
    rng.shuffle(shuffled)
    assert _view(rank_search_results("Wolpertinger", shuffled), shuffled) == baseline


# --- suggestions -------------------------------------------------------------------------------


def test_suggestion_score_counts_covered_words_and_extra_tokens() -> None:
    score = suggestion_score(["wild", "wolpertingr"], "Wild Wolpertinger")
    assert score.covered_words == 2 and score.extra_tokens == 0
    assert 1.9 < score.similarity < 2.0
    weaker = suggestion_score(["wild", "wolpertingr"], "Wild Boar Piglet")
    assert (weaker.covered_words, weaker.similarity, weaker.extra_tokens) == (1, 1.0, 2)
    assert suggestion_score(["wolpertingr"], "Ingram").covered_words == 0


def test_rank_suggestions_prefers_coverage_then_fewer_extra_tokens_then_similarity() -> None:
    rows = [
        (1, "Thrall's Hero Music"),
        (2, "Warchief Thrall Statue"),
        (3, "Thrall"),
        (4, "Thrallmar Grunt"),
        (5, "Durotar Warchief"),
        (6, "Boar"),
    ]
    results = [result("creature_name", "thrall", rows)]
    ranked = rank_suggestions("thrall warchief", results)
    assert [s.identity for s in ranked] == [2, 3, 5, 4, 1]
    assert ranked[0].covered_words == ranked[0].query_words == 2
    reordered = [result("creature_name", "thrall", list(reversed(rows)))]
    assert [s.identity for s in rank_suggestions("thrall warchief", reordered)] == [2, 3, 5, 4, 1]
