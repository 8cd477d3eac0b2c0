"""``python -m vba_assets.evaluation``: the same as ``vba eval``."""

from vba_assets.evaluation.runner import main

raise SystemExit(main())
