"""The code version an evaluation measured: what ``vba eval`` writes and ``eval_quality`` is.

An evaluation's figures depend on three things besides the dataset and the model: the stages
(protocol, prompts and the stages' code: the last stage's code version, which folds in every
earlier one, :mod:`vba_assets.pipeline.code_versions`), the heuristic baseline (the provider a
heuristic run measures: ``vba_assets/heuristic`` and ``resources/llm/heuristic*.py``) and the
metrics' own definitions (``vba_assets/evaluation``). :func:`eval_code_version` is
``<last stage code version>.eval-<sha256 of those files, 12 hex>``: ``results.json`` records it
(``code_version``) and the Dagster ``eval_quality`` asset has it as its ``code_version``, so its
figures' history plots against the code that produced them.
"""

import hashlib
import importlib.util
from functools import cache
from pathlib import Path

from vba_assets.pipeline.code_versions import stage_code_versions

_PACKAGE = Path(__file__).resolve().parents[1]


def measured_files() -> dict[str, Path]:
    """The files besides the stages' code whose content an evaluation's figures depend on, by
    their path from the folder holding the packages (``vba_assets/heuristic/planning.py``)."""
    root = _PACKAGE.parent
    files = {
        path.relative_to(root).as_posix(): path
        for folder in (_PACKAGE / "evaluation", _PACKAGE / "heuristic")
        for path in folder.rglob("*.py")
    }
    spec = importlib.util.find_spec("resources.llm")
    for location in (spec.submodule_search_locations or []) if spec else []:
        for path in Path(location).glob("heuristic*.py"):
            files[path.relative_to(Path(location).parents[1]).as_posix()] = path
    return dict(sorted(files.items()))


@cache
def eval_code_version() -> str:
    """``<last stage code version>.eval-<12 hex>`` (see the module docstring)."""
    *_, last = stage_code_versions().values()
    digest = hashlib.sha256()
    for name, path in measured_files().items():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{last}.eval-{digest.hexdigest()[:12]}"
