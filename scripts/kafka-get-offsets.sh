#!/usr/bin/env bash
# kafka-get-offsets.sh (see kafka_zk/tools/get_offsets.py)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.get_offsets "$@"
