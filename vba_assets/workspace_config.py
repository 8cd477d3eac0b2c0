"""Where the case packages live: a local folder (the default) or an S3-compatible bucket.

Pure (stdlib + pydantic), below :mod:`vba_assets.config`, which reads it from the project file::

    workspace = "../vba-workspace"            # the local store (a path), as always

    [workspace]                                # or: case packages in a bucket (issue 31)
    url = "s3://vba-cases/prod"                # the system of record
    path = "../vba-workspace"                  # this host's working copy (and inbox)
    endpoint_url = "http://127.0.0.1:9000"     # an S3-compatible endpoint; leave out for AWS
    region = "us-east-1"
    access_key_id_env = "VBA_S3_ACCESS_KEY_ID"          # names of environment variables,
    secret_access_key_env = "VBA_S3_SECRET_ACCESS_KEY"  # never the keys themselves
    lease_s = 60                               # a killed writer's revision lease expires after this

No secret is stored: the credentials are read from the named variables when the bucket is opened.
"""

import os
import re
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator, model_validator

from vba_assets.domain.base import StrictModel
from vba_assets.errors import ConfigError, ErrorCode

_BUCKET_URL = re.compile(
    r"^s3://(?P<bucket>[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(?:/(?P<prefix>.*))?$"
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
#: The working copy's folder when ``[workspace]`` names a bucket but no ``path``.
DEFAULT_WORKING_COPY = "vba-workspace"


@dataclass(frozen=True)
class BucketUrl:
    """``s3://bucket/prefix``: the bucket and the key prefix (no leading or trailing ``/``)."""

    bucket: str
    prefix: str

    def __str__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"


def parse_bucket_url(url: str) -> BucketUrl:
    """Parse ``s3://bucket[/prefix]``; raises ``ValueError`` naming what is wrong."""
    match = _BUCKET_URL.match(url)
    if match is None:
        raise ValueError(f"{url!r} is not s3://<bucket>[/<prefix>] (a DNS-style bucket name)")
    prefix = (match["prefix"] or "").strip("/")
    if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
        raise ValueError(f"{url!r}: the prefix has an empty, '.' or '..' part")
    return BucketUrl(match["bucket"], prefix)


class BucketConfig(StrictModel):
    """``[workspace]`` with a ``url``: the case packages' bucket (``path`` is kept apart)."""

    url: str = Field(description="s3://bucket/prefix: where the case packages live.")
    endpoint_url: str | None = Field(
        default=None, description="An S3-compatible endpoint (http[s]://host:port); None: AWS."
    )
    region: str = Field(default="us-east-1", min_length=1, max_length=64)
    access_key_id_env: str | None = Field(
        default=None, description="Environment variable holding the access key id."
    )
    secret_access_key_env: str | None = Field(
        default=None, description="Environment variable holding the secret access key."
    )
    session_token_env: str | None = Field(
        default=None, description="Environment variable holding a session token, if any."
    )
    lease_s: float = Field(
        default=60.0,
        ge=1.0,
        le=3600.0,
        description="Seconds a revision lease lasts unless renewed (renewed every lease_s / 3).",
    )

    @field_validator("url")
    @classmethod
    def _bucket_url(cls, url: str) -> str:
        parse_bucket_url(url)
        return url

    @field_validator("endpoint_url")
    @classmethod
    def _endpoint(cls, url: str | None) -> str | None:
        if url is not None and not re.match(r"^https?://[^/@\s]+(/\S*)?$", url):
            raise ValueError("use http://host:port or https://host (no credentials in the URL)")
        return url

    @field_validator("access_key_id_env", "secret_access_key_env", "session_token_env")
    @classmethod
    def _env_name(cls, name: str | None) -> str | None:
        if name is not None and not _ENV_NAME.match(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        return name

    @model_validator(mode="after")
    def _both_keys(self) -> "BucketConfig":
        if (self.access_key_id_env is None) != (self.secret_access_key_env is None):
            raise ValueError("set both access_key_id_env and secret_access_key_env, or neither")
        if self.session_token_env is not None and self.access_key_id_env is None:
            raise ValueError("session_token_env needs access_key_id_env and secret_access_key_env")
        return self

    @property
    def location(self) -> BucketUrl:
        return parse_bucket_url(self.url)

    def credentials(self) -> tuple[str, str, str | None] | None:
        """The keys from the environment now; None: boto3's own chain (no ``*_env`` set).

        Raises:
            ConfigError: CONFIG_INVALID naming the variable (never its value) when it is unset.
        """
        if self.access_key_id_env is None or self.secret_access_key_env is None:
            return None
        values = []
        for key, name in (
            ("access_key_id_env", self.access_key_id_env),
            ("secret_access_key_env", self.secret_access_key_env),
        ):
            value = os.environ.get(name)
            if not value:
                raise ConfigError(
                    ErrorCode.CONFIG_INVALID,
                    f"workspace.{key}: environment variable {name} is not set",
                    key=f"workspace.{key}",
                )
            values.append(value)
        token = os.environ.get(self.session_token_env) if self.session_token_env else None
        return values[0], values[1], token or None


def split_workspace_table(data: dict[str, Any]) -> dict[str, Any]:
    """A project document with ``[workspace]`` as a table turned into ``workspace`` (the path)
    and ``bucket`` (the rest, when it names a ``url``). A plain ``workspace = "..."`` is kept."""
    if "bucket" in data:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            "bucket: not a key of the project file; use [workspace] url = 's3://...'",
            key="bucket",
        )
    table = data.get("workspace")
    if not isinstance(table, dict):
        return data
    table = dict(table)
    path = table.pop("path", DEFAULT_WORKING_COPY)
    data = {**data, "workspace": path}
    if table:
        if "url" not in table:
            raise ConfigError(
                ErrorCode.CONFIG_INVALID,
                f"workspace: {sorted(table)} need url = 's3://bucket/prefix' (or give only path)",
                key="workspace.url",
            )
        data["bucket"] = table
    return data
