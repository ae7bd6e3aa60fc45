#!/usr/bin/env bash
# Install what is missing and run the whole test suite (unit, in-memory and real-cluster tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
require_java
if ! command -v kcat >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing kcat from Debian" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kcat) >/dev/null 2>&1 \
        || echo "kcat could not be installed; its test case will be skipped" >&2
fi
# The console's browser tests drive Debian's Chromium through Playwright (never a browser Playwright downloads).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing chromium from Debian" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
        || echo "chromium could not be installed; the console's browser tests will be skipped" >&2
fi
ensure_venv test
cd "$ROOT"
export PYSPARK_PYTHON="$PY"
exec "$PY" -m pytest -q -p no:cacheprovider "$@"
