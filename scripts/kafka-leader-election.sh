#!/usr/bin/env bash
# kafka-leader-election.sh --bootstrap-server HOST:PORT --election-type preferred|unclean (--topic T --partition P | --all-topic-partitions | --path-to-json-file F)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
exec "$(python_or_system)" -m kafka_zk.tools.leader_election "$@"
