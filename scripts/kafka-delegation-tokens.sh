#!/usr/bin/env bash
# kafka-delegation-tokens.sh --bootstrap-server HOST:PORT --command-config F (--create|--renew|--expire|--describe) ...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
run_tool kafka_zk.tools.delegation_tokens "$@"
