"""The API-key environment variables of the provider registry: what tests scrub and canary.

Derived from :data:`vba_assets.provider_registry.PROVIDERS`, so a provider added there is covered
at once: its ``api_key_env`` is removed from the environment of every test (tests/conftest.py) and
of every server a test starts, and the key-leak canary (tests/integration/llm/test_llm_canaries.py)
fails until it has an entry. The one hand table, :data:`KEY_VARS_BEYOND_REGISTRY`, names the
variables a provider reads that the registry cannot say; tests/unit/llm/test_provider_keys.py
fails when a provider that can carry a key has no variable at all.
"""

from vba_assets.provider_registry import PROVIDERS, ProviderSpec

#: Key variables beyond the registry's ``api_key_env`` default: the anthropic SDK falls back to
#: ``ANTHROPIC_AUTH_TOKEN`` by itself; ``openai_compatible`` has no default, and the configs of
#: this project's docs and tests name ``OPENAI_API_KEY``.
KEY_VARS_BEYOND_REGISTRY: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_AUTH_TOKEN",),
    "openai_compatible": ("OPENAI_API_KEY",),
}


def carries_key(spec: ProviderSpec) -> bool:
    """A provider that sends requests over the network, or names a key variable, can carry a key."""
    return spec.network or spec.api_key_env is not None


def key_vars(name: str) -> tuple[str, ...]:
    """The key variables of provider ``name``: its registry default first, then the others."""
    default = PROVIDERS[name].api_key_env
    return (*((default,) if default else ()), *KEY_VARS_BEYOND_REGISTRY.get(name, ()))


#: The providers that can carry a key, by name (the ones the key-leak canary must cover).
KEYED_PROVIDERS: tuple[str, ...] = tuple(
    sorted(name for name, spec in PROVIDERS.items() if carries_key(spec))
)
#: Every variable that may hold an API key of a registered provider: never set in a test.
API_KEY_VARS: tuple[str, ...] = tuple(sorted({var for name in PROVIDERS for var in key_vars(name)}))

#: The variables a tracker token usually lives in (``[[trackers]] token_env``): never set in a test.
TRACKER_TOKEN_VARS: tuple[str, ...] = ("GH_TOKEN", "GITHUB_TOKEN", "VBA_TEST_GITHUB_TOKEN")
#: The tracker token of the tests (GitHub's fine-grained format): the tracker secret tests grep the
#: workspace and the Dagster instance for it after syncing and posting with it.
TRACKER_CANARY = "github_pat_CANARY0tracker0token0e4c2a9b7_never0write0me"
