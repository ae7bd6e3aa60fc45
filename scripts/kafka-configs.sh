#!/usr/bin/env bash
# kafka-configs.sh --bootstrap-server HOST:PORT|--zookeeper HOST:PORT --entity-type topics --entity-name T
#                  --alter --add-config k=v[,k2=v2] --delete-config k | --describe
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.configs "$@"
