"""``python -m vba_assets.cli``: the ``vba`` command."""

from vba_assets.cli.parser import main

raise SystemExit(main())
