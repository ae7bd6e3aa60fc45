#!/usr/bin/env bash
# Install what is missing and run the test suite (unit, in-memory and real-cluster tests) or the tiers asked for.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
if wants_help "$@"; then
    echo "usage: scripts/test.sh [pytest arguments]"
    echo
    echo "Installs what is missing (Java is required; kcat, nftables, Chromium, MIT Kerberos, its gssapi binding and"
    echo "librdkafka-dev from Debian when root; the .venv with the [test] extra; confluent-kafka on Debian's librdkafka under"
    echo "build/confluent-kafka-gssapi; Apache Kafka 2.5.1's jars under build/kafka-2.5.1 by Maven; the JVMs' class archives"
    echo "under build/jvm-class-archives), runs ruff (lint and format check, pyproject.toml) and mypy (strict on the"
    echo "packages setup.cfg's [mypy] section lists); either failing fails the run; then runs the test suite with two"
    echo "pytest-xdist workers (--dist loadfile). Arguments go to"
    echo "pytest, e.g. scripts/test.sh tests/test_log.py -k retention (pytest's own help: .venv/bin/pytest --help)."
    echo
    echo "Every test has one tier marker (tests/tiers.py): pure, zookeeper, cluster, browser or java."
    echo "scripts/test.sh -m pure runs the pure tier alone and installs only the .venv for it (no Java, no Maven, no"
    echo "Debian packages)."
    exit 0
fi
# only_pure ARGS...: the pytest arguments select the pure tier alone (-m pure, -mpure or -m=pure).
only_pure() {
    local previous=""
    local arg
    for arg in "$@"; do
        case "$previous$arg" in
            -mpure|-m=pure) return 0 ;;
        esac
        previous=""
        [ "$arg" = -m ] && previous=-m
    done
    return 1
}
pure=false
only_pure "$@" && pure=true
debian=""
if ! $pure; then
    require_java
    # kcat for its client test; Debian's Chromium for the console's browser tests, driven through Playwright (never
    # a browser Playwright downloads); nftables for the network cuts between hosts. One apt-get run for whatever is
    # missing, beside the .venv's install (nothing before ensure_kerberos needs these packages).
    missing=()
    command -v kcat >/dev/null 2>&1 || missing+=(kcat)
    command -v nft >/dev/null 2>&1 || missing+=(nftables)
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    for package in "${KERBEROS_PACKAGES[@]}"; do  # MIT's KDC and friends, for the SASL/GSSAPI tests
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "installing ${missing[*]} from Debian" >&2
        ( (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 \
            || echo "${missing[*]} could not be installed; the tests that need them will be skipped" >&2) &
        debian=$!
    fi
fi
ensure_venv test
# The hot modules' compiled twins, for the brokers the real tests start: built beside Maven's download, ruff and mypy.
compiling=""
if ! $pure; then
    ensure_compiled &
    compiling=$!
fi
# The gssapi binding for the SASL/GSSAPI tests (Debian's, or built from its source), beside Maven.
[ -z "$debian" ] || wait "$debian" || true
kerberos=""
if ! $pure; then
    ensure_kerberos &
    kerberos=$!
fi
# Apache Kafka 2.5.1's jars (tests/reference/pom.xml): the reference broker and the Java clients of the real tests.
if ! $pure && ! ensure_kafka_reference; then
    echo "Apache Kafka 2.5.1's jars are missing; the tests that need them will be skipped" >&2
fi
# The JVMs' class archives (kafka_zk/tools/class_archives.py), once per JDK and set of jars, beside ruff and mypy.
archives=""
if ! $pure; then
    "$PY" -m kafka_zk.tools.class_archives &
    archives=$!
fi
if [ -n "$kerberos" ] && ! wait "$kerberos"; then
    echo "Kerberos is missing; the GSSAPI tests will fail" >&2
fi
cd "$ROOT"
export PYSPARK_PYTHON="$PY"
# ruff first (pyproject.toml's lint rules, and the formatter's style): either failing fails the run before a test
# starts.
if ! ruff_output="$("$PY" -m ruff check --quiet . 2>&1 && "$PY" -m ruff format --check --quiet . 2>&1)"; then
    echo "$ruff_output" >&2
    echo "ruff failed: fix the above (.venv/bin/ruff check --fix . && .venv/bin/ruff format .)" >&2
    exit 1
fi
echo "ruff: lint and format clean"
# Then mypy, strict on the pure cores that setup.cfg's [mypy] section lists: a type error fails the run before a
# test starts. One line says what was checked: each package whole, or how many of its modules.
checked="$("$PY" -c '
import configparser
config = configparser.ConfigParser()
config.read("setup.cfg")
packages = {}
for path in config["mypy"]["files"].replace(",", " ").split():
    packages.setdefault("/".join(path.split("/")[:2]), []).append(path)
print(", ".join(package if paths == [package] else "%s (%d of its modules)" % (package, len(paths))
                for package, paths in packages.items()))')"
if ! mypy_output="$("$PY" -m mypy --config-file setup.cfg 2>&1)"; then
    echo "$mypy_output" >&2
    echo "mypy failed (strict on $checked): fix the errors above" >&2
    exit 1
fi
echo "mypy strict on $checked: ${mypy_output##*$'\n'}"
# Two pytest-xdist workers, each taking whole test modules (a module's cluster stays on one worker); every worker
# has its own ZooKeeper and its own share of the test ports (tests/ports.py). The real-cluster tests mostly wait on
# brokers, ZooKeeper and Spark, so two modules at a time use the two cores that one leaves half idle. Modules go out in
# the order tests/tiers.py's order_for_workers gives them (the longest first), not by their number of tests.
[ -z "$compiling" ] || wait "$compiling"
[ -z "$archives" ] || wait "$archives" || true
status=0
"$PY" -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --no-loadscope-reorder "$@" || status=$?
# Hosts in network namespaces outlive a test that failed or was killed: remove what is left and say so (a leak fails
# the run). The pure tier starts no hosts.
$pure || "$PY" -m tests.hosts_support sweep || status=$((status ? status : 1))
exit $status
