"""S3-compatible object storage: the IO beneath the bucket backend of the case-package store.

Only :mod:`.client` talks to the network (boto3). It knows keys and bytes, never case packages:
what a key means (an artifact, an event line, a lease generation) is the store's business
(:mod:`vba_assets.store.remote`, :mod:`vba_assets.store.lease`). No Dagster import.
"""

from vba_assets.objectstore.client import Fetched, ObjectInfo, ObjectStore
from vba_assets.workspace_config import BucketUrl, parse_bucket_url

__all__ = ["BucketUrl", "Fetched", "ObjectInfo", "ObjectStore", "parse_bucket_url"]
