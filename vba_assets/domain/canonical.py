r"""Canonical JSON (RFC 8785, JCS) and the hashes built on it (ARCHITECTURE 4).

What gets hashed is always :func:`canonical_bytes`: keys sorted by their UTF-16 code units, no
whitespace, numbers in the ECMAScript shortest form (``1.0`` is ``1``, ``-0.0`` is ``0``), strings
as raw UTF-8 with only the mandatory escapes. ``json.dumps(sort_keys=True)`` gets all of these
wrong.

Values are checked before serialization so an error names the JSON pointer of the offending value:
NaN and infinities, integers outside the IEEE 754 safe range (|n| > 2**53 - 1), non-string object
keys, lone surrogates and unsupported types (datetime, bytes, sets, ...) are refused with
:class:`~vba_assets.errors.StoreError` ``ARTIFACT_UNSERIALIZABLE``. Pydantic models, anywhere in the
value, are dumped with ``model_dump(mode="json")`` first.

**Fast path.** The check walks the value once anyway. When it holds no object key with a character
at or above U+D800 and no float that Python prints otherwise than RFC 8785 (exponent forms, see
:func:`_float`; integral floats are passed as the equal int), the standard library's C encoder
(``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``) writes exactly RFC
8785's bytes: integers (within the safe range) print the same, strings get the same escapes (``"``,
``\``, ``\b \f \n \r \t`` and lowercase ``\u00XX`` for the other controls, nothing else), and
code-point key order equals UTF-16 order for keys below U+D800. Otherwise the ``rfc8785`` package
serializes it. ``tests/unit/store/test_canonical.py`` proves both paths byte-identical to ``rfc8785``
on random values (floats, non-BMP keys and strings, every control character) and on every artifact of
real case packages.

**Plain data first.** Most values are plain JSON data already (dicts, lists, strings, safe
integers), which the walk above would only copy. :func:`_plain` first checks the value without copying it (no path, no call per scalar); if it holds nothing the walk would
change or the C encoder would print otherwise, the encoder writes the value itself. Anything else
(a model inside a value, an enum, an integral float, a wide key, a lone surrogate, an unsupported
type) goes through the walk as before, so its bytes and its error (code and pointer) are unchanged
(``tests/unit/store/test_canonical_plain.py``).

**Known canonical bytes.** :func:`parse_canonical` proves stored bytes canonical by serializing
what they parse to and comparing; it remembers the sha256 of bytes it has proven (bounded, per
process), so the same content read again is only parsed. The bytes the store writes
(:func:`stored_canonical_bytes`) join the memo as they are made, so the first read of a file this
process wrote is only parsed too.
"""

import hashlib
import json
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import rfc8785
from pydantic import BaseModel

from vba_assets.errors import ErrorCode, StoreError

#: How deeply arrays and objects may nest in JSON read by :func:`load_json` (the artifacts of a
#: case package nest about 10 levels; the interpreter's recursion limit is about 1000).
MAX_JSON_DEPTH = 64
#: The largest integer magnitude JSON numbers (IEEE 754 doubles) carry exactly.
MAX_SAFE_INTEGER = 2**53 - 1
#: Below this code point, Python's string order equals RFC 8785's UTF-16 code-unit order.
_FIRST_SURROGATE = "\ud800"
#: Python prints a float of a smaller magnitude in exponent form (``1e-05``).
_SMALLEST_PLAIN_FLOAT = 1e-4
#: Every float of this magnitude or more is integral (and infinity is not below it).
_ALL_INTEGRAL = 2.0**52
#: The C encoder as :func:`canonical_bytes` uses it (one instance: encoding keeps no state).
_PLAIN_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
)


