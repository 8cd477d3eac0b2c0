"""The object store client against moto in server mode: the conditional writes it relies on."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from botocore.exceptions import ClientError

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.objectstore import ObjectStore, parse_bucket_url


def test_moto_server_honours_if_none_match_on_put_object(bucket: ObjectStore) -> None:
    assert bucket.create("a/one", b"first") is None
    assert bucket.create("a/one", b"second") == b"first"  # refused; the existing bytes returned
    fetched = bucket.get("a/one")
    assert fetched is not None and fetched.data == b"first"
    with pytest.raises(ClientError) as refused:
        bucket._client.put_object(
            Bucket=bucket.url.bucket, Key=bucket.full_key("a/one"), Body=b"x", IfNoneMatch="*"
        )
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412


def test_moto_server_honours_if_match_on_put_object(bucket: ObjectStore) -> None:
    """Not used by the store (its leases need If-None-Match only); checked because the issue
    asks whether moto honours it."""
    client, name, key = bucket._client, bucket.url.bucket, bucket.full_key("k")
    etag = client.put_object(Bucket=name, Key=key, Body=b"v1")["ETag"]
    with pytest.raises(ClientError) as refused:
        client.put_object(Bucket=name, Key=key, Body=b"v2", IfMatch='"0123"')
    assert refused.value.response["Error"]["Code"] == "PreconditionFailed"
    client.put_object(Bucket=name, Key=key, Body=b"v3", IfMatch=etag)
    assert client.get_object(Bucket=name, Key=key)["Body"].read() == b"v3"


def test_concurrent_creates_of_one_key_have_exactly_one_winner(bucket: ObjectStore) -> None:
    bodies = [f"writer {n}".encode() for n in range(12)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda body: bucket.create("race", body), bodies))
    winners = [body for body, result in zip(bodies, results, strict=True) if result is None]
    assert len(winners) == 1
    assert all(result == winners[0] for result in results if result is not None)


def test_listing_is_relative_sorted_and_can_stop_at_folders(bucket: ObjectStore) -> None:
    for key in ("cases/B/x.json", "cases/A/y/z.json", "cases/A/a.json", "other"):
        bucket.create(key, b"{}")
    assert [i.name for i in bucket.list("cases/")] == ["A/a.json", "A/y/z.json", "B/x.json"]
    assert [i.name for i in bucket.list("cases/", delimiter=True)] == ["A/", "B/"]
    assert bucket.get("cases/missing") is None
    assert bucket.server_now().tzinfo is not None


def test_an_unreachable_endpoint_is_object_store_unavailable() -> None:
    store = ObjectStore(
        "s3://nowhere/p",
        endpoint_url="http://127.0.0.1:9149",  # nothing listens there (our range, unused)
        region="us-east-1",
        credentials=("key-id", "very-secret-value", None),
    )
    with pytest.raises(StoreError) as failed:
        store.get("x")
    assert failed.value.code is ErrorCode.OBJECT_STORE_UNAVAILABLE
    assert "127.0.0.1:9149" in failed.value.message and "'x'" in failed.value.message
    assert "very-secret-value" not in str(failed.value) + repr(failed.value.detail)


@pytest.mark.parametrize(
    ("url", "bucket", "prefix"),
    [("s3://vba-cases", "vba-cases", ""), ("s3://vba-cases/team/a/", "vba-cases", "team/a")],
)
def test_bucket_urls(url: str, bucket: str, prefix: str) -> None:
    parsed = parse_bucket_url(url)
    assert (parsed.bucket, parsed.prefix) == (bucket, prefix)


@pytest.mark.parametrize("url", ["s3:/x", "file:///tmp", "s3://UPPER/x", "s3://ok-name/a//b"])
def test_bad_bucket_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        parse_bucket_url(url)
