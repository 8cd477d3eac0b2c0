"""The deterministic heuristic baseline of the three model stages (pure logic).

The ``heuristic`` model provider (``resources/llm/heuristic.py``) answers every stage from the
request's structured ``stage_context`` with these functions, never by parsing prompt text:

* :func:`~vba_assets.domain.heuristics.planning.plan_searches`: the resolution plan;
* :func:`~vba_assets.domain.heuristics.assessment.assess_searches`: the resolution assessment;
* :func:`~vba_assets.domain.heuristics.interpretation.interpret_case`: the final interpretation.

It is a baseline that real models are measured against, so it is honest about what it is: its
replies are labelled as the heuristic's, its rationales name the rule that decided, and each
module says what it cannot do. Only the injected read-only
:class:`~vba_assets.domain.catalog.world.CatalogSearch` is used for IO (the planner's gazetteer pass).
"""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "admission",
    "assessment",
    "categories",
    "gazetteer",
    "inflection",
    "interpretation",
    "lexicon",
    "planning",
    "roles",
    "search_words",
    "spans",
    "terms",
]
