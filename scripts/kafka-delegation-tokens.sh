#!/usr/bin/env bash
# kafka-delegation-tokens.sh --bootstrap-server HOST:PORT --command-config F (--create|--renew|--expire|--describe) ...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.delegation_tokens "$@"
