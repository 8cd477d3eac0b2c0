"""Every evaluation metric on hand-made pipeline results (no pipeline, no database)."""

import json
from pathlib import Path
from typing import Any

import pytest

from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.aggregate import by_language, by_tag, by_tracker, miss_counts, total
from vba_assets.evaluation.comparison import (
    baseline_document,
    compare_markdown,
    compare_results,
    compare_to_baseline,
    load_baseline,
    load_results,
)
from vba_assets.evaluation.counts import (
    BOUNDS,
    CACHE_AND_PRICE_FIGURES,
    COST_FIGURES,
    HIGHER_IS_BETTER,
    LOWER_IS_BETTER,
    Counts,
)
from vba_assets.evaluation.dataset import EvalCase
from vba_assets.evaluation.metrics import covers, primary_search, score_case
from vba_assets.evaluation.observations import CaseObservation, ObservedCall, ObservedSearch
from vba_assets.evaluation.report import EvalReport, RunInfo


def _case(mentions: list[tuple[str, str, int | None]], **extra: Any) -> EvalCase:
    body = " / ".join(surface for surface, _, _ in mentions) or "nothing named"
    return EvalCase.model_validate(
        {
            "id": extra.pop("id", "EV-1"),
            "title": "t",
            "body": body,
            "mentions": [
                {"surface": s, "role": role, "gold_entry": gold} for s, role, gold in mentions
            ],
            **extra,
        }
    )


def _search(sid: str, term: str, role: str = "affected_subject", **kw: Any) -> ObservedSearch:
    return ObservedSearch(search_id=sid, term=term, role=role, **kw)


def test_covers_is_case_insensitive_both_ways_and_nfc() -> None:
    assert covers("wolpertinger", "Wild Wolpertingers")
    assert covers("Goldark Snipehunter", "goldark")
    assert covers("Spatzenja\u0308ger", "Goldark Spatzenjäger")  # NFD term, NFC surface
    assert not covers("Glodrak", "Goldark Snipehunter")
    assert not covers("", "Hogger")


def test_primary_search_is_the_closest_in_length_then_plan_order() -> None:
    short = _search("Q1", "Wolpertinger")
    exact = _search("Q2", "Wild Wolpertinger")
    longer = _search("Q3", "wild wolpertinger net")
    primary, covering = primary_search([short, exact, longer], "Wild Wolpertinger")
    assert primary == exact and covering == [short, exact, longer]
    tie_a, tie_b = _search("Q1", "Hogge"), _search("Q2", "Hoggerx")
    assert primary_search([tie_a, tie_b], "Hogger")[0] == tie_a
    assert primary_search([short], "Hogger") == (None, [])


def test_an_identity_search_covers_the_id_part_of_its_link() -> None:
    """A link-only mention ``npc=2911`` is covered by the search of ``[Quest-NPC](...?npc=2911)``,
    whose term is the link text; not by a search of another id, nor by a plain search."""
    link = "http://datenbank.classic-wow.org/?npc=2911"
    linked = ObservedSearch("Q1", "Quest-NPC", "quest_giver", linked=(2911, link))
    assert primary_search([linked], "npc=2911") == (linked, [linked])
    assert primary_search([linked], "NPC=2911")[0] == linked  # case-insensitive, like covers
    other = ObservedSearch("Q1", "Quest-NPC", "quest_giver", linked=(2912, link))
    assert primary_search([other], "npc=2911") == (None, [])
    plain = _search("Q1", "Quest-NPC")
    assert primary_search([plain], "npc=2911") == (None, [])
    assert primary_search([linked], "npc=29110") == (None, [])  # not in the link
    assert primary_search([linked], "datenbank") == (None, [])  # writes no id


