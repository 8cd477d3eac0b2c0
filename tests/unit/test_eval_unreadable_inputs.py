"""``vba eval``'s inputs that cannot be read give one clear error naming the file, never a crash.

The dataset, a baseline and a results file may be missing, a directory, undecodable bytes or not
JSON; each is an ``InputError`` with the code of its kind and the file's name (the CLI prints it
and exits with the code's status), never an ``OSError`` or ``JSONDecodeError`` traceback.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vba_assets.errors import ErrorCode, InputError
from vba_assets.evaluation.comparison import load_baseline, load_results
from vba_assets.evaluation.dataset import load_dataset


def _missing(folder: Path) -> Path:
    return folder / "absent.json"


def _directory(folder: Path) -> Path:
    path = folder / "a-directory.json"
    path.mkdir()
    return path


def _undecodable(folder: Path) -> Path:
    path = folder / "latin1.json"
    path.write_bytes(b'{"name": "J\xe4ger"}\n')
    return path


def _not_json(folder: Path) -> Path:
    path = folder / "garbage.json"
    path.write_text("{ this is not json", encoding="utf-8")
    return path


BROKEN = [_missing, _directory, _undecodable, _not_json]
READERS: list[tuple[Callable[[Path], Any], ErrorCode]] = [
    (load_dataset, ErrorCode.EVAL_DATASET_INVALID),
    (load_baseline, ErrorCode.EVAL_BASELINE_INVALID),
    (load_results, ErrorCode.EVAL_DATASET_INVALID),
]


@pytest.mark.parametrize("make", BROKEN, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("reader,code", READERS, ids=lambda r: getattr(r, "__name__", str(r)))
def test_an_unreadable_eval_input_is_an_input_error_naming_the_file(
    tmp_path: Path, make: Callable[[Path], Path], reader: Callable[[Path], Any], code: ErrorCode
) -> None:
    path = make(tmp_path)
    with pytest.raises(InputError) as raised:
        reader(path)
    assert raised.value.code is code
    assert path.name in raised.value.message
