#!/usr/bin/env bash
# Check a running `make run` UI by hand, the way tests/e2e does: the sample partitions, their runs,
# materializations and asset checks (GraphQL), then four pages rendered in headless Chromium.
#
#   scripts/ui_smoke.sh [URL] [SCREENSHOT_DIR]     (default URL http://127.0.0.1:${PORT:-3000})
#
# Reads only; exit code 0 when everything `make run` promises holds.
set -euo pipefail
cd "$(dirname "$0")/.."
url="${1:-http://127.0.0.1:${PORT:-3000}}"
out="${2:-$(mktemp -d -t ui-smoke-XXXXXX)}"
exec .venv/bin/python -m tests.e2e.smoke --url "$url" --out "$out" \
    --workspace "${VBA_WORKSPACE:-vba-workspace}"
