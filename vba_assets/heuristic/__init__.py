"""The deterministic heuristic baseline of the three model stages (pure logic).

The ``heuristic`` model provider (``resources/llm/heuristic.py``) answers every stage from the
request's structured ``stage_context`` with these functions, never by parsing prompt text:

* :func:`~vba_assets.heuristic.planning.plan_searches`: the resolution plan;
* :func:`~vba_assets.heuristic.assessment.assess_searches`: the resolution assessment;
* :func:`~vba_assets.heuristic.interpretation.interpret_case`: the final interpretation.

It is a baseline that real models are measured against, so it is honest about what it is: its
replies are labelled as the heuristic's, its rationales name the rule that decided, and each
module says what it cannot do. It does no IO: the planner's gazetteer reads the versioned name
index (:mod:`.name_index`) its caller built, never the world database, and the word frequency
lists of a pinned library (:mod:`.common_words`), so a plan depends only on the request, the index
its reply names and the heuristic's version.
"""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "accents",
    "admission",
    "assessment",
    "broken_cues",
    "candidate_names",
    "categories",
    "common_words",
    "corrected_plan",
    "corrections",
    "embedded_names",
    "evidence",
    "exact_coverage",
    "gazetteer",
    "inflection",
    "interpretation",
    "interpretation_limits",
    "interpretation_parts",
    "interpretation_v4",
    "intervals",
    "lexicon",
    "literal_terms",
    "markup",
    "misspellings",
    "name_index",
    "name_index_document",
    "name_index_words",
    "name_scan",
    "planning",
    "prose",
    "ranking",
    "rare_words",
    "references",
    "role_items",
    "role_lists",
    "role_phrases",
    "role_reader",
    "role_steps",
    "role_words",
    "roles",
    "selections",
    "separators",
    "short_forms",
    "source_words",
    "spans",
    "spelling_words",
    "terms",
    "tiebreaks",
]