def test_mention_recall_counts_covered_mentions_including_null_gold() -> None:
    case = _case(
        [
            ("Hogger", "affected_subject", 448),
            ("Wolves", "other_context", None),
            ("Dughan", "quest_giver", 240),
        ]
    )
    obs = CaseObservation("EV-1", searches=(_search("Q1", "hogger"), _search("Q2", "the wolves")))
    counts = score_case(case, obs).counts
    assert (counts.mentions, counts.covered) == (3, 2)
    assert counts.rates()["mention_recall"] == pytest.approx(2 / 3)


def test_candidate_recall_at_k_uses_any_covering_search() -> None:
    case = _case(
        [("Wild Wolpertinger", "affected_subject", 23487), ("Hogger", "other_context", 448)]
    )
    searches = (
        _search("Q1", "Wild Wolpertinger", candidates=(22943,)),
        _search("Q2", "Wolpertinger", candidates=("23487", 22943)),  # digit strings count
        _search("Q3", "Hogger", candidates=(36923,)),
    )
    result = score_case(case, CaseObservation("EV-1", searches=searches))
    assert [m.candidate_hit for m in result.mentions] == [True, False]
    rates = result.counts.rates()
    assert rates["candidate_recall_at_k"] == 0.5
    assert rates["candidate_recall_at_k_covered"] == 0.5


def test_outcomes_correct_wrong_abstained_unassessed_missed_sum_to_one() -> None:
    case = _case(
        [
            ("Hogger", "affected_subject", 448),
            ("Marshal Dughan", "quest_giver", 240),
            ("Thrall", "affected_subject", 4949),
            ("Sarkoth", "affected_subject", 3281),
            ("Gornek", "quest_giver", 3143),
        ]
    )
    searches = (
        _search("Q1", "Hogger", status="selected", selected=448, candidates=(448,)),
        _search("Q2", "Marshal Dughan", "quest_giver", status="selected", selected="241"),
        _search("Q3", "Thrall", status="ambiguous", candidates=(4949, 31412)),
        _search("Q4", "Sarkoth", status="unassessed", candidates=(3281,)),
    )
    result = score_case(case, CaseObservation("EV-1", searches=searches))
    assert [m.outcome for m in result.mentions] == [
        "correct",
        "wrong",
        "abstained",
        "unassessed",
        "missed",
    ]
    assert result.mentions[1].selected == 241
    rates = result.counts.rates()
    assert rates["mention_accuracy"] == 0.2
    assert rates["wrong_selection_rate"] == 0.2
    assert rates["abstention_rate"] == 0.2
    assert rates["unassessed_rate"] == 0.2
    assert rates["missed_rate"] == 0.2


def test_no_match_is_an_abstention() -> None:
    case = _case([("Hoggar", "affected_subject", 448)])
    obs = CaseObservation("EV-1", searches=(_search("Q1", "Hoggar", status="no_match"),))
    assert score_case(case, obs).mentions[0].outcome == "abstained"


def test_selection_precision_and_recall_are_entry_sets_per_case() -> None:
    case = _case(
        [
            ("Hogger", "affected_subject", 448),
            ("hogger", "affected_subject", 448),
            ("Marshal Dughan", "quest_giver", 240),
            ("Lich King", "other_context", None),
        ]
    )
    searches = (
        _search("Q1", "Hogger", status="selected", selected=448),
        _search("Q2", "Lich King", status="selected", selected=16980),
        _search("Q3", "Goldshire", status="selected", selected=448),  # same entry counted once
    )
    counts = score_case(case, CaseObservation("EV-1", searches=searches)).counts
    assert (counts.selected_entries, counts.gold_entries, counts.true_positive_entries) == (2, 2, 1)
    rates = counts.rates()
    assert rates["selection_precision"] == 0.5
    assert rates["selection_recall"] == 0.5
    assert rates["null_gold_selection_rate"] == 1.0


