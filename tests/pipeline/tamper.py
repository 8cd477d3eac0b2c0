"""A generated tamper matrix over every file of a case package (tests/pipeline/test_tamper_matrix.py).

Each :class:`Tamper` changes one case folder the way an attacker or a broken tool would, without
fixing up any hash: a flipped byte, a canonical value edit (the file stays valid canonical JSON),
a deletion, a truncation, a swap of two files, an injected file, for ``events.jsonl`` lines
forged, edited, dropped, duplicated, reordered or renumbered, and hostile files in a file's place
(:data:`HOSTILE`: JSON nested 100k deep, a FIFO, a symlink loop, a device, a file over the size
limit, invalid UTF-8, a duplicate key), which must be findings, never a hang or a crash. The matrix is derived from the files
actually present, so a new file type is covered without touching this module.
"""

import itertools
import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vba_assets.domain.canonical import canonical_bytes, sha256_hex
from vba_assets.store.reading import MAX_ARTIFACT_BYTES

#: How many leaves of one JSON document get a value edit (spread over the whole document).
LEAVES_PER_FILE = 10


@dataclass(frozen=True)
class Tamper:
    """One change to a case folder: ``kind`` (the column of the matrix), ``target`` and how."""

    kind: str
    target: str
    detail: str
    apply: Callable[[Path], None]

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.target}{':' + self.detail if self.detail else ''}"


def file_type(relpath: str) -> str:
    """The kind of file ``relpath`` is in a case package (the rows of the matrix)."""
    name = relpath.rsplit("/", 1)[-1]
    if relpath.startswith("report/"):
        return "report/report.json" if name == "report.json" else "report/attachment"
    if "/captures/" in relpath:
        return "capture"
    if "/rejected/" in relpath:
        return "rejected record"
    if name.endswith(".manifest.json"):
        return "context manifest"
    if "/dispatches/" in relpath:
        return "dispatch record"
    if "/entity-resolution/" in relpath:
        return f"entity-resolution/{name}"
    if relpath.startswith("analysis/"):
        return name
    return name


def package_files(root: Path) -> list[str]:
    """Every regular, non-hidden file of the package, sorted (lock files are not content)."""
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(root).parts)
    )


# --- primitive edits ------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    if path.exists():
        os.chmod(path, 0o644)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _leaves(value: Any, pointer: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict) and value:
        for key in sorted(value):
            yield from _leaves(value[key], (*pointer, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*pointer, index))
    else:
        yield pointer, value


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        if not value:
            return "x"
        last = value[-1]
        return value[:-1] + ("0" if last != "0" else "1")
    if value is None:
        return "x"
    if isinstance(value, list):
        return [*value, "x"]
    return {**value, "x": 1}


def _set(document: Any, pointer: tuple[Any, ...], value: Any) -> Any:
    if not pointer:
        return value
    head, *rest = pointer
    document[head] = _set(document[head], tuple(rest), value)
    return document


def _spread(items: list[Any], count: int) -> list[Any]:
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(index * step)] for index in range(count)]


def value_edits(root: Path, relpath: str, extra: tuple[tuple[Any, ...], ...] = ()) -> list[Tamper]:
    """Canonical edits of up to :data:`LEAVES_PER_FILE` leaves, plus the ``extra`` pointers."""
    document = json.loads((root / relpath).read_bytes())
    leaves = [pointer for pointer, _ in _leaves(document)]
    chosen = _spread(leaves, LEAVES_PER_FILE)
    chosen += [p for p in extra if p in leaves and p not in chosen]
    tampers = []
    for pointer in chosen:

        def apply(case: Path, pointer: tuple[Any, ...] = pointer) -> None:
            path = case / relpath
            doc = json.loads(path.read_bytes())
            old = doc
            for part in pointer:
                old = old[part]
            _write(path, canonical_bytes(_set(doc, pointer, _changed(old))))

        detail = "/" + "/".join(str(part) for part in pointer)
        tampers.append(Tamper("value_edit", relpath, detail, apply))
    return tampers