def canonical_bytes(obj: object) -> bytes:
    """Serialize ``obj`` as RFC 8785 canonical JSON.

    Raises:
        StoreError: ``ARTIFACT_UNSERIALIZABLE`` naming the JSON pointer of the value that has no
            canonical JSON form.
    """
    if type(obj) is not dict and isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")  # what _convert does first with a model
    data = _plain_bytes(obj)
    if data is not None:
        return data
    plain = [True]  # cleared by the walk when the C encoder's output could differ
    value = _convert(obj, None, plain)
    try:
        if plain[0]:
            text = json.dumps(
                value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
            )
            return text.encode("utf-8")
        return bytes(rfc8785.dumps(value))
    except (UnicodeEncodeError, rfc8785.CanonicalizationError):
        _find_lone_surrogate(value, None)  # raises ARTIFACT_UNSERIALIZABLE naming the pointer
        raise  # pragma: no cover - the search above always finds it


def _plain_bytes(obj: object) -> bytes | None:
    """``obj``'s canonical bytes from the C encoder without a converted copy, when :func:`_plain`
    finds it plain JSON data that the encoder writes exactly as RFC 8785 does; None when the
    converting walk must decide (it converts, or names the bad value)."""
    try:
        if not _plain((obj,)):
            return None
    except RecursionError:  # a cycle or a very deep value: the converting walk raises as before
        return None
    try:
        return _PLAIN_ENCODER.encode(obj).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the converting walk names where it is
        return None


def _plain(items: Iterable[Any]) -> bool:
    """Whether ``items`` hold nothing but exact ``dict`` (string keys below U+D800), ``list``,
    ``tuple``, ``str``, ``bool``, ``None``, integers in the safe range and floats that Python
    prints as RFC 8785 does (finite, non-integral, at least 1e-4 in magnitude): values that
    :func:`_convert` would copy unchanged (a tuple as a list, which the encoder writes alike)
    and keep on the C encoder's path. Only checks: no copy, no path, no call per scalar."""
    for item in items:
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is int:
            if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                continue
            return False
        if kind is dict:
            for key in item:
                if type(key) is not str or not (key.isascii() or max(key) < _FIRST_SURROGATE):
                    return False
            if _plain(item.values()):
                continue
            return False
        if kind is list or kind is tuple:
            if _plain(item):
                continue
            return False
        if kind is not float or item.is_integer():  # an integral float is printed as an int
            return False
        if not _SMALLEST_PLAIN_FLOAT <= abs(item) < _ALL_INTEGRAL:  # NaN is not either
            return False
    return True


def stored_canonical_bytes(obj: object) -> bytes:
    """:func:`canonical_bytes` of a value about to be stored; the bytes join the memo of :func:`parse_canonical`, so reading them back only parses them.

    Sound because canonical bytes parse back to a value whose canonical bytes they are (the
    round trip ``tests/unit/store/test_canonical_plain.py`` proves on random values); bytes
    edited on disk afterwards have another digest and are checked in full.
    """
    data = canonical_bytes(obj)
    _remember_canonical(hashlib.sha256(data).digest())
    return data


