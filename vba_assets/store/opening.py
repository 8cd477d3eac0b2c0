"""The workspace a project config names: local, or a bucket with a local working copy."""

from vba_assets.config import ProjectConfig
from vba_assets.domain.clock import utc_now
from vba_assets.objectstore import ObjectStore
from vba_assets.store.package import Clock
from vba_assets.store.workspace import Workspace
from vba_assets.workspace_config import BucketConfig


def open_bucket(bucket: BucketConfig) -> ObjectStore:
    """The bucket of ``[workspace] url`` (credentials read from the named variables now).

    Raises:
        ConfigError: CONFIG_INVALID if a named credential variable is unset.
    """
    return ObjectStore(
        bucket.location,
        endpoint_url=bucket.endpoint_url,
        region=bucket.region,
        credentials=bucket.credentials(),
    )


def open_workspace(config: ProjectConfig, clock: Clock = utc_now) -> Workspace:
    """``config.workspace`` alone, or, with ``[workspace] url``, the bucket with
    ``config.workspace`` as this host's working copy."""
    if config.bucket is None:
        return Workspace(config.workspace, clock)
    return Workspace(
        config.workspace, clock, bucket=open_bucket(config.bucket), lease_s=config.bucket.lease_s
    )
