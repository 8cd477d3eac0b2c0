"""A writer that takes a revision's lease in the bucket and holds it until it is killed.

``python -m tests.objectstore.lease_child ENDPOINT S3URL WORKING_COPY CASE_ID LEASE_S``: prints
``held <generation>`` once the lease (and the local lock) is held, then sleeps.
"""

import sys
import time

from tests.objectstore.conftest import CREDENTIALS
from vba_assets.objectstore import ObjectStore
from vba_assets.store import Workspace


def main(endpoint: str, url: str, working_copy: str, case_id: str, lease_s: str) -> None:
    store = ObjectStore(url, endpoint_url=endpoint, region="us-east-1", credentials=CREDENTIALS)
    package = Workspace(working_copy, bucket=store, lease_s=float(lease_s)).case(case_id)
    with package.lock("0001"):
        assert package.remote is not None
        [(lease, _)] = package.remote.leases
        print(f"held {lease.generation}", flush=True)
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main(*sys.argv[1:])
