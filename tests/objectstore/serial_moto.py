"""moto's S3 in server mode on 127.0.0.1, one request at a time (the tests' bucket).

``python -m tests.objectstore.serial_moto PORT [--threaded]``

Why serialized: moto 5.2.5 checks ``If-None-Match: *`` and then stores the object in two steps
(``moto/s3/responses.py`` ``put_object``) with no lock between them, so under its default
threaded server two concurrent conditional PUTs of one key could both succeed, which real S3 (and
MinIO) never allows. Not observed (0 double winners in 55 races of 8 writers, 2026-12-07), but
nothing prevents it. A lock around each request makes moto's check-then-store atomic, as the
server side of S3 is; the store's own concurrency (threads and processes racing through HTTP) is
what the tests exercise. ``--threaded`` serves without the lock (to show moto's race).
"""

import sys
import threading
from collections.abc import Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


def serialized(app: Any) -> Any:
    lock = threading.Lock()

    def application(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        with lock:
            return list(app(environ, start_response))

    return application


def main(argv: list[str]) -> None:
    port = int(argv[0])
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(
        "127.0.0.1",
        port,
        app if "--threaded" in argv else serialized(app),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