def sha256_hex(data: bytes) -> str:
    """Lower-case hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def content_hash(obj: object) -> str:
    """``sha256_hex(canonical_bytes(obj))``: the identity and Dagster data version of a value."""
    return sha256_hex(canonical_bytes(obj))


def to_json_value(obj: object) -> Any:
    """Return ``obj`` as plain JSON data (dict/list/str/int/float/bool/None), checked for JCS."""
    value = _convert(obj, None, [False])  # floats stay floats
    _find_lone_surrogate(value, None)
    return value


#: Where a value sits, built only when an error needs it: ``(parent, key or index)`` or None.
Path = tuple[Any, str | int] | None


def _convert(obj: object, path: Path, plain: list[bool]) -> Any:
    """``obj`` as plain JSON data, refusing what RFC 8785 cannot hold (strings are checked for
    lone surrogates by the encoder, see :func:`_find_lone_surrogate`). While ``plain[0]`` holds,
    a float the C encoder would print differently clears it, and an integral float is returned
    as the equal int (both print the same digits in RFC 8785)."""
    if obj is None or type(obj) is str or type(obj) is bool:
        return obj
    if isinstance(obj, list | tuple):  # before the Mapping ABC check, which is slower
        return [_convert(item, (path, index), plain) for index, item in enumerate(obj)]
    if isinstance(obj, int):  # bool was returned above: it cannot be subclassed
        if abs(obj) > MAX_SAFE_INTEGER:
            _refuse(path, f"integer {obj} is outside the exact JSON range ±(2**53 - 1)")
        return int(obj)
    if isinstance(obj, float):
        return _float(float(obj), path, plain)
    if isinstance(obj, dict | Mapping):  # a plain dict without the ABC check
        result: dict[str, Any] = {}
        for key, item in obj.items():
            if not isinstance(key, str):
                _refuse(path, f"object key {key!r} is a {type(key).__name__}, not a string")
            key = str.__str__(key)  # the plain value, also for (str, Enum) keys
            if plain[0] and key and max(key) >= _FIRST_SURROGATE:
                plain[0] = False  # code-point order and UTF-16 order may differ for this key
            result[key] = _convert(item, (path, key), plain)
        return result
    if isinstance(obj, str):
        return str.__str__(obj)  # the plain value, also for (str, Enum) members
    if isinstance(obj, BaseModel):
        return _convert(obj.model_dump(mode="json"), path, plain)
    _refuse(
        path,
        f"type {type(obj).__name__} has no JSON form; convert it first (e.g. isoformat() for "
        "datetimes, model_dump(mode='json') for models)",
    )


def _float(number: float, path: Path, plain: list[bool]) -> float | int:
    """``number`` checked; for the C encoder, integral values below 2**53 as ints.

    RFC 8785 prints ``str(number)`` reformatted per ECMAScript: the same text when it is in
    plain decimal notation without a ``.0`` ending (a non-integral magnitude of at least 1e-4:
    below 2**52, so never in exponent form), and the integer's digits for an integral value
    below 2**53 (``1.0`` -> ``1``, ``-0.0`` -> ``0``). Anything else, such as ``1e-07`` (RFC
    8785: ``1e-7``), leaves the C encoder's path.
    """
    if math.isnan(number) or math.isinf(number):
        _refuse(path, f"{number!r} is not allowed (RFC 8785 has no NaN or Infinity)")
    if plain[0]:
        magnitude = abs(number)
        if number.is_integer():
            if magnitude <= MAX_SAFE_INTEGER:
                return int(number)
            plain[0] = False
        elif magnitude < _SMALLEST_PLAIN_FLOAT:
            plain[0] = False
    return number


def _find_lone_surrogate(value: Any, path: Path) -> None:
    """Refuse the first string (or key) that is not valid Unicode, naming where it is."""
    if isinstance(value, str):
        _check_string(value, path)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_string(key, path)
            _find_lone_surrogate(item, (path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _find_lone_surrogate(item, (path, index))


def _check_string(text: str, path: Path) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        _refuse(path, "string contains a lone surrogate (not valid Unicode)")


def _pointer(path: Path) -> str:
    parts: list[str] = []
    while path is not None:
        path, part = path
        parts.append(str(part).replace("~", "~0").replace("/", "~1"))
    return "".join(f"/{part}" for part in reversed(parts))


def _refuse(path: Path, problem: str) -> Any:
    where = _pointer(path) or "/"
    raise StoreError(
        ErrorCode.ARTIFACT_UNSERIALIZABLE,
        f"value at {where} cannot be written as canonical JSON: {problem}",
        pointer=where,
    )


def parse_canonical(data: bytes, where: str) -> Any:
    """Parse bytes that must be exactly the canonical JSON of what they encode.

    Args:
        data: The stored bytes.
        where: Names the artifact in the error message (e.g. ``"case BUG-1: plan.json"``).

    Raises:
        StoreError: ``ARTIFACT_CORRUPT`` if the bytes are not UTF-8, not JSON, nested deeper than
            :data:`MAX_JSON_DEPTH` (:func:`load_json`), contain NaN or Infinity, or are valid JSON
            but not in canonical form (whitespace, key order, number
            form, duplicate keys, escapes).
    """
    try:
        value = load_json(data.decode("utf-8"), parse_int=_parse_int)
    except (UnicodeDecodeError, ValueError) as exc:
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT, f"{where} is not valid JSON: {exc}", where=where
        ) from exc
    digest = hashlib.sha256(data).digest()
    if digest in _KNOWN_CANONICAL:
        return value  # these exact bytes were proven canonical before: the check is pure
    try:
        expected = canonical_bytes(value)
    except StoreError as exc:
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"{where} holds a non-canonical value: {exc.message}",
            where=where,
        ) from exc
    if expected != data:
        raise StoreError(
            ErrorCode.ARTIFACT_CORRUPT,
            f"{where} is JSON but not RFC 8785 canonical JSON (it was not written by the store or "
            "was edited afterwards)",
            where=where,
        )
    _remember_canonical(digest)
    return value


#: sha256 digests of byte strings already proven canonical by the check above. Re-serializing to
#: compare is the costly part of every read; the check is a pure function of the bytes, so it is
#: done once per distinct content and process. Other bytes (a file edited on disk) have another
#: digest and are checked in full. At most ``_KNOWN_CANONICAL_LIMIT`` digests (32 bytes each).
#: Lookups are single set operations, atomic under the GIL; the lock keeps the clearing at the
#: limit and the insertion together.
_KNOWN_CANONICAL: set[bytes] = set()
_KNOWN_CANONICAL_LIMIT = 100_000
_KNOWN_CANONICAL_LOCK = threading.Lock()


def _remember_canonical(digest: bytes) -> None:
    with _KNOWN_CANONICAL_LOCK:
        if len(_KNOWN_CANONICAL) >= _KNOWN_CANONICAL_LIMIT:
            _KNOWN_CANONICAL.clear()
        _KNOWN_CANONICAL.add(digest)


def _parse_int(digits: str) -> int | float:
    # JCS writes an integral double above 2**53 (e.g. 1e20) as plain digits: read it back as the
    # double it was, as a JavaScript reader would.
    number = int(digits)
    return number if abs(number) <= MAX_SAFE_INTEGER else float(number)


def load_json(text: str, *, parse_int: Callable[[str], Any] | None = None) -> Any:
    """``json.loads`` of JSON that may come from anywhere (a package file, a model's reply), with
    NaN and Infinity refused and at most :data:`MAX_JSON_DEPTH` nested arrays and objects.

    The standard parser recurses once per level and raises :class:`RecursionError` somewhere near
    the interpreter's recursion limit, how near depending on the caller's own stack; that is
    caught here, and anything it did parse is measured against the fixed limit (without
    recursion), so the same text is refused the same way from any caller, and what is returned
    can be walked recursively.

    Raises:
        ValueError: not JSON, NaN or Infinity (:class:`json.JSONDecodeError`), or nested too deep.
    """
    too_deep = f"arrays and objects nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(text, parse_constant=reject_json_constant, parse_int=parse_int)
    except RecursionError:
        raise ValueError(too_deep) from None
    if not _within_depth(value, MAX_JSON_DEPTH):
        raise ValueError(too_deep)
    return value


def _within_depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests at most ``limit`` arrays and objects (an explicit stack)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if type(item) is dict else item if type(item) is list else ()
        for child in children:
            if type(child) is dict or type(child) is list:
                if depth >= limit:
                    return False
                stack.append((child, depth + 1))
    return True


def reject_json_constant(name: str) -> Any:
    """``json.loads(parse_constant=...)`` hook: NaN, Infinity and -Infinity are not JSON.

    Raises :class:`json.JSONDecodeError` (a ``ValueError``), like any other invalid JSON.
    """
    raise json.JSONDecodeError(f"{name} is not JSON", "", 0)
