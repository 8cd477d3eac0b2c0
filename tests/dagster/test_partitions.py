import dagster as dg
import pytest

from vba_assets.defs.partitions import parse_partition_key, partition_key, registration_requests
from vba_assets.errors import ErrorCode, InputError


def test_partition_key_round_trip() -> None:
    key = partition_key("BUG-000020", "0001")
    assert str(key) == "BUG-000020|0001"
    assert parse_partition_key(key) == ("BUG-000020", "0001")
    assert parse_partition_key("BUG-000020|0001") == ("BUG-000020", "0001")


@pytest.mark.parametrize(
    "case_id", ["BUG|1", "BUG,1", "", "-BUG", "a" * 65, "BUG 1", "BÜG", "../x", "BUG\n"]
)
def test_invalid_case_ids_never_reach_dagster(case_id: str) -> None:
    with pytest.raises(InputError) as excinfo:
        partition_key(case_id, "0001")
    assert excinfo.value.code is ErrorCode.INVALID_CASE_ID
    with pytest.raises(InputError):
        registration_requests([case_id], [])


@pytest.mark.parametrize("revision", ["1", "0000", "00001", "abcd", "0001|", ""])
def test_invalid_revisions_rejected(revision: str) -> None:
    with pytest.raises(InputError) as excinfo:
        partition_key("BUG-1", revision)
    assert excinfo.value.code is ErrorCode.INVALID_REVISION


@pytest.mark.parametrize("key", ["BUG-1", "BUG-1|0001|x", "BUG|1|0001", "|0001"])
def test_malformed_partition_strings_rejected(key: str) -> None:
    with pytest.raises(InputError):
        parse_partition_key(key)


def test_registration_requests_are_sorted_and_deduplicated() -> None:
    requests = registration_requests(["B-2", "A-1", "B-2"], ["0001"])
    assert requests == [
        dg.AddDynamicPartitionsRequest("case", ["A-1", "B-2"]),
        dg.AddDynamicPartitionsRequest("revision", ["0001"]),
    ]
