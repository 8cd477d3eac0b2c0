"""A small S3 client for create-only objects (boto3).

Why boto3 and not obstore or s3fs: the store needs exactly four calls (create-only PUT, GET, LIST,
and the server's clock), and for the first one it needs ``If-None-Match: *`` on ``PutObject``
passed to the server as is. boto3/botocore expose it as the documented ``IfNoneMatch`` parameter
(and ``IfMatch``) and surface a refusal as HTTP 412 ``PreconditionFailed``; obstore's create mode
depends on its own conditional-put configuration of the Rust ``object_store`` crate, and s3fs adds
a file-system layer (and aiobotocore) over the same botocore. moto, which the tests use in server
mode, is built on botocore too.

Every object the store creates is immutable: :meth:`ObjectStore.create` never overwrites. The only
clock used for lease expiry is the server's (``Date`` header and ``LastModified``), so hosts with
skewed clocks agree on when a lease expired.

Errors are :class:`~vba_assets.errors.StoreError` ``OBJECT_STORE_UNAVAILABLE`` (network, HTTP 5xx
after botocore's retries, a refused credential) naming the operation and key, never a secret.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from vba_assets.errors import ErrorCode, StoreError
from vba_assets.workspace_config import BucketUrl, parse_bucket_url

#: Conditional creates of one key before giving up on competing writes that never complete.
_CREATE_ATTEMPTS = 5


@dataclass(frozen=True)
class ObjectInfo:
    """A listed object: its key relative to the listed prefix, size and server mtime."""

    name: str
    size: int
    last_modified: datetime


@dataclass(frozen=True)
class Fetched:
    """A fetched object: its bytes, its server mtime, and the server's clock at the reply."""

    data: bytes
    last_modified: datetime
    server_now: datetime


