"""A Dagster LLM resource that answers from a :class:`ScriptedProvider` (tests only).

Resource fields must be config values, so the provider is looked up by name in :data:`SCRIPTS`;
the LLM config is the heuristic default (what the revision freezes) unless ``llm_config`` names a
file (e.g. one with ``[retry] max_wait_s = 0`` so a provider's Retry-After blocks at once).
"""

from collections.abc import Callable

from tests.fakes.scripted_provider import ScriptedProvider
from vba_assets.defs.resources import LlmResource
from vba_assets.domain.llm.contract import Provider
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stage_runs import WorldAccess

#: The providers a :class:`ScriptedLlmResource` can name.
SCRIPTS: dict[str, ScriptedProvider] = {}


class ScriptedLlmResource(LlmResource):
    """``provider_factory`` returns ``SCRIPTS[script]``."""

    script: str = ""

    def provider_factory(self, env: RevisionEnv, world: WorldAccess) -> Callable[[], Provider]:
        return lambda: SCRIPTS[self.script]
