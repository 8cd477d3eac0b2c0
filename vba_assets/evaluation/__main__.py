"""``python -m vba_assets.evaluation``: ``vba eval`` without ``--via dagster`` (which only the
``vba`` command, :mod:`vba_assets.app`, offers: this package never imports Dagster)."""

from vba_assets.evaluation.runner import main

raise SystemExit(main())
