"""Versioned prompt files and their lock (ARCHITECTURE 8: prompt versions are frozen per revision).

The prompt text and few-shot examples of every stage live as package data under
``vba_assets/prompts/<version>/``::

    v1/resolution_plan.md            instructions of model call 1
    v1/resolution_assessment.md      instructions of model call 2
    v1/interpretation_resolved.md    model call 3 with entity resolution (F/N/D aliases)
    v1/interpretation_unresolved.md  model call 3 without it
    v1/examples/<prompt>-<n>.json    few-shot examples of that prompt, in order of n

A later version holds only what it changes: its ``VERSION.json`` names the version it
``extends`` and the protocol its examples were written for (``examples_protocol``); every file it
does not hold is inherited from the version it extends, byte for byte. ``v1`` has no
``VERSION.json`` (it extends nothing; its examples satisfy protocol 1).

``vba_assets/prompts/LOCK.json`` records the sha256 of every file of every version, inherited ones
included. A released version never changes: :func:`load_prompt_set` refuses a version whose
resolved files differ from the lock (changed, added or removed file, or a change inherited from
its base), so a revision frozen with ``v1`` always gets the same bytes and a replay rebuilds its
requests exactly. To change a prompt, make a new version directory with a ``VERSION.json`` and only
the changed files, then add it to the lock::

    python -m vba_assets.domain.prompting.prompts --write   # adds new versions; never rewrites a locked one

Reading package files is the only IO here; everything else is pure.
"""

import functools
import hashlib
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from vba_assets.errors import ConfigError, ErrorCode

PROMPT_NAMES = (
    "resolution_plan",
    "resolution_assessment",
    "interpretation_resolved",
    "interpretation_unresolved",
)
#: The version a new revision freezes. Started revisions keep the version in their frozen input.
CURRENT_PROMPT_VERSION = "v7"
LOCK_NAME = "LOCK.json"
#: A version's own description: ``{"extends": "v1", "examples_protocol": 4}``.
VERSION_FILE = "VERSION.json"
EXAMPLES_DIR = "examples"
_VERSION = re.compile(r"^v[1-9][0-9]{0,3}$")
_EXAMPLE = re.compile(r"^(?P<prompt>[a-z_]+)-(?P<number>[1-9][0-9]{0,2})\.json$")


@dataclass(frozen=True)
class PromptExample:
    """One few-shot example: the frozen inputs of a stage and an accepted reply (``output``)."""

    path: str
    prompt: str
    data: Mapping[str, Any]

    @property
    def title(self) -> str:
        return str(self.data.get("title", self.path))


@dataclass(frozen=True)
class PromptSet:
    """The instructions and examples of one prompt version, checked against the lock."""

    version: str
    instructions: Mapping[str, str]
    examples: Mapping[str, tuple[PromptExample, ...]]
    files: Mapping[str, str]  # relative path -> sha256
    #: The protocol whose rules this version's few-shot examples satisfy (and are validated by):
    #: a rule added later never re-judges a locked example.
    protocol_version: int = 1

    def instruction(self, prompt: str) -> str:
        return self.instructions[prompt]

    def examples_for(self, prompt: str) -> tuple[PromptExample, ...]:
        return self.examples.get(prompt, ())


def prompts_root() -> Traversable:
    """``vba_assets/prompts`` (package data)."""
    return resources.files("vba_assets").joinpath("prompts")


def _fail(code: ErrorCode, message: str, **detail: Any) -> ConfigError:
    return ConfigError(code, message, key="prompt_version", **detail)


def _walk(folder: Traversable, prefix: str = "") -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        path = f"{prefix}{entry.name}"
        if entry.is_dir():
            files.update(_walk(entry, f"{path}/"))
        else:
            files[path] = entry.read_bytes()
    return files


def version_meta(root: Traversable, version: str) -> dict[str, Any]:
    """The version's ``VERSION.json`` (``{}`` for a version without one, like ``v1``)."""
    path = root.joinpath(version).joinpath(VERSION_FILE)
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_bytes())
    except ValueError as exc:
        raise _fail(
            ErrorCode.CONFIG_INVALID, f"{version}/{VERSION_FILE} is not JSON: {exc}"
        ) from None
    if not isinstance(meta, dict) or set(meta) - {"extends", "examples_protocol", "note"}:
        raise _fail(
            ErrorCode.CONFIG_INVALID,
            f"{version}/{VERSION_FILE} takes 'extends', 'examples_protocol' and 'note'",
        )
    return meta


