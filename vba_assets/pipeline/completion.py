"""Resume completes records: what a crash between two writes of a revision left unwritten.

Every write of a stage is atomic, but a stage makes several (a dispatch record, its rejected record,
its context manifest, its event; an artifact and its ``accepted`` event; a capture and its
``captured`` event). A process killed between two of them leaves files without the records that
account for them. :func:`complete_records` runs under the revision lock at the start of every stage
and rebuilds them deterministically from what was published:

* stale temp files of killed writers (``.<name>.tmp-<pid>-<token>``) are removed (under the lock no
  other writer of the revision can own one);
* a missing ``started`` event, from the frozen inputs;
* a dispatch record's missing rejected record and context manifest, recomputed from the record and
  the stage request rebuilt from the frozen artifacts; a missing ``dispatched``/``rejected`` event
  for the records after the last one that has an event (``recovered``: its timing was never
  recorded);
* a missing ``captured`` event of a capture that is the one capture of a search of the plan;
* a missing ``accepted`` event of an accepted artifact whose accepted dispatch exists.

A file that no crash can explain (an extra capture, a record before an evented one) is left alone:
``vba verify`` reports it. Nothing already written is changed.
"""

from typing import Any

from vba_assets.domain.prompting.requests import request_items_for
from vba_assets.domain.resolution.batched import planned_searches
from vba_assets.domain.resolution.models import CaptureArtifact, capture_key
from vba_assets.domain.stages import MODEL_STAGES, Stage
from vba_assets.errors import VbaError
from vba_assets.pipeline.artifacts import accepted_doc, accepted_event_fields, load_plan
from vba_assets.pipeline.frozen_revision import FrozenRevision
from vba_assets.pipeline.recorder import PackageRecorder
from vba_assets.pipeline.revision import started_fields
from vba_assets.pipeline.stage_requests import rebuild_request
from vba_assets.store.atomic import remove_stale_temps
from vba_assets.store.layout import MANIFEST_SUFFIX, dispatch_name


def complete_records(rev: FrozenRevision) -> list[str]:
    """Complete what a crash left unwritten (see the module docstring); returns what was done."""
    package, layout = rev.package, rev.layout
    done = [f"removed {path}" for path in remove_stale_temps(package.path(layout.dir))]
    if not rev.started:
        return done
    events = package.read_events(rev.revision)
    if not any(event["event"] == "started" for event in events):
        package.append_event(rev.revision, "started", **started_fields(rev), recovered=True)
        done.append("started")
    for stage in MODEL_STAGES:
        done += _complete_dispatches(rev, stage, events)
    done += _complete_captures(rev, events)
    done += _complete_accepted(rev, events)
    return done


def _complete_dispatches(
    rev: FrozenRevision, stage: Stage, events: list[dict[str, Any]]
) -> list[str]:
    package, layout = rev.package, rev.layout
    attempts = _record_attempts(package.list_dir(layout.dispatches_dir(stage)), stage)
    if not attempts:
        return []
    outcome_of = {
        event.get("attempt"): event.get("outcome")
        for event in events
        if event["event"] in ("dispatched", "rejected") and event.get("stage") == stage.value
    }
    last_evented = max((a for a in outcome_of if isinstance(a, int)), default=0)

    def incomplete(attempt: int) -> bool:
        if attempt not in outcome_of:
            return attempt > last_evented  # only what a crash after the last event can leave
        if not package.exists(layout.manifest(stage, attempt)):
            return True
        rejected = outcome_of[attempt] == "rejected"
        return rejected and not package.exists(layout.rejected(stage, attempt))

    todo = [attempt for attempt in attempts if incomplete(attempt)]
    if not todo:
        return []
    try:
        request, _ = rebuild_request(rev, stage)
        items = request_items_for(request, rev.prompts)
    except VbaError:
        items = None  # the request cannot be rebuilt: the manifest stays missing (verify says so)
    recorder = PackageRecorder(package, layout, stage, items)
    records = {record.attempt: record for record in recorder.records()}
    done = []
    for attempt in todo:
        record = records[attempt]
        if attempt in outcome_of:
            done += recorder.complete_files(record)
        else:
            recorder.complete(record)
            done.append(f"event of {dispatch_name(stage, attempt)}")
    return done


def _record_attempts(relpaths: list[str], stage: Stage) -> list[int]:
    attempts = []
    for relpath in relpaths:
        name = relpath.rsplit("/", 1)[-1]
        number = name.removeprefix(f"{stage.value}-").removesuffix(".json")
        if (
            name.startswith(f"{stage.value}-")
            and number.isdigit()
            and not name.endswith(MANIFEST_SUFFIX)
        ):
            attempts.append(int(number))
    return sorted(attempts)


def _complete_captures(rev: FrozenRevision, events: list[dict[str, Any]]) -> list[str]:
    package, layout = rev.package, rev.layout
    captured = {event.get("capture") for event in events if event["event"] == "captured"}
    unevented = [r for r in package.list_dir(layout.captures_dir) if r not in captured]
    plan = load_plan(rev) if unevented and rev.resolution_enabled else None
    if plan is None:
        return []
    captured_ids = {
        capture_key(str(event.get("search_id")), event.get("kind"))
        for event in events
        if event["event"] == "captured"
    }
    searches = dict(planned_searches(plan, rev.spec.batched_exact_names))
    done = []
    for relpath in unevented:
        digest = relpath.rsplit("/", 1)[-1].removesuffix(".json")
        try:
            capture = CaptureArtifact.model_validate(
                package.read_object(layout.captures_dir, digest)
            )
        except (VbaError, ValueError):
            continue
        if searches.get(capture.search_id) != capture.search or capture.key in captured_ids:
            continue  # not a capture this revision could have written: verify reports it
        if capture.kind is not None and not rev.spec.exact_name_coverage:
            continue  # an exact-name capture before protocol v6: verify reports it
        package.append_event(
            rev.revision,
            "captured",
            search_id=capture.search_id,
            capture=relpath,
            rows=len(capture.result.rows),
            truncated=capture.result.truncated,
            recovered=True,
            **({} if capture.kind is None else {"kind": capture.kind}),
        )
        captured_ids.add(capture.key)
        done.append(f"captured event of {capture.key}")
    return done


def _complete_accepted(rev: FrozenRevision, events: list[dict[str, Any]]) -> list[str]:
    package, layout = rev.package, rev.layout
    accepted = {event.get("artifact") for event in events if event["event"] == "accepted"}
    done = []
    for stage in MODEL_STAGES:
        relpath = layout.artifact(stage)
        assert relpath is not None
        if relpath in accepted:
            continue
        try:
            doc = accepted_doc(rev, relpath)
        except VbaError:
            continue
        if doc is None or not isinstance(doc.get("accepted_dispatch"), str):
            continue
        name = doc["accepted_dispatch"]
        attempt = name.removeprefix(f"dispatches/{stage.value}-").removesuffix(".json")
        if not attempt.isdigit() or not package.exists(layout.dispatch(stage, int(attempt))):
            continue
        fields = accepted_event_fields(rev, stage, int(attempt))
        package.append_event(rev.revision, "accepted", **fields, recovered=True)
        done.append(f"accepted event of {stage.value}")
    return done
