#!/usr/bin/env bash
# The whole suite. The browser test needs Debian's chromium and a font for it to draw with, the
# storage test Debian's postgresql: installed here when missing and when we may (root with apt),
# else those tests report why they cannot run. The font is checked by its file, not by the
# package database, which may say "installed" while the file is gone: then it is reinstalled.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
fonts=()
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || fonts+=(fonts-dejavu-core)
if [ $(( ${#missing[@]} + ${#fonts[@]} )) -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq \
    && { [ ${#missing[@]} -eq 0 ] || apt-get install -y -qq "${missing[@]}" >/dev/null; } \
    && { [ ${#fonts[@]} -eq 0 ] || apt-get install -y -qq --reinstall "${fonts[@]}" >/dev/null; }) \
    || echo "installing ${missing[*]} ${fonts[*]} failed; the tests that need them will fail" >&2
fi
# the style first: a lint or format finding fails in seconds, before the 20-minute suite
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
exec .venv/bin/python -m pytest "$@"