def byte_flips(root: Path, relpath: str) -> list[Tamper]:
    size = (root / relpath).stat().st_size
    positions = sorted({0, size // 2, size - 1})
    tampers = []
    for position in positions:

        def apply(case: Path, position: int = position) -> None:
            path = case / relpath
            data = bytearray(path.read_bytes())
            data[position] ^= 0x01
            _write(path, bytes(data))

        tampers.append(Tamper("byte_flip", relpath, f"@{position}", apply))
    return tampers


def deletion(relpath: str) -> Tamper:
    return Tamper("delete", relpath, "", lambda case: os.unlink(case / relpath))


def truncation(relpath: str) -> Tamper:
    def apply(case: Path) -> None:
        path = case / relpath
        data = path.read_bytes()
        _write(path, data[: len(data) // 2])

    return Tamper("truncate", relpath, "half", apply)


def swap(first: str, second: str) -> Tamper:
    def apply(case: Path) -> None:
        a, b = (case / first).read_bytes(), (case / second).read_bytes()
        _write(case / first, b)
        _write(case / second, a)

    return Tamper("swap", first, second, apply)


def injection(relpath: str, data: bytes, why: str) -> Tamper:
    return Tamper("inject", relpath, why, lambda case: _write(case / relpath, data))


# --- events.jsonl ---------------------------------------------------------------------------------


def _lines(case: Path, relpath: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (case / relpath).read_bytes().splitlines()]


def _write_lines(case: Path, relpath: str, records: list[dict[str, Any]]) -> None:
    _write(case / relpath, b"".join(canonical_bytes(r) + b"\n" for r in records))


def _renumbered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**record, "seq": seq} for seq, record in enumerate(records, start=1)]


def event_tampers(root: Path, relpath: str) -> list[Tamper]:
    count = len(_lines(root, relpath))
    tampers: list[Tamper] = []

    def add(kind: str, detail: str, change: Callable[[list[dict[str, Any]]], Any]) -> None:
        def apply(case: Path) -> None:
            _write_lines(case, relpath, change(_lines(case, relpath)))

        tampers.append(Tamper(kind, relpath, detail, apply))

    for index in range(count):
        add("event_drop", f"line {index + 1}", lambda r, i=index: r[:i] + r[i + 1 :])
        add(
            "event_drop",
            f"line {index + 1}, renumbered",
            lambda r, i=index: _renumbered(r[:i] + r[i + 1 :]),
        )
        add(
            "event_edit",
            f"line {index + 1} at",
            lambda r, i=index: [*r[:i], {**r[i], "at": "2030-01-01T00:00:00.000000Z"}, *r[i + 1 :]],
        )
        fields = sorted(k for k in _lines(root, relpath)[index] if k not in {"seq", "at", "chain"})
        for field in _spread(fields, 3):
            add(
                "event_edit",
                f"line {index + 1} {field}",
                lambda r, i=index, f=field: [*r[:i], {**r[i], f: _changed(r[i][f])}, *r[i + 1 :]],
            )
        add(
            "event_duplicate",
            f"line {index + 1}",
            lambda r, i=index: _renumbered([*r[: i + 1], r[i], *r[i + 1 :]]),
        )
        if index + 1 < count:
            add(
                "event_reorder",
                f"lines {index + 1}<->{index + 2}",
                lambda r, i=index: _renumbered([*r[:i], r[i + 1], r[i], *r[i + 2 :]]),
            )
        add(
            "event_forge",
            f"before line {index + 1}",
            lambda r, i=index: _renumbered(
                [*r[:i], {"at": r[i]["at"], "event": "resumed", "stage": "interpretation"}, *r[i:]]
            ),
        )
    add("event_truncate", "last line dropped", lambda r: r[:-1])
    add("event_truncate", "only the first line kept", lambda r: r[:1])
    add(
        "event_renumber",
        "seq starts at 0",
        lambda r: [{**record, "seq": record["seq"] - 1} for record in r],
    )
    add(
        "event_unchain",
        "every chain removed",
        lambda r: [{k: v for k, v in record.items() if k != "chain"} for record in r],
    )
    add(
        "event_forge",
        "appended resumed line",
        lambda r: [*r, {"at": r[-1]["at"], "event": "resumed", "seq": len(r) + 1}],
    )
    tampers.append(deletion(relpath))
    tampers.append(truncation(relpath))
    tampers += byte_flips(root, relpath)
    return tampers


# --- hostile files: what a damaged or malicious copy holds where a package file should be ---------

#: How deeply the ``nesting`` tamper nests arrays (far past any recursion limit).
HOSTILE_NESTING = 100_000


def _replace(path: Path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()


def _fifo(path: Path) -> None:
    _replace(path)
    os.mkfifo(path)


def _symlink_loop(path: Path) -> None:
    _replace(path)
    os.symlink(path.name, path)


def _device(path: Path) -> None:
    """A character device like /dev/zero (endless zeros) where the file was; a symlink to
    /dev/zero where ``mknod`` is not permitted (an unprivileged CI runner)."""
    _replace(path)
    try:
        os.mknod(path, stat.S_IFCHR | 0o444, os.makedev(1, 5))
    except PermissionError:
        os.symlink("/dev/zero", path)


def _huge(path: Path) -> None:
    """A sparse file one byte over the store's size limit (no disk space used)."""
    _replace(path)
    with open(path, "wb") as handle:
        handle.truncate(MAX_ARTIFACT_BYTES + 1)


def _invalid_utf8(path: Path) -> None:
    data = path.read_bytes()
    _write(path, data[: len(data) // 2] + b"\xff\xfe" + data[len(data) // 2 :])


def _duplicate_key(path: Path) -> None:
    """The first member of the (first line's) object written twice: JSON parsers keep one."""
    data = path.read_bytes()
    line, newline, rest = data.partition(b"\n")
    document = json.loads(line)
    key = sorted(document)[0]
    member = canonical_bytes({key: document[key]})[1:-1]
    _write(path, b"{" + member + b"," + line[1:] + newline + rest)


def _nested(path: Path) -> None:
    _write(path, b"[" * HOSTILE_NESTING + b"\n")  # a complete line of an event log, too


HOSTILE: dict[str, Callable[[Path], None]] = {
    "nesting": _nested,
    "fifo": _fifo,
    "symlink_loop": _symlink_loop,
    "device": _device,
    "huge": _huge,
    "invalid_utf8": _invalid_utf8,
    "duplicate_keys": _duplicate_key,
}


def hostile_files(root: Path, relpath: str) -> list[Tamper]:
    """Each :data:`HOSTILE` change of ``relpath`` (duplicate keys: JSON objects only)."""
    tampers = []
    for kind, change in HOSTILE.items():
        if kind == "duplicate_keys" and not _holds_object(root / relpath):
            continue
        tampers.append(
            Tamper(kind, relpath, "", lambda case, change=change: change(case / relpath))
        )
    return tampers


def _holds_object(path: Path) -> bool:
    try:
        document = json.loads(path.read_bytes().partition(b"\n")[0])
    except ValueError:
        return False
    return isinstance(document, dict) and bool(document)


# --- the matrix -----------------------------------------------------------------------------------

#: Values the issue named explicitly, edited on top of the spread sample of each file type.
NAMED_EDITS: dict[str, tuple[tuple[Any, ...], ...]] = {
    "input.json": (("reported_at",), ("provider",), ("schema_version",)),
    "package.json": (("package_id",),),
    "case.json": (("sources", 0, "chars"),),
    "entity-resolution/input.json": (
        ("snapshot", "label"),
        ("snapshot", "backend"),
        ("max_candidates",),
        ("catalogs", 0, "name"),
        ("catalogs", 1, "name"),
    ),
    "entity-resolution/plan.json": (("request_sha256",), ("schema_version",)),
    "entity-resolution/assessment.json": (("assessment", "assessments", 0, "search_id"),),
    "dispatch record": (
        ("usage", "input"),
        ("provider",),
        ("model",),
        ("request_id",),
        ("request", "messages", 0, "content"),
        ("request", "system"),
    ),
}


def generate(root: Path) -> list[Tamper]:
    """The tamper matrix of the case folder at ``root`` (which is only read)."""
    files = package_files(root)
    tampers: list[Tamper] = []
    by_type: dict[str, list[str]] = {}
    for relpath in files:
        kind = file_type(relpath)
        by_type.setdefault(kind, []).append(relpath)
        tampers += hostile_files(root, relpath)
        if relpath.endswith("events.jsonl"):
            tampers += event_tampers(root, relpath)
            continue
        tampers += byte_flips(root, relpath)
        tampers.append(deletion(relpath))
        tampers.append(truncation(relpath))
        if relpath.endswith(".json"):
            tampers += value_edits(root, relpath, NAMED_EDITS.get(kind, ()))
    # swaps: two files of one type, and files of different types holding JSON
    for same in by_type.values():
        if len(same) > 1:
            tampers.append(swap(same[0], same[-1]))
    json_files = [f for f in files if f.endswith(".json") and not f.startswith("report/")]
    for first, second in itertools.pairwise(json_files):
        if file_type(first) != file_type(second):
            tampers.append(swap(first, second))
    tampers += injections(root, files)
    return tampers


def injections(root: Path, files: list[str]) -> list[Tamper]:
    """A file of each kind added where the store could have written one."""
    tampers = [injection("notes.txt", b"hello", "unknown file at the package root")]
    tampers.append(injection("report/extra.txt", b"more", "a report file package.json lacks"))
    for relpath in files:
        kind = file_type(relpath)
        folder, name = relpath.rsplit("/", 1) if "/" in relpath else ("", relpath)
        if kind == "capture":
            doc = json.loads((root / relpath).read_bytes())
            doc["result"]["rows"] = []
            data = canonical_bytes(doc)
            tampers.append(
                injection(f"{folder}/{sha256_hex(data)}.json", data, "a well-named extra capture")
            )
            tampers.append(
                injection(f"{folder}/{'0' * 64}.json", data, "a capture under a wrong hash name")
            )
        elif kind == "dispatch record":
            doc = json.loads((root / relpath).read_bytes())
            stage = name.rsplit("-", 1)[0]
            doc["attempt"] = 9
            data = canonical_bytes(doc)
            tampers.append(injection(f"{folder}/{stage}-9.json", data, "an extra dispatch record"))
            rejected = folder.removesuffix("dispatches") + f"rejected/{stage}-9.json"
            tampers.append(injection(rejected, data, "an extra rejected record"))
        elif kind == "context manifest":
            stage = name.split(".", 1)[0].rsplit("-", 1)[0]
            tampers.append(
                injection(
                    f"{folder}/{stage}-9.manifest.json",
                    (root / relpath).read_bytes(),
                    "a manifest of no dispatch",
                )
            )
        elif name == "events.jsonl":
            tampers.append(injection(f"{folder}/notes.json", b"{}", "an unknown revision file"))
            tampers.append(
                injection(f"{folder}/entity-resolution/notes.json", b"{}", "an unknown ER file")
            )
    seen: set[str] = set()
    unique = []
    for tamper in tampers:
        if tamper.target not in seen and tamper.target not in files:
            seen.add(tamper.target)
            unique.append(tamper)
    return unique


def applied_copy(source: Path, tamper: Tamper, destination: Path) -> Path:
    """A copy of the case folder ``source`` at ``destination`` with ``tamper`` applied."""
    shutil.copytree(source, destination)
    tamper.apply(destination)
    return destination
