"""The import contracts place every top-level module: a new package cannot dodge the layering.

``lint-imports`` (make lint) enforces the contracts of pyproject.toml; this test makes sure the
layers contract names every top-level module of both root packages (``vba_assets`` and
``resources``), so a module added beside them fails until someone decides where it belongs.
"""

import pkgutil
import tomllib
from pathlib import Path

import vba_assets

REPO = Path(__file__).resolve().parents[2]


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layered_modules() -> set[str]:
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    named: set[str] = set()
    for layer in layers["layers"]:  # type: ignore[union-attr]
        named |= {part.strip() for part in str(layer).replace(":", "|").split("|")}
    return named


def _top_level(package: object, name: str) -> set[str]:
    paths = package.__path__  # type: ignore[attr-defined]
    return {f"{name}.{module.name}" for module in pkgutil.iter_modules(paths)} - {
        f"{name}.__main__"
    }


def test_the_layers_contract_names_every_top_level_module_of_vba_assets() -> None:
    missing = _top_level(vba_assets, "vba_assets") - _layered_modules()
    assert not missing, f"place these in the layers contract of pyproject.toml: {sorted(missing)}"


def test_resources_is_one_layer_below_the_pipeline_and_imports_no_dagster() -> None:
    layers = _layered_modules()
    assert "resources" in layers
    (dagster_rule,) = [c for c in _contracts() if c.get("forbidden_modules") == ["dagster"]]
    assert "resources" in dagster_rule["source_modules"]  # type: ignore[operator]


def test_a_cycle_contract_covers_both_root_packages() -> None:
    (acyclic,) = [c for c in _contracts() if c["type"] == "acyclic_siblings"]
    assert set(acyclic["ancestors"]) == {"vba_assets", "resources"}  # type: ignore[arg-type]