def test_role_accuracy_maps_location_context_and_skips_uncovered() -> None:
    case = _case(
        [
            ("Goldark", "quest_giver", 23486),
            ("Dun Morogh", "other_context", None),
            ("Wolpertinger", "affected_subject", 23487),
            ("Brewfest", "other_context", None),
        ]
    )
    searches = (
        _search("Q1", "Goldark", "quest_giver"),
        _search("Q2", "Dun Morogh", "location_context"),
        _search("Q3", "Wolpertinger", "quest_giver"),
    )
    result = score_case(case, CaseObservation("EV-1", searches=searches))
    assert [m.predicted_role for m in result.mentions] == [
        "quest_giver",
        "other_context",
        "quest_giver",
        None,
    ]
    assert result.counts.rates()["role_accuracy"] == pytest.approx(2 / 3)


def test_search_precision_and_unmatched_terms() -> None:
    case = _case([("Hogger", "affected_subject", 448)])
    searches = (_search("Q1", "Hogger"), _search("Q2", "Elwynn"), _search("Q3", "Forest"))
    result = score_case(case, CaseObservation("EV-1", searches=searches))
    assert result.unmatched_terms == ("Elwynn", "Forest")
    assert result.counts.rates()["search_precision"] == pytest.approx(1 / 3)


def test_calls_and_tokens_per_case_from_dispatches() -> None:
    calls = (
        ObservedCall("resolution_plan", "rejected", 100, 20),
        ObservedCall("resolution_plan", "accepted", 120, 30),
        ObservedCall("resolution_assessment", "accepted", 200, None),
        ObservedCall("interpretation", "accepted", 300, 50),
    )
    first = score_case(_case([]), CaseObservation("EV-1", calls=calls))
    second = score_case(_case([], id="EV-2"), CaseObservation("EV-2", calls=calls[1:2]))
    assert first.calls_by_stage == {
        "interpretation": 1,
        "resolution_assessment": 1,
        "resolution_plan": 2,
    }
    assert (first.counts.calls, first.counts.rejected_calls) == (4, 1)
    assert (first.counts.input_tokens, first.counts.output_tokens) == (720, 100)
    assert first.counts.usage_missing == 1
    rates = total([first, second]).rates()
    assert rates["calls_per_case"] == 2.5
    assert rates["tokens_per_case"] == (820 + 150) / 2


def test_blocked_case_keeps_its_mentions_in_every_denominator() -> None:
    case = _case([("Hogger", "affected_subject", 448)])
    blocked = CaseObservation(
        "EV-1", error_code="ENTITY_RESOLUTION_INVALID_RESPONSES", error_message="exhausted"
    )
    result = score_case(case, blocked)
    assert result.error_code == "ENTITY_RESOLUTION_INVALID_RESPONSES"
    assert result.mentions[0].outcome == "missed"
    rates = result.counts.rates()
    assert rates["blocked_rate"] == 1.0
    assert rates["mention_recall"] == 0.0
    assert rates["mention_accuracy"] == 0.0


def test_aggregates_are_micro_averages_and_empty_denominators_are_none() -> None:
    one = score_case(
        _case([("Hogger", "affected_subject", 448)]),
        CaseObservation(
            "EV-1", searches=(_search("Q1", "Hogger", status="selected", selected=448),)
        ),
    )
    four = score_case(
        _case(
            [
                ("Sarkoth", "affected_subject", 3281),
                ("Gornek", "quest_giver", 3143),
                ("Thrall", "other_context", 4949),
                ("Eitrigg", "other_context", 3144),
            ],
            id="EV-2",
            tags=["localized"],
        ),
        CaseObservation("EV-2"),
    )
    rates = total([one, four]).rates()
    assert rates["mention_accuracy"] == 0.2  # 1 of 5 mentions, not the mean of 1.0 and 0.0
    empty = Counts().rates()
    assert all(value is None for value in empty.values())
    no_creature = score_case(_case([], id="EV-3"), CaseObservation("EV-3"))
    assert no_creature.counts.rates()["mention_recall"] is None


