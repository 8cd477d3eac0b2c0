"""``python -m vba_assets.worlddata``: print the demo DB path, building it on first use."""

import sys

from vba_assets.errors import VbaError
from vba_assets.worlddata.build import ensure_demo_database


def main() -> int:
    try:
        print(ensure_demo_database())
    except VbaError as exc:
        print(f"vba_assets.worlddata: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