def version_files(root: Traversable, version: str, seen: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file of ``version``: its own, and those it inherits from the version it extends."""
    if version in seen or not _VERSION.match(version) or not root.joinpath(version).is_dir():
        raise _fail(
            ErrorCode.PROMPT_VERSION_UNKNOWN,
            f"prompt version {version!r} is missing or extends itself ({' -> '.join(seen)})",
            version=version,
        )
    base = version_meta(root, version).get("extends")
    files = version_files(root, str(base), (*seen, version)) if base else {}
    files.pop(VERSION_FILE, None)
    files.update(_walk(root.joinpath(version)))
    return files


def version_file_hashes(root: Traversable, version: str) -> dict[str, str]:
    """``relative path -> sha256`` of every file of ``version`` (inherited ones included)."""
    return {
        path: hashlib.sha256(data).hexdigest()
        for path, data in version_files(root, version).items()
    }


def versions_on_disk(root: Traversable | None = None) -> list[str]:
    """The version directories present under ``root``."""
    root = root or prompts_root()
    return sorted(
        (e.name for e in root.iterdir() if e.is_dir() and _VERSION.match(e.name)), key=_order
    )


def _order(version: str) -> int:
    return int(version[1:])


def read_lock(root: Traversable | None = None) -> dict[str, dict[str, str]]:
    """``version -> {relative path -> sha256}`` from ``LOCK.json``."""
    root = root or prompts_root()
    try:
        document = json.loads(root.joinpath(LOCK_NAME).read_bytes())
        versions = document["versions"]
        if not all(isinstance(files, dict) for files in versions.values()):
            raise ValueError("each version maps file paths to sha256 digests")
        return {str(v): {str(p): str(h) for p, h in files.items()} for v, files in versions.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _fail(
            ErrorCode.PROMPT_LOCK_MISMATCH, f"prompts/{LOCK_NAME} is unreadable: {exc}"
        ) from None


def check_version(version: str, root: Traversable | None = None) -> dict[str, str]:
    """The lock entry of ``version`` after checking every file against it.

    Raises:
        ConfigError: ``PROMPT_VERSION_UNKNOWN`` for a version that is not locked or absent;
            ``PROMPT_LOCK_MISMATCH`` when a file was changed, added or removed.
    """
    root = root or prompts_root()
    lock = read_lock(root)
    if not _VERSION.match(version) or version not in lock:
        raise _fail(
            ErrorCode.PROMPT_VERSION_UNKNOWN,
            f"prompt version {version!r} is not in prompts/{LOCK_NAME}; known: {sorted(lock)}",
            version=version,
        )
    if not root.joinpath(version).is_dir():
        raise _fail(
            ErrorCode.PROMPT_VERSION_UNKNOWN,
            f"prompt version {version!r} is locked but its directory is missing",
            version=version,
        )
    locked, actual = lock[version], version_file_hashes(root, version)
    problems = [f"{p}: missing" for p in sorted(set(locked) - set(actual))]
    problems += [f"{p}: not in the lock" for p in sorted(set(actual) - set(locked))]
    problems += [f"{p}: changed" for p in sorted(locked.keys() & actual) if locked[p] != actual[p]]
    if problems:
        raise _fail(
            ErrorCode.PROMPT_LOCK_MISMATCH,
            f"prompt version {version} differs from prompts/{LOCK_NAME} ({'; '.join(problems)}): "
            "a released version never changes; put the change in a new version directory",
            version=version,
            problems=problems,
        )
    return locked


def load_prompt_set(version: str, root: Traversable | None = None) -> PromptSet:
    """The instructions and examples of ``version``, refused unless they match the lock.

    The package's own prompt files (``root`` None) are checked and read once per process: they
    are package data, locked by hash, and a request rebuilds them many times per case.

    Raises:
        ConfigError: see :func:`check_version`; ``CONFIG_INVALID`` for a version that lacks a
            prompt file or holds a malformed example.
    """
    if root is None:
        return _packaged_prompt_set(version)
    return _load_prompt_set(version, root)


@functools.lru_cache(maxsize=16)
def _packaged_prompt_set(version: str) -> PromptSet:
    return _load_prompt_set(version, prompts_root())


def _load_prompt_set(version: str, root: Traversable) -> PromptSet:
    locked = check_version(version, root)
    files = version_files(root, version)
    instructions: dict[str, str] = {}
    for prompt in PROMPT_NAMES:
        if f"{prompt}.md" not in locked:
            raise _fail(ErrorCode.CONFIG_INVALID, f"prompt version {version} lacks {prompt}.md")
        instructions[prompt] = files[f"{prompt}.md"].decode("utf-8")
    examples: dict[str, list[tuple[int, PromptExample]]] = {}
    for path in sorted(p for p in locked if p.startswith(f"{EXAMPLES_DIR}/")):
        match = _EXAMPLE.match(path.removeprefix(f"{EXAMPLES_DIR}/"))
        if match is None or match["prompt"] not in PROMPT_NAMES:
            raise _fail(
                ErrorCode.CONFIG_INVALID,
                f"{version}/{path}: examples are named <prompt>-<n>.json, prompt one of "
                f"{list(PROMPT_NAMES)}",
            )
        try:
            data = json.loads(files[path])
        except ValueError as exc:
            raise _fail(ErrorCode.CONFIG_INVALID, f"{version}/{path}: not JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("output"), dict):
            raise _fail(ErrorCode.CONFIG_INVALID, f"{version}/{path}: needs an 'output' object")
        example = PromptExample(path=path, prompt=match["prompt"], data=data)
        examples.setdefault(match["prompt"], []).append((int(match["number"]), example))
    return PromptSet(
        version=version,
        instructions=instructions,
        examples={p: tuple(e for _, e in sorted(items)) for p, items in examples.items()},
        files=dict(locked),
        protocol_version=int(version_meta(root, version).get("examples_protocol", 1)),
    )


def updated_lock(root: Traversable | None = None) -> dict[str, Any]:
    """The lock document with every unlocked version added; locked versions must be unchanged.

    Raises:
        ConfigError: ``PROMPT_LOCK_MISMATCH`` when a locked version changed or disappeared.
    """
    root = root or prompts_root()
    try:
        lock = read_lock(root)
    except ConfigError:
        if root.joinpath(LOCK_NAME).is_file():
            raise
        lock = {}
    for version in lock:
        check_version(version, root)
    for version in versions_on_disk(root):
        lock.setdefault(version, version_file_hashes(root, version))
    return {"versions": {v: dict(sorted(lock[v].items())) for v in sorted(lock, key=_order)}}


def lock_text(document: Mapping[str, Any]) -> str:
    """The exact text ``LOCK.json`` is written with."""
    return json.dumps(document, indent=2, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the updated lock; with ``--write`` store it in the source tree's ``LOCK.json``."""
    args = sys.argv[1:] if argv is None else argv
    root = prompts_root()
    text = lock_text(updated_lock(root))
    if "--write" in args:
        target = root.joinpath(LOCK_NAME)
        with resources.as_file(target) as path:
            path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