def test_by_tag_sums_the_cases_of_each_tag() -> None:
    tagged = [
        score_case(
            _case([("Hogger", "affected_subject", 448)], tags=["a", "b"]), CaseObservation("EV-1")
        ),
        score_case(
            _case([("Thrall", "affected_subject", 4949)], id="EV-2", tags=["b"]),
            CaseObservation("EV-2", searches=(_search("Q1", "Thrall"),)),
        ),
    ]
    groups = by_tag(tagged)
    assert sorted(groups) == ["a", "b"]
    assert (groups["a"].mentions, groups["a"].covered) == (1, 0)
    assert (groups["b"].mentions, groups["b"].covered) == (2, 1)


# --- the report and its baseline comparison (pure) -----------------------------------------------


def _report(accuracy_hits: int, calls: int = 3, sha: str = "a" * 64) -> EvalReport:
    cases = []
    for number in range(4):
        case = _case([("Hogger", "affected_subject", 448)], id=f"EV-{number}", tags=["en"])
        selected = 448 if number < accuracy_hits else 449
        search = _search("Q1", "Hogger", status="selected", selected=selected, candidates=(448,))
        calls_made = tuple(ObservedCall("resolution_plan", "accepted", 0, 0) for _ in range(calls))
        observation = CaseObservation(case.id, searches=(search,), calls=calls_made)
        cases.append(score_case(case, observation))
    run = RunInfo(
        dataset="set.jsonl",
        dataset_sha256=sha,
        provider="heuristic",
        model="vba-heuristic",
        entity_resolution=True,
        max_searches=4,
        max_candidates=8,
        catalogs=("creature_name",),
        snapshot_label="demo",
        database="embedded:demo",
    )
    return EvalReport(run=run, cases=tuple(cases))


def test_an_unchanged_run_matches_its_own_baseline() -> None:
    report = _report(3)
    comparison = compare_to_baseline(report, baseline_document(report))
    assert comparison.ok and comparison.improvements == ()


def test_a_drop_beyond_the_tolerance_is_a_regression_and_a_rise_an_improvement() -> None:
    baseline = baseline_document(_report(3))
    worse = compare_to_baseline(_report(2), baseline)
    assert not worse.ok
    assert any(
        line.startswith("mention_accuracy: 0.5 vs baseline 0.75") for line in worse.regressions
    )
    assert any(line.startswith("wrong_selection_rate") for line in worse.regressions)
    assert compare_to_baseline(_report(2), baseline, tolerance=0.3).ok
    better = compare_to_baseline(_report(4), baseline)
    assert better.ok and any("mention_accuracy" in line for line in better.improvements)


def test_calls_must_be_equal_and_labels_must_match() -> None:
    baseline = baseline_document(_report(3))
    assert any(
        "calls_per_case" in line
        for line in compare_to_baseline(_report(3, calls=4), baseline).regressions
    )
    other_dataset = compare_to_baseline(_report(3, sha="b" * 64), baseline)
    assert len(other_dataset.regressions) == 1
    assert "dataset_sha256" in other_dataset.regressions[0]


def test_report_json_and_markdown_list_every_case() -> None:
    report = _report(3)
    doc = report.to_json()
    assert [c["case_id"] for c in doc["cases"]] == ["EV-0", "EV-1", "EV-2", "EV-3"]
    assert doc["aggregate"]["rates"]["mention_accuracy"] == 0.75
    assert doc["by_tag"]["en"]["counts"]["cases"] == 4
    assert doc["cases"][3]["mentions"][0]["outcome"] == "wrong"
    markdown = report.markdown()
    assert "| mention accuracy (correct selection) | 0.750 | 3/4 |" in markdown
    assert "| EV-3 | 1/1 | 0 | 1 | 0 | 0 | 0 | 3 |" in markdown


