"""One writer process of a race for a revision's lease (``test_bucket_writers``).

``python -m tests.objectstore.race_child ENDPOINT S3URL WORKING_COPY CASE_ID GO DONE``: waits for
the file GO, tries to lock revision 0001 once, prints ``won`` (then holds the lock until the file
DONE exists) or ``locked <holder pid>``.
"""

import os
import sys
import time

from tests.objectstore.conftest import CREDENTIALS
from vba_assets.errors import StoreError
from vba_assets.objectstore import ObjectStore
from vba_assets.store import Workspace


def main(endpoint: str, url: str, working_copy: str, case_id: str, go: str, done: str) -> None:
    store = ObjectStore(url, endpoint_url=endpoint, region="us-east-1", credentials=CREDENTIALS)
    package = Workspace(working_copy, bucket=store).case(case_id)
    while not os.path.exists(go):
        time.sleep(0.005)
    try:
        with package.lock("0001"):
            print("won", flush=True)
            while not os.path.exists(done):
                time.sleep(0.01)
    except StoreError as error:
        print(f"locked {error.code.value} {error.detail.get('holder_pid')}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
