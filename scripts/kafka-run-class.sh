#!/usr/bin/env bash
# kafka-run-class.sh (see kafka_zk/tools/run_class.py)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.run_class "$@"
