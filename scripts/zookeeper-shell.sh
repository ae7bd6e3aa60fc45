#!/usr/bin/env bash
# ZooKeeper's own shell (ZooKeeperMain) against HOST:PORT[,HOST:PORT...][/chroot]; with a command after the address
# it runs that one command and exits, e.g. `zookeeper-shell.sh localhost:2181 get /brokers/ids/0`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if wants_help "$@"; then
    print_usage zookeeper.launcher:shell_parser
fi
exec "$(python_or_system)" -c "import sys; from zookeeper.launcher import shell_main; sys.exit(shell_main(sys.argv[1:]))" "$@"
