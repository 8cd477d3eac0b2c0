"""Every package declares its public surface in ``__all__``; this test pins it.

A package of modules lists every public module it holds (so a new module is declared on purpose,
and a reader finds the package's parts in one place). A package that is an API (the store, the
model providers, the world DB resource) lists the names callers use, and they are pinned here:
changing them is a deliberate change of this test.
"""

import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

MODULE_PACKAGES = [
    "vba_assets.domain",
    "vba_assets.domain.case",
    "vba_assets.domain.catalog",
    "vba_assets.domain.resolution",
    "vba_assets.domain.interpretation",
    "vba_assets.domain.llm",
    "vba_assets.domain.prompting",
    "vba_assets.heuristic",
    "vba_assets.pipeline",
    "vba_assets.defs",
    "vba_assets.tracker",
]

API_PACKAGES = {
    "vba_assets.store": [
        "EVENTS_FILE",
        "INTERPRETATIONS_DIR",
        "LOCK_FILE",
        "ArtifactRef",
        "CasePackage",
        "LockHolder",
        "RevisionLayout",
        "RevisionLock",
        "Workspace",
        "canonical_bytes",
        "content_hash",
        "format_timestamp",
        "parse_canonical",
        "publish_bytes",
        "sha256_hex",
        "to_json_value",
        "utc_now",
        "validate_relpath",
    ],
    "resources.llm": [
        "PROVIDERS",
        "ProviderFactory",
        "ProviderOptions",
        "ProviderSpec",
        "build_provider",
    ],
    "resources.world_db": ["WorldDatabase"],
    "vba_assets.pipeline.integrity": [
        "account_package",
        "account_revision",
        "revision_folders",
        "revision_of",
    ],
}


def public_modules(package: str) -> list[str]:
    folder = REPO / package.replace(".", "/")
    modules = [p.stem for p in folder.glob("*.py") if not p.name.startswith("_")]
    packages = [
        p.name
        for p in folder.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and not p.name.startswith("_")
    ]
    return sorted(modules + packages)


@pytest.mark.parametrize("package", MODULE_PACKAGES)
def test_a_package_lists_every_public_module(package: str) -> None:
    declared = importlib.import_module(package).__all__
    assert declared == sorted(declared), f"{package}.__all__ is not sorted"
    assert declared == public_modules(package), (
        f"{package}/__init__.py must list exactly its public modules in __all__"
    )


@pytest.mark.parametrize("package", sorted(API_PACKAGES))
def test_an_api_package_exports_exactly_its_pinned_names(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(API_PACKAGES[package])
    for name in module.__all__:
        assert getattr(module, name) is not None, name
