"""The ``vba`` command.

Every command without ``--project-config`` uses the embedded default (the demo world DB, built on first
use from the packaged data). Imports are lazy so that ``vba lookup`` never imports Dagster.

Exit codes: 0 ok; 1 unexpected failure; 2 bad input or usage; 3 bad configuration; 4 the world DB is
unavailable; 5 the store refused (conflict, lock, corruption); 6 a model provider failed; 7 a stage's
CPU budget was exceeded; 8 a tracker sync or post stopped before the end (rate limit, server or
network error: the reason is printed and recorded, the next run resumes).

The package: :mod:`~vba_assets.cli.parser` (the parser and :func:`main`),
:mod:`~vba_assets.cli.commands`, :mod:`~vba_assets.cli.packages` (verify, export, import-package) and
:mod:`~vba_assets.cli.common` (project config, workspace, bucket).
"""

from vba_assets.cli.common import TRACKER_STOPPED
from vba_assets.cli.parser import build_parser, main

__all__ = ["TRACKER_STOPPED", "build_parser", "main"]
