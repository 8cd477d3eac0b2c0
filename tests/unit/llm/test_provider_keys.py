"""No test sees an API key: every key variable of the provider registry is scrubbed automatically.

tests/providers.py derives the variables from vba_assets/provider_registry.py; tests/conftest.py
removes them when the session starts and again before every test. The child session below starts
with every one of them set, as a developer's shell might, and its test must see none.
"""

import os
import subprocess
import sys

from tests.conftest import REPO
from tests.providers import (
    API_KEY_VARS,
    KEY_VARS_BEYOND_REGISTRY,
    KEYED_PROVIDERS,
    carries_key,
    key_vars,
)
from vba_assets.provider_registry import PROVIDERS


def test_every_provider_that_can_carry_a_key_has_a_key_variable() -> None:
    assert KEYED_PROVIDERS, "the registry has no network provider"
    for name in KEYED_PROVIDERS:
        assert key_vars(name), f"{name}: name its key variable in KEY_VARS_BEYOND_REGISTRY"
    assert set(KEY_VARS_BEYOND_REGISTRY) <= set(PROVIDERS)  # no stale entry


def test_every_registry_key_variable_is_scrubbed() -> None:
    defaults = {spec.api_key_env for spec in PROVIDERS.values() if spec.api_key_env}
    assert defaults and defaults <= set(API_KEY_VARS)
    network = {name for name, spec in PROVIDERS.items() if spec.network}
    assert network <= set(KEYED_PROVIDERS)
    assert all(not carries_key(PROVIDERS[name]) for name in set(PROVIDERS) - set(KEYED_PROVIDERS))


def test_no_key_variable_is_set_in_a_test() -> None:
    assert [var for var in API_KEY_VARS if var in os.environ] == []


def test_key_variables_of_the_shell_are_scrubbed_in_every_test() -> None:
    env = dict(os.environ)
    env.update({var: f"CANARY-shell-{var}-never-seen" for var in API_KEY_VARS})
    env["PYTHONPATH"] = str(REPO)
    test = f"{__file__}::test_no_key_variable_is_set_in_a_test"
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stdout[-2000:] + child.stderr[-2000:]
    assert "1 passed" in child.stdout
