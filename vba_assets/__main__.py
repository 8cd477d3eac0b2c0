"""``python -m vba_assets``: the ``vba`` command (:mod:`vba_assets.app`)."""

from vba_assets.app import main

raise SystemExit(main())
