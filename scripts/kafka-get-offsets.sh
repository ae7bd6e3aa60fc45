#!/usr/bin/env bash
# kafka-get-offsets.sh (see kafka_zk/tools/get_offsets.py)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.get_offsets "$@"
