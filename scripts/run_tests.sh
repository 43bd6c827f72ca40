#!/usr/bin/env bash
# The whole suite. Browser tests need Debian's chromium: installed here when missing and
# when we may (root with apt), else those tests report why they cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "chromium install failed; browser tests will fail" >&2
fi
exec .venv/bin/python -m pytest "$@"
