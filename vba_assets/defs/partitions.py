"""The one module that builds and parses partition keys (ARCHITECTURE 3).

Partitions are ``case x revision``: a :class:`dagster.MultiPartitionsDefinition` of two dynamic
dimensions. Dagster orders dimensions by name, so the string key is ``<case>|<revision>``
(e.g. ``BUG-000020|0001``). Ids are validated here before they reach Dagster, which silently accepts
``|`` and ``,`` in dynamic keys and then loses the partition.
"""

import warnings

import dagster as dg

from vba_assets.domain.case.ids import validate_case_id, validate_revision
from vba_assets.errors import ErrorCode, InputError

# Per-partition asset checks (AssetCheckSpec(partitions_def=...)) are a Preview API in Dagster 1.13;
# the release is pinned in pyproject.toml and the behaviour is covered by tests/dagster.
warnings.filterwarnings(
    "ignore", message="Specifying a partitions_def on an AssetCheckSpec", category=dg.PreviewWarning
)

CASE_DIMENSION = "case"
REVISION_DIMENSION = "revision"

case_partitions = dg.DynamicPartitionsDefinition(name=CASE_DIMENSION)
revision_partitions = dg.DynamicPartitionsDefinition(name=REVISION_DIMENSION)
case_revision_partitions = dg.MultiPartitionsDefinition(
    {CASE_DIMENSION: case_partitions, REVISION_DIMENSION: revision_partitions}
)


def partition_key(case_id: str, revision: str) -> dg.MultiPartitionKey:
    """The partition key of one (case, revision), after validating both ids."""
    return dg.MultiPartitionKey(
        {
            CASE_DIMENSION: validate_case_id(case_id),
            REVISION_DIMENSION: validate_revision(revision),
        }
    )


def parse_partition_key(key: str | dg.MultiPartitionKey) -> tuple[str, str]:
    """``(case_id, revision)`` of a partition key; invalid keys raise :class:`InputError`."""
    if isinstance(key, dg.MultiPartitionKey):
        dims = key.keys_by_dimension
        case_id, revision = dims.get(CASE_DIMENSION, ""), dims.get(REVISION_DIMENSION, "")
    else:
        parts = str(key).split("|")
        if len(parts) != 2:
            raise InputError(
                ErrorCode.INVALID_PARTITION_KEY,
                f"invalid partition key {key!r}: expected '<case>|<revision>'",
                key=str(key),
            )
        case_id, revision = parts
    return validate_case_id(case_id), validate_revision(revision)


def registration_requests(
    case_ids: list[str], revisions: list[str]
) -> list[dg.AddDynamicPartitionsRequest]:
    """Requests that add validated case ids and revisions as dynamic partitions."""
    requests = []
    if case_ids:
        requests.append(
            dg.AddDynamicPartitionsRequest(
                CASE_DIMENSION, [validate_case_id(c) for c in sorted(set(case_ids))]
            )
        )
    if revisions:
        requests.append(
            dg.AddDynamicPartitionsRequest(
                REVISION_DIMENSION, [validate_revision(r) for r in sorted(set(revisions))]
            )
        )
    return requests
