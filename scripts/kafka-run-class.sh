#!/usr/bin/env bash
# kafka-run-class.sh (see kafka_zk/tools/run_class.py)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.run_class "$@"
