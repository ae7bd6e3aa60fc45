#!/usr/bin/env bash
# kafka-leader-election.sh --bootstrap-server HOST:PORT --election-type preferred|unclean (--topic T --partition P | --all-topic-partitions | --path-to-json-file F)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.leader_election "$@"