def test_load_baseline_rejects_malformed_files(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    for content in ("{", "[]", '{"schema_version": 1, "rates": {"x": "high"}}'):
        path.write_text(content, "utf-8")
        with pytest.raises(InputError) as info:
            load_baseline(path)
        assert info.value.code == ErrorCode.EVAL_BASELINE_INVALID
    with pytest.raises(InputError):
        load_baseline(tmp_path / "missing.json")


# --- what to act on: why each mention failed, per language and tracker, run against run ----------


def test_every_failed_mention_has_its_reason() -> None:
    case = _case(
        [
            ("Hogger", "affected_subject", 448),  # searched, captured, selected: resolved
            ("Thrall", "affected_subject", 4949),  # no covering search
            ("Jaina", "affected_subject", 4968),  # searched, not captured
            ("Onyxia", "affected_subject", 10184),  # captured, not selected
            ("Ragnaros", "affected_subject", 11502),  # another entry selected
            ("Wolves", "affected_subject", None),  # null gold, selected anyway
            ("Kobolds", "affected_subject", None),  # null gold, rightly left alone
        ]
    )
    searches = (
        _search("Q1", "Hogger", status="selected", selected=448, candidates=(448,)),
        _search("Q2", "Jaina", status="ambiguous", candidates=(1,)),
        _search("Q3", "Onyxia", status="ambiguous", candidates=(10184, 12129)),
        _search("Q4", "Ragnaros", status="selected", selected=1, candidates=(1, 11502)),
        _search("Q5", "Wolves", status="selected", selected=299, candidates=(299,)),
        _search("Q6", "Kobolds", status="ambiguous", candidates=(6,)),
    )
    result = score_case(case, CaseObservation("EV-1", searches=searches))
    assert [m.reason for m in result.mentions] == [
        None,
        "not_searched",
        "not_captured",
        "not_selected",
        "wrongly_selected",
        "selected_without_gold",
        None,
    ]
    assert miss_counts([result]) == {
        "not_searched": 1,
        "over_budget": 0,
        "not_captured": 1,
        "not_selected": 1,
        "wrongly_selected": 1,
        "selected_without_gold": 1,
    }


def test_a_mention_the_plan_left_out_over_max_searches_is_over_budget() -> None:
    """No search covers Thrall or Jaina; the plan named Thrall among the names it left out because
    max_searches was reached, so only Jaina counts as a mention the planner did not find."""
    case = _case(
        [
            ("Hogger", "affected_subject", 448),
            ("Thrall", "affected_subject", 4949),
            ("Jaina", "affected_subject", 4968),
        ]
    )
    searches = (_search("Q1", "Hogger", status="selected", selected=448, candidates=(448,)),)
    observation = CaseObservation("EV-1", searches=searches, unsearched=("thrall",))
    result = score_case(case, observation)
    assert [m.reason for m in result.mentions] == [None, "over_budget", "not_searched"]
    assert [m.outcome for m in result.mentions] == ["correct", "missed", "missed"]
    counts = miss_counts([result])
    assert (counts["over_budget"], counts["not_searched"]) == (1, 1)
    assert result.counts.missed == 2  # the rates do not change: both are missed mentions


def test_the_candidate_recall_ceiling_keeps_the_most_mentioned_entries_within_budget() -> None:
    """Five gold entries, Hogger mentioned three times and Thrall twice; with max_searches 2 a plan
    can cover at most those five mentions of eight, whatever it searches."""
    case = _case(
        [
            ("Hogger", "affected_subject", 448),
            ("hogger", "affected_subject", 448),
            ("Hogg", "affected_subject", 448),
            ("Thrall", "other_context", 4949),
            ("thrall", "other_context", 4949),
            ("Jaina", "other_context", 4968),
            ("Mankrik", "other_context", 3432),
            ("Wolf", "other_context", None),  # no gold entry: not counted
        ]
    )
    observation = CaseObservation("EV-1", searches=())
    assert score_case(case, observation, max_searches=2).counts.within_budget == 5
    assert score_case(case, observation, max_searches=4).counts.within_budget == 7
    unbounded = score_case(case, observation).counts
    assert unbounded.within_budget == unbounded.gold_mentions == 7
    assert score_case(case, observation, 2).counts.rates()["candidate_recall_ceiling"] == 5 / 7


def test_every_rate_is_in_exactly_one_category() -> None:
    """A new rate must say whether the baseline check guards it (higher or lower is better, or a
    cost that must not change) or only reports it (a bound, a cache or price figure)."""
    groups = (HIGHER_IS_BETTER, LOWER_IS_BETTER, COST_FIGURES, BOUNDS, CACHE_AND_PRICE_FIGURES)
    listed = [name for group in groups for name in group]
    assert sorted(listed) == sorted(Counts().fractions())


def test_results_are_grouped_by_language_and_tracker() -> None:
    results = [
        score_case(
            _case([("Hogger", "affected_subject", 448)], language="en", tracker="a/b"),
            CaseObservation("EV-1"),
        ),
        score_case(
            _case([("Тралл", "affected_subject", 4949)], id="EV-2", language="ru"),
            CaseObservation("EV-2", searches=(_search("Q1", "Тралл"),)),
        ),
    ]
    assert sorted(by_language(results)) == ["en", "ru"]
    assert by_language(results)["ru"].covered == 1
    assert sorted(by_tracker(results)) == ["?", "a/b"]


def test_the_report_shows_every_group_and_every_failed_mention() -> None:
    report = _report(3)
    doc = report.to_json()
    assert doc["miss_reasons"]["wrongly_selected"] == 1
    assert set(doc["by_language"]) == {"?"} and set(doc["by_tracker"]) == {"?"}
    assert doc["cases"][3]["mentions"][0]["reason"] == "wrongly_selected"
    markdown = report.markdown()
    assert "## By language" in markdown and "## By tracker" in markdown
    assert "| EV-3 | Hogger | 448 | wrongly_selected | 449 |" in markdown


def test_compare_lists_the_mentions_whose_outcome_changed(tmp_path: Path) -> None:
    before, after = _report(3).to_json(), _report(4).to_json()
    changes, rates = compare_results(before, after)
    assert [(c.case_id, c.surface, c.before, c.after) for c in changes] == [
        ("EV-3", "Hogger", "wrong/affected_subject", "correct/affected_subject")
    ]
    assert rates["mention_accuracy"] == (0.75, 1.0)
    markdown = compare_markdown(changes, rates)
    assert "| EV-3 | Hogger | 448 | wrong/affected_subject | correct/affected_subject |" in markdown
    assert "| mention_accuracy | 0.750 | 1.000 |" in markdown
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(before), "utf-8")
    b.write_text("{}", "utf-8")
    assert load_results(a)["cases"]
    with pytest.raises(InputError):
        load_results(b)


def test_vba_eval_compare_prints_the_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vba_assets.evaluation.runner import main

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_report(3).to_json()), "utf-8")
    b.write_text(json.dumps(_report(4).to_json()), "utf-8")
    assert main(["--compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "## Mentions whose outcome changed (1)" in out and "| EV-3 | Hogger |" in out
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2  # --dataset or --compare


def test_the_baseline_comparison_says_in_one_line_whether_it_passed() -> None:
    baseline = baseline_document(_report(3))
    same = compare_to_baseline(_report(3), baseline)
    line = same.summary("eval/baseline.heuristic.json")
    assert "\n" not in line and same.compared > 10
    assert line.startswith("baseline eval/baseline.heuristic.json: passed: ")
    assert f"{same.compared} figures compared, 0 regression(s)" in line
    worse = compare_to_baseline(_report(2), baseline)
    assert worse.summary("b.json").startswith("baseline b.json: FAILED: ")
    assert f"{len(worse.regressions)} regression(s)" in worse.summary("b.json")
    labels = compare_to_baseline(_report(3, sha="b" * 64), baseline)
    assert labels.compared == 0 and "FAILED: 0 figures compared, 1 regression(s)" in (
        labels.summary("b.json")
    )
