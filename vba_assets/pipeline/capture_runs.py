"""The queries of the captures stage and how each is recorded (ARCHITECTURE 6.2, 15).

Every search of the accepted plan gets one capture: a literal contains search, or (protocol v4)
the fetch of the identity it links. Protocol v6 (``exact_name_coverage``) adds at most one more
query per search: when a contains capture is truncated, one literal exact-name query on the same
catalog and term, recorded as its own content-addressed capture (``kind`` ``exact_name``,
``completes`` naming the truncated capture's sha256) with its own coverage notes. So a case runs
at most two queries per search, and a resumed stage runs only what is missing (a crash between
the two queries leaves the truncated capture; the resume runs the exact one).

Protocol v6 (``batched_exact_names``) also gives each batched name (an unsearched name of the plan,
:mod:`vba_assets.domain.resolution.batched`) its own search after the plan's: its one query is
the exact-name query, recorded as that search's own capture (``kind`` ``batched_exact_name``),
never completed by a second one.

The caller (:func:`vba_assets.pipeline.stage_runs.run_captures`) holds the revision lock and
turns a :class:`~vba_assets.errors.ResearchUnavailable` into the recorded block, for both
queries alike.
"""

from collections.abc import Callable, Collection, Sequence

from vba_assets.domain.catalog.world import SearchResult
from vba_assets.domain.resolution.models import (
    BATCHED_EXACT_NAME,
    EXACT_NAME,
    CaptureArtifact,
    ProposedSearch,
    capture_key,
)
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.revision import RevisionEnv

#: ``key -> (sha256, capture)`` as :func:`vba_assets.pipeline.artifacts.load_captures` returns.
Captures = dict[str, tuple[str, CaptureArtifact]]
#: Runs one query for a search (the contains search or fetch; or the exact-name query).
Query = Callable[[ProposedSearch], SearchResult]


def needs_exact(rev: FrozenRevision, search: ProposedSearch, own: CaptureArtifact) -> bool:
    """Whether ``own`` (a search's own capture) is completed by an exact-name query: protocol
    v6, a name search (not an identity reference), and a truncated result."""
    return (
        rev.spec.exact_name_coverage
        and search.reference is None
        and own.kind is None
        and own.result.truncated
    )


def pending(
    rev: FrozenRevision, searches: Sequence[tuple[str, ProposedSearch]], done: Captures
) -> bool:
    """Whether any query of the stage is still to run (a missing own or exact-name capture)."""
    for sid, search in searches:
        own = done.get(sid)
        if own is None:
            return True
        if needs_exact(rev, search, own[1]) and capture_key(sid, EXACT_NAME) not in done:
            return True
    return False


def _record(
    env: RevisionEnv,
    rev: FrozenRevision,
    capture: CaptureArtifact,
    elapsed_ms: float | None,
) -> str:
    ref = env.package.write_object(env.layout.captures_dir, capture.model_dump(mode="json"))
    extra = {} if capture.kind is None else {"kind": capture.kind}
    env.package.append_event(
        env.revision,
        "captured",
        search_id=capture.search_id,
        capture=ref.relpath,
        rows=len(capture.result.rows),
        truncated=capture.result.truncated,
        elapsed_ms=elapsed_ms,
        **extra,
    )
    return ref.sha256


def _capture(
    rev: FrozenRevision,
    search_id: str,
    search: ProposedSearch,
    result: SearchResult,
    completes: str | None = None,
    batched: bool = False,
) -> CaptureArtifact:
    if not rev.spec.timing_in_content:  # v3: the query time goes to the event
        result = result.model_copy(update={"elapsed_ms": None})
    return CaptureArtifact(
        schema_version=1 if rev.spec.timing_in_content else 2,
        search_id=search_id,
        search=search,
        result=result,
        kind=EXACT_NAME if completes is not None else BATCHED_EXACT_NAME if batched else None,
        completes=completes,
    )


def execute(
    env: RevisionEnv,
    rev: FrozenRevision,
    searches: Sequence[tuple[str, ProposedSearch]],
    done: Captures,
    own_query: Query,
    enrich: Callable[[CaptureArtifact], CaptureArtifact],
    exact_query: Query,
    batched: Collection[str] = (),
) -> int:
    """Run, in plan order, every query still missing; record each capture and its ``captured``
    event; update ``done``. Returns how many queries ran.

    ``enrich`` completes a search's own capture and its exact-name capture before they are
    written (protocol v6: the quest relations and zone markers of same-name rows,
    :func:`vba_assets.pipeline.tiebreak_captures.with_quest_relations`; the identity for other
    protocols). The searches named in ``batched`` (protocol v6) are batched names: their own
    query is ``exact_query``."""
    executed = 0
    for search_id, search in searches:
        if search_id not in done:
            exact_only = search_id in batched
            result = (exact_query if exact_only else own_query)(search)
            capture = enrich(_capture(rev, search_id, search, result, batched=exact_only))
            done[search_id] = (_record(env, rev, capture, result.elapsed_ms), capture)
            executed += 1
        own_sha, own = done[search_id]
        key = capture_key(search_id, EXACT_NAME)
        if needs_exact(rev, search, own) and key not in done:
            result = exact_query(search)
            capture = enrich(_capture(rev, search_id, search, result, completes=own_sha))
            done[key] = (_record(env, rev, capture, result.elapsed_ms), capture)
            executed += 1
    return executed


def manifest(rev: FrozenRevision, ids: Sequence[str], done: Captures) -> list[list[str]]:
    """The stage's data version input: ``[search_id, sha256]`` per search, each followed (v6)
    by ``[search_id/exact_name, sha256]`` when an exact-name capture completes it."""
    rows = []
    for sid in ids:
        rows.append([sid, done[sid][0]])
        key = capture_key(sid, EXACT_NAME)
        if rev.spec.exact_name_coverage and key in done:
            rows.append([key, done[key][0]])
    return rows