class ObjectStore:
    """One bucket and prefix. Keys passed in are relative to the prefix.

    Args:
        url: ``s3://bucket/prefix``.
        endpoint_url: An S3-compatible endpoint (MinIO, Ceph, moto, ...); None: AWS.
        region: The bucket's region.
        credentials: ``(access key id, secret access key, session token or None)``; None: boto3's
            own chain (instance role, ``~/.aws``, ``AWS_*`` variables).
        client: An existing boto3 S3 client (tests); the other arguments are then ignored.
    """

    def __init__(
        self,
        url: BucketUrl | str,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        credentials: tuple[str, str, str | None] | None = None,
        client: Any = None,
    ) -> None:
        self.url = url if isinstance(url, BucketUrl) else parse_bucket_url(url)
        self.endpoint_url = endpoint_url
        if client is None:
            import boto3
            from botocore.config import Config

            keys: dict[str, Any] = {}
            if credentials is not None:
                keys = {
                    "aws_access_key_id": credentials[0],
                    "aws_secret_access_key": credentials[1],
                    "aws_session_token": credentials[2],
                }
            config = Config(
                retries={"mode": "standard", "max_attempts": 4},
                connect_timeout=5,
                read_timeout=30,
                max_pool_connections=16,
            )
            client = boto3.session.Session().client(
                "s3", endpoint_url=endpoint_url, region_name=region, config=config, **keys
            )
        self._client = client

    def __repr__(self) -> str:
        return f"ObjectStore({str(self.url)!r}, endpoint_url={self.endpoint_url!r})"

    def full_key(self, key: str) -> str:
        """The bucket key of ``key`` (the prefix joined in front)."""
        return f"{self.url.prefix}/{key}" if self.url.prefix else key

    # -- the four operations -------------------------------------------------------------------

    def create(self, key: str, data: bytes) -> bytes | None:
        """Create ``key`` with ``data`` only if no object has that key (``If-None-Match: *``).

        Returns:
            None if this call created it, else the bytes of the object that was already there
            (identical bytes are the caller's no-op: a retried request whose first attempt
            succeeded looks like this too).
        """
        from botocore.exceptions import ClientError

        put = self._client.put_object
        for _ in range(_CREATE_ATTEMPTS):
            try:
                # 412: the key exists; 409: a concurrent conditional write to it (S3): re-read
                self._call("create", key, put, expected=(409, 412), Body=data, IfNoneMatch="*")
                return None
            except ClientError:
                pass
            existing = self.get(key)
            if existing is not None:
                return existing.data
            # a 409 whose competing write did not complete: the key is free again, try again
        raise StoreError(
            ErrorCode.OBJECT_STORE_UNAVAILABLE,
            f"object store {self.url}: create {key!r} conflicted {_CREATE_ATTEMPTS} times "
            "with writes that never completed",
            bucket=self.url.bucket,
            key=self.full_key(key),
            operation="create",
        )

    def get(self, key: str) -> Fetched | None:
        """The object at ``key`` (None if there is none)."""
        from botocore.exceptions import ClientError

        try:
            reply = self._call("get", key, self._client.get_object, expected=(404,))
        except ClientError:
            return None
        data = reply["Body"].read()
        return Fetched(bytes(data), _aware(reply["LastModified"]), _server_now(reply))

    def list(self, prefix: str, *, delimiter: bool = False) -> list[ObjectInfo]:
        """Objects whose key starts with ``prefix`` (sorted by key; names relative to it).

        With ``delimiter``, only the direct children: objects, and each sub-folder once as
        ``<name>/`` (size 0).
        """
        return sorted(self._list(prefix, delimiter), key=lambda info: info.name)

    def server_now(self) -> datetime:
        """The server's clock (the ``Date`` of a cheap request)."""
        reply = self._call("head bucket", "", self._client.head_bucket, with_key=False)
        return _server_now(reply)

    def put_overwriting(self, key: str, data: bytes) -> None:
        """An unconditional PUT. The store never calls it: tests use it to tamper with an
        object as an attacker with write access would."""
        self._call("put", key, self._client.put_object, Body=data)

    # -- helpers -------------------------------------------------------------------------------

    def _list(self, prefix: str, delimiter: bool) -> Iterator[ObjectInfo]:
        from botocore.exceptions import BotoCoreError, ClientError

        full = self.full_key(prefix)
        arguments: dict[str, Any] = {"Bucket": self.url.bucket, "Prefix": full}
        if delimiter:
            arguments["Delimiter"] = "/"
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(**arguments):
                for item in page.get("Contents", []):
                    name = item["Key"][len(full) :]
                    yield ObjectInfo(name, int(item["Size"]), _aware(item["LastModified"]))
                for common in page.get("CommonPrefixes", []):
                    yield ObjectInfo(
                        common["Prefix"][len(full) :], 0, datetime.min.replace(tzinfo=UTC)
                    )
        except (ClientError, BotoCoreError) as error:
            raise self._unavailable("list", prefix, error) from None

    def _call(
        self,
        what: str,
        key: str,
        method: Any,
        *,
        with_key: bool = True,
        expected: tuple[int, ...] = (),
        **kwargs: Any,
    ) -> Any:
        """``method(Bucket=..., Key=..., **kwargs)``; a ``ClientError`` with an ``expected``
        status is re-raised for the caller, anything else is ``OBJECT_STORE_UNAVAILABLE``."""
        from botocore.exceptions import BotoCoreError, ClientError

        if with_key:
            kwargs["Key"] = self.full_key(key)
        try:
            return method(Bucket=self.url.bucket, **kwargs)
        except ClientError as error:
            if _status(error) in expected:
                raise
            raise self._unavailable(what, key, error) from None
        except BotoCoreError as error:
            raise self._unavailable(what, key, error) from None

    def _unavailable(self, what: str, key: str, error: Exception) -> StoreError:
        return StoreError(
            ErrorCode.OBJECT_STORE_UNAVAILABLE,
            f"object store {self.url} ({self.endpoint_url or 'AWS'}): {what} {key!r} failed: "
            f"{type(error).__name__}: {error}",
            bucket=self.url.bucket,
            key=self.full_key(key),
            operation=what,
        )


def _status(error: Any) -> int:
    return int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _server_now(reply: dict[str, Any]) -> datetime:
    header = reply.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
    if not header:
        return datetime.now(UTC)  # a server without a Date header: the local clock, the best left
    return _aware(parsedate_to_datetime(header))
