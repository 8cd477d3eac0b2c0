"""The one module that builds and parses partition keys (ARCHITECTURE 3).

One partition per **existing** (case, revision) pair: a single
:class:`dagster.DynamicPartitionsDefinition` named ``case_revision`` whose keys are
``<case>|<revision>`` (e.g. ``BUG-000020|0001``). A ``MultiPartitionsDefinition`` of two dynamic
dimensions (the design before) is a cross product: one ``vba revision new`` gave every case a
phantom ``|0002`` partition that the UI offered to backfill.

Ids are validated here before they reach Dagster (case ids cannot hold ``|``, so a key splits in
exactly one way). The key strings are the same as the multi-partition keys of the earlier design,
so an instance that ran the old definitions keeps every partition's history: the inbox sensor
registers the keys of every existing revision, and nothing else has to be migrated (README,
"Going beyond one machine").

All revisions of one case are :func:`case_keys`; :func:`selection_text` writes them in the
partition-selection syntax of the UI's backfill dialog.
"""

import warnings
from collections.abc import Iterable

import dagster as dg

from vba_assets.domain.case.ids import validate_case_id, validate_revision
from vba_assets.errors import ErrorCode, InputError

# Per-partition asset checks (AssetCheckSpec(partitions_def=...)) are a Preview API in Dagster 1.13;
# the release is pinned in pyproject.toml and the behaviour is covered by tests/dagster.
warnings.filterwarnings(
    "ignore", message="Specifying a partitions_def on an AssetCheckSpec", category=dg.PreviewWarning
)

#: The name of the dynamic partition set (what ``instance.get_dynamic_partitions`` takes).
PARTITIONS_NAME = "case_revision"
SEPARATOR = "|"

case_revision_partitions = dg.DynamicPartitionsDefinition(name=PARTITIONS_NAME)


def partition_key(case_id: str, revision: str) -> str:
    """The partition key of one (case, revision), after validating both ids."""
    return f"{validate_case_id(case_id)}{SEPARATOR}{validate_revision(revision)}"


def parse_partition_key(key: str) -> tuple[str, str]:
    """``(case_id, revision)`` of a partition key; invalid keys raise :class:`InputError`."""
    parts = str(key).split(SEPARATOR)
    if len(parts) != 2:
        raise InputError(
            ErrorCode.INVALID_PARTITION_KEY,
            f"invalid partition key {key!r}: expected '<case>{SEPARATOR}<revision>'",
            key=str(key),
        )
    case_id, revision = parts
    return validate_case_id(case_id), validate_revision(revision)


def partition_keys(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """The validated keys of ``(case, revision)`` pairs, sorted, without repeats."""
    return sorted({partition_key(case_id, revision) for case_id, revision in pairs})


def registration_request(
    pairs: Iterable[tuple[str, str]],
) -> list[dg.AddDynamicPartitionsRequest]:
    """A request that adds the validated keys of ``pairs`` (none when ``pairs`` is empty)."""
    keys = partition_keys(pairs)
    return [dg.AddDynamicPartitionsRequest(PARTITIONS_NAME, keys)] if keys else []


def case_keys(keys: Iterable[str], case_id: str) -> list[str]:
    """The keys of every revision of ``case_id`` among ``keys``, in revision order."""
    case_id = validate_case_id(case_id)
    found = [parse_partition_key(key) for key in keys]
    return [partition_key(c, r) for c, r in sorted(found) if c == case_id]


def latest_revision_key(keys: Iterable[str], case_id: str) -> str | None:
    """The key of the newest registered revision of ``case_id``, if any."""
    found = case_keys(keys, case_id)
    return found[-1] if found else None


def selection_text(keys: Iterable[str]) -> str:
    """``"A|0001", "A|0002"``: what the UI's backfill dialog takes as its partition selection.

    The dialog's unquoted keys and wildcards allow only ``[A-Za-z0-9_:./@-]``; a ``|`` key must be
    quoted (and is then matched literally).
    """
    return ", ".join(f'"{key}"' for key in keys)


def registered_keys(instance: dg.DagsterInstance) -> list[str]:
    """Every registered partition key, in registration order."""
    return list(instance.get_dynamic_partitions(PARTITIONS_NAME))


def register(instance: dg.DagsterInstance, pairs: Iterable[tuple[str, str]]) -> list[str]:
    """Add the keys of ``pairs`` that are not registered yet (tests, benchmarks, tools)."""
    known = set(registered_keys(instance))
    new = [key for key in partition_keys(pairs) if key not in known]
    if new:
        instance.add_dynamic_partitions(PARTITIONS_NAME, new)
    return new


def run_tags(case_id: str, revision: str, provider: str, model: str | None) -> dict[str, str]:
    """The tags a run of one case revision carries (the Runs page filters on them)."""
    tags = {"vba/case": case_id, "vba/revision": revision, "vba/provider": provider}
    if model:
        tags["vba/model"] = model
    return tags
