"""The name index's keys laid out for its two scans, built once and kept (pure logic).

:meth:`~vba_assets.heuristic.name_index.NameIndex.containing` looks for a text in every
normalized name and :meth:`~vba_assets.heuristic.name_index.NameIndex.closest` scores a
misspelling against the names whose shape can reach the cutoff. Both use a :class:`ScanLayout`
instead of the sorted keys (which take about half a second to sort and lay out in every new
process); the index keeps it in its store (:data:`SCAN_LAYOUT_VERSION`), so a
later process reads it back as a handful of long strings:

* :attr:`ScanLayout.blobs`: the sorted keys in three newline-joined blobs by what they hold
  (:func:`partition_of`): Latin-1 only (one byte a character, about two thirds of the
  characters), wider with an ASCII letter, wider without one. A text can only be in a key holding
  all of its characters, so a text of ASCII letters skips the third blob and one with a wider
  character the first; the matching keys of the blobs it needs, merged, come in the same sorted
  order as a scan of all keys (:meth:`ScanLayout.matching_keys`);
* :attr:`ScanLayout.shapes`: the keys by (length, count of ASCII characters), newline-joined and
  split when a bucket is first needed (:meth:`ScanLayout.shortlist`).
"""

import heapq
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Bump when :func:`build_scan_layout` or the document changes (part of the kept name).
SCAN_LAYOUT_VERSION = 1
#: How many shortlists (one per query length, ASCII-ness and cutoff) :class:`ScanLayout` keeps.
KEPT_SHORTLISTS = 16
_LATIN1, _WIDE_ASCII, _WIDE = 0, 1, 2
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def partition_of(text: str) -> int:
    """Which blob a key belongs to: Latin-1 only, wider with an ASCII letter, wider without."""
    if text.isascii() or max(text) <= "\xff":
        return _LATIN1
    return _WIDE_ASCII if _ASCII_LETTERS.intersection(text) else _WIDE


def blobs_for(needle: str) -> tuple[int, ...]:
    """The blobs whose keys may contain ``needle`` (all its characters must be in the key)."""
    latin1 = needle.isascii() or max(needle) <= "\xff"
    letters = bool(_ASCII_LETTERS.intersection(needle))
    return tuple(
        number
        for number, possible in ((_LATIN1, latin1), (_WIDE_ASCII, True), (_WIDE, not letters))
        if possible
    )


def shape_of(key: str) -> str:
    """The bucket of ``key`` in :attr:`ScanLayout.shapes`: ``"<length> <ASCII characters>"``."""
    return f"{len(key)} {len(key.encode('ascii', 'ignore'))}"


@dataclass(eq=False)
class ScanLayout:
    """The keys of a name index in newline-joined blobs (see the module docstring)."""

    blobs: tuple[str, str, str]
    shapes: Mapping[str, str]
    _split: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _shortlists: dict[tuple[int, bool, float], list[str]] = field(default_factory=dict, repr=False)
    #: One index serves every case of a ``vba eval --jobs N`` run (threads): the memo's eviction
    #: must not race (two threads evicting the same oldest entry raised ``KeyError``).
    _memo_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def matching_keys(self, needle: str) -> Iterator[str]:
        """Every key containing ``needle`` (no newline in it), in sorted order."""
        found = [_matches(self.blobs[number], needle) for number in blobs_for(needle)]
        return found[0] if len(found) == 1 else heapq.merge(*found)

    def shortlist(self, query: str, cutoff: float) -> list[str]:
        """The keys whose shape lets them reach ``cutoff`` against ``query``: ones longer or
        shorter than the Indel ratio allows, or, for an ASCII ``query``, with too few ASCII
        characters, cannot (:func:`could_reach`). Kept for the last few query shapes."""
        ascii_query = query.isascii()
        memo = (len(query), ascii_query, cutoff)
        with self._memo_lock:
            kept = self._shortlists.get(memo)
        if kept is not None:
            return kept
        found = []
        for shape, joined in self.shapes.items():
            length, ascii_count = map(int, shape.split(" "))
            common = min(len(query), ascii_count if ascii_query else length)
            if could_reach(common, len(query) + length, cutoff):
                found.extend(self._keys_of(shape, joined))
        with self._memo_lock:
            if memo not in self._shortlists and len(self._shortlists) >= KEPT_SHORTLISTS:
                del self._shortlists[next(iter(self._shortlists))]
            self._shortlists[memo] = found
        return found

    def _keys_of(self, shape: str, joined: str) -> list[str]:
        keys = self._split.get(shape)
        if keys is None:
            keys = self._split[shape] = joined.split("\n")
        return keys


def _matches(blob: str, needle: str) -> Iterator[str]:
    position = blob.find(needle)
    while position >= 0:
        start = blob.rfind("\n", 0, position) + 1
        end = blob.find("\n", position)
        if end < 0:
            yield blob[start:]
            return
        yield blob[start:end]
        position = blob.find(needle, end + 1)


def could_reach(common: int, total: int, cutoff: float) -> bool:
    """Whether two strings of ``total`` characters together, at most ``common`` of which can be
    matched, can reach an Indel ratio of ``cutoff`` (ratio = 100 * 2 * LCS / total; an ASCII
    query's LCS with a name is at most the name's ASCII characters). A hair of slack keeps a
    borderline name in: it is scored, never wrongly skipped."""
    return 200.0 * common / total + 1e-9 >= cutoff


def build_scan_layout(sorted_keys: Iterable[str]) -> ScanLayout:
    """The layout of ``sorted_keys`` (distinct, non-empty, without newlines, sorted)."""
    parts: tuple[list[str], list[str], list[str]] = ([], [], [])
    shapes: dict[str, list[str]] = {}
    for key in sorted_keys:
        parts[partition_of(key)].append(key)
        shapes.setdefault(shape_of(key), []).append(key)
    blobs = ("\n".join(parts[0]), "\n".join(parts[1]), "\n".join(parts[2]))
    return ScanLayout(blobs, {shape: "\n".join(keys) for shape, keys in shapes.items()})


def scan_layout_document(layout: ScanLayout) -> dict[str, Any]:
    """``layout`` as JSON data for :func:`scan_layout_from_document`."""
    return {"version": SCAN_LAYOUT_VERSION, "blobs": list(layout.blobs), "shapes": layout.shapes}


def scan_layout_from_document(document: Any) -> ScanLayout:
    """The layout :func:`scan_layout_document` wrote (``ValueError`` for another version or
    shape)."""
    blobs, shapes = document["blobs"], document["shapes"]
    if (
        document.get("version") != SCAN_LAYOUT_VERSION
        or not isinstance(blobs, list)
        or len(blobs) != 3
        or not all(isinstance(blob, str) for blob in blobs)
        or not isinstance(shapes, dict)
        or not all(isinstance(joined, str) for joined in shapes.values())
    ):
        raise ValueError("not a scan layout of this version")
    return ScanLayout((blobs[0], blobs[1], blobs[2]), shapes)
