"""Pure domain logic: stdlib and pydantic only. Nothing here touches disk, network or Dagster.

The layering is enforced by import-linter (``[tool.importlinter]`` in pyproject.toml): nothing here
imports Dagster, SQLAlchemy, a provider SDK, httpx, the store, the pipeline or ``resources``.

* :mod:`.case`: case ids, report admission, text normalization, the CaseBuilder;
* :mod:`.catalog`: what the world DB returns, name matching and ranking, the lookup tool;
* :mod:`.resolution`: the plan and assessment outputs, their rules, candidate index, F/N/D context;
* :mod:`.interpretation`: the final interpretation's contract and rules;
* :mod:`.llm`: the provider-neutral model contract and the correction loop;
* :mod:`.prompting`: versioned prompts, request rendering, context manifests;
* :mod:`.stage_context`: what each model stage sees (the stage contexts);
* :mod:`.stages` (the Stage enum), :mod:`.protocol` (versioned rules and request formats),
  :mod:`.findings` (the one finding type), :mod:`.frozen_inputs` (a revision's frozen inputs),
  :mod:`.canonical` (RFC 8785 and hashes), :mod:`.clock`, :mod:`.base` (the strict model base),
  :mod:`.text_budget` (a stage's cooperative CPU budget for text work),
  :mod:`.limits` (the output caps and the listing rules' bounds, derived from one set).
"""

#: The public modules of this package (pinned by tests/unit/test_public_api.py).
__all__ = [
    "base",
    "canonical",
    "case",
    "catalog",
    "clock",
    "findings",
    "frozen_inputs",
    "interpretation",
    "limits",
    "llm",
    "prompting",
    "protocol",
    "resolution",
    "stage_context",
    "stages",
    "text_budget",
]
