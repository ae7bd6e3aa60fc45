# Sourced by the scripts: finds the repo root and makes sure .venv has the project installed.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
# Every process the scripts start (each broker, tool, test worker and Spark worker) loads the bytecode Python wrote to
# __pycache__ the first time a module was imported. With PYTHONDONTWRITEBYTECODE set, as some machines set it, none is
# ever written and each process compiles every module it imports from source again: a broker's start took 1.9 CPU
# seconds instead of 0.9.
unset PYTHONDONTWRITEBYTECODE

# ensure_venv [extras]: create .venv and (re)install the project when missing or when setup.cfg changed.
ensure_venv() {
    local extras="${1:-}"
    local stamp="$VENV/.kafka-zk-installed${extras:+-$extras}"
    if [ ! -x "$PY" ]; then
        echo "creating $VENV" >&2
        python3 -m venv "$VENV" || return 1
        "$PY" -m pip install -q --upgrade pip >&2 || return 1
    fi
    if [ ! -f "$stamp" ] || [ "$ROOT/setup.cfg" -nt "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
        echo "installing kafka-zk${extras:+[$extras]} into $VENV" >&2
        # --no-compile: Python compiles a module when it is first imported; compiling every file of every package
        # up front (pyspark's most of all) took half of a fresh install's 35 s.
        "$PY" -m pip install -q --no-compile -e "$ROOT${extras:+[$extras]}" >&2 || return 1
        touch "$stamp"
    fi
}

# ensure_compiled: the hot modules' compiled twins (kafka_zk/compiled.py) built from the current sources, those whose
# source changed rebuilt (about a minute for all of them). Without a C compiler they cannot be built: the modules then
# run interpreted, and a line says so. KAFKA_ZK_INTERPRETED=1 skips the build (the twins are not used then).
ensure_compiled() {
    if [ -n "${KAFKA_ZK_INTERPRETED:-}" ] && [ "$KAFKA_ZK_INTERPRETED" != 0 ]; then
        return 0
    fi
    "$PY" -m kafka_zk.tools.compile_twins build >&2 \
        || echo "the hot modules' compiled twins could not be built: they run interpreted" >&2
}

# python_or_system: the venv's python when it exists, else python3 (for the thin tool wrappers).
python_or_system() {
    if [ -x "$PY" ]; then echo "$PY"; else echo python3; fi
}

# wants_help ARGS...: -h or --help is among the arguments (before a lone --). A script asked for help prints its usage
# at once and does nothing else: it creates no .venv, installs nothing, starts and stops nothing.
wants_help() {
    local arg
    for arg in "$@"; do
        case "$arg" in
            --) return 1 ;;
            -h|--help) return 0 ;;
        esac
    done
    return 1
}

# print_usage MODULE[:FUNCTION] [ARGS...]: print a Python CLI's own argparse help and exit. kafka_zk.tools.usage needs
# only the standard library, so python3 serves when there is no .venv yet.
print_usage() {
    PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" exec "$(python_or_system)" -m kafka_zk.tools.usage "$@"
}

# run_tool MODULE ARGS...: a thin tool wrapper's whole work: the tool's usage when asked for help, else the tool with
# the venv's python (python3 when there is none). No cd: relative paths in the arguments stay the caller's.
run_tool() {
    local module="$1"
    shift
    if wants_help "$@"; then
        print_usage "$module" "$@"
    fi
    export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
    exec "$(python_or_system)" -m "$module" "$@"
}

# require_java: ZooKeeper (and Spark) run on Java; without it, say so in one line and stop.
require_java() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
        return 0
    fi
    if ! command -v java >/dev/null 2>&1; then
        echo "$(basename "$0"): java not found: ZooKeeper needs a Java runtime (17 or newer); install one (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME" >&2
        exit 1
    fi
}

# ensure_zookeeper: make Apache ZooKeeper's jars available to the launcher. When neither ZOOKEEPER_HOME, nor
# Debian's zookeeper package, nor the pyspark wheel (whose jars include ZooKeeper) is there, install the
# project's `zookeeper` extra into the venv, telling the user what is being downloaded.
ensure_zookeeper() {
    if "$PY" -m zookeeper.launcher classpath >/dev/null 2>&1; then
        return 0
    fi
    echo "ZooKeeper jars not found: installing the project's [zookeeper] extra into $VENV" >&2
    echo "(the pyspark package, about 320 MB, which carries Apache ZooKeeper's jars; this happens once)" >&2
    "$PY" -m pip install --progress-bar off -e "$ROOT[zookeeper]" 2>&1 \
        | grep --line-buffered -E '^ *(Collecting|Downloading|Building|Installing|Successfully|ERROR)' >&2 || true
    if ! "$PY" -m zookeeper.launcher classpath >/dev/null 2>&1; then
        echo "$(basename "$0"): could not install ZooKeeper; set ZOOKEEPER_HOME to an Apache ZooKeeper release or install Debian's zookeeper package" >&2
        exit 1
    fi
    echo "ZooKeeper is installed" >&2
}

# ensure_kerberos: what SASL/GSSAPI needs: MIT Kerberos' KDC (krb5-kdc, krb5-admin-server for kadmin.local), its
# client programs (krb5-user: kinit, klist, kdestroy), cyrus-sasl's GSSAPI plugin (librdkafka's GSSAPI goes through
# it), libkrb5-dev (the `gssapi` package builds against it), librdkafka-dev (Debian's librdkafka, built with cyrus-sasl)
# and Debian's build of the `gssapi` binding (python3-gssapi), all from Debian when root; then the binding in the venv
# (link_debian_gssapi, else the project's [kerberos] extra built from its source), and confluent-kafka built on Debian's
# librdkafka (ensure_confluent_kafka_gssapi). Returns 1, saying what is missing, when it cannot.
KERBEROS_PACKAGES=(krb5-kdc krb5-admin-server krb5-user libsasl2-modules-gssapi-mit libkrb5-dev librdkafka-dev
    python3-gssapi)
ensure_kerberos() {
    local missing=() package
    for package in "${KERBEROS_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "installing ${missing[*]} from Debian (Kerberos for SASL/GSSAPI)" >&2
            # policy-rc.d aside, the packages' own services are never started: our launcher runs the KDC it needs
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
                "${missing[@]}") >/dev/null 2>&1 || true
        fi
        if ! command -v krb5kdc >/dev/null 2>&1 && [ ! -x /usr/sbin/krb5kdc ] || ! command -v krb5-config >/dev/null 2>&1; then
            echo "$(basename "$0"): Kerberos is missing: apt-get install ${KERBEROS_PACKAGES[*]} (as root)" >&2
            return 1
        fi
    fi
    if ! "$PY" -c "import gssapi" >/dev/null 2>&1 && ! link_debian_gssapi; then
        echo "installing the project's [kerberos] extra (the gssapi binding, built against libkrb5) into $VENV" >&2
        "$PY" -m pip install -q --no-compile -e "$ROOT[kerberos]" >&2 || {
            echo "$(basename "$0"): could not install the gssapi package" >&2
            return 1
        }
    fi
    ensure_confluent_kafka_gssapi
}

# ensure_confluent_kafka_gssapi: confluent-kafka's wheels carry a librdkafka without GSSAPI, so the GSSAPI tests run
# confluent-kafka of Debian's librdkafka version, built from its source against Debian's librdkafka (cyrus-sasl's
# GSSAPI plugin), in a folder of its own (CONFLUENT_KAFKA_GSSAPI, put first on a client process's PYTHONPATH).
CONFLUENT_KAFKA_GSSAPI="$ROOT/build/confluent-kafka-gssapi"
# link_debian_gssapi: Debian's build of the gssapi binding (python3-gssapi, and python3-decorator that it imports) made
# importable in the venv by links into its site-packages, when Debian built it for the venv's Python (the same extension
# suffix). Building the binding from its source instead (pip has no Linux wheel of it) costs ~95 CPU seconds.
link_debian_gssapi() {
    local dist=/usr/lib/python3/dist-packages site suffix
    suffix="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
    [ -f "$dist/gssapi/raw/creds$suffix" ] && [ -f "$dist/decorator.py" ] || return 1
    site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    ln -sfn "$dist/gssapi" "$site/gssapi" || return 1
    "$PY" -c "import decorator" >/dev/null 2>&1 || ln -sf "$dist/decorator.py" "$site/decorator.py"
    if "$PY" -c "import gssapi" >/dev/null 2>&1; then
        echo "the gssapi binding: Debian's python3-gssapi, linked into $VENV" >&2
        return 0
    fi
    rm -f "$site/gssapi"  # pip must not install its own build through the link, into Debian's folder
    [ -L "$site/decorator.py" ] && rm -f "$site/decorator.py"
    return 1
}
ensure_confluent_kafka_gssapi() {
    local version
    version="$(dpkg-query -W -f='${Version}' librdkafka-dev 2>/dev/null | sed 's/-[^-]*$//')"
    if [ -z "$version" ]; then
        echo "$(basename "$0"): librdkafka-dev is missing: apt-get install librdkafka-dev (as root)" >&2
        return 1
    fi
    if [ -f "$CONFLUENT_KAFKA_GSSAPI/.version-$version" ]; then
        return 0
    fi
    echo "building confluent-kafka $version on Debian's librdkafka into $CONFLUENT_KAFKA_GSSAPI (once)" >&2
    rm -rf "$CONFLUENT_KAFKA_GSSAPI"
    "$PY" -m pip install -q --no-deps --no-binary confluent-kafka --target "$CONFLUENT_KAFKA_GSSAPI" \
        "confluent-kafka==$version" >&2 && touch "$CONFLUENT_KAFKA_GSSAPI/.version-$version" || {
        echo "$(basename "$0"): could not build confluent-kafka $version on Debian's librdkafka" >&2
        return 1
    }
}

# ensure_kafka_reference: Apache Kafka 2.5.1's jars (the broker, tools, clients, streams, Kafka Connect and their
# dependencies) under build/kafka-2.5.1/libs, copied from Maven Central by tests/reference/pom.xml once per machine;
# and MirrorMaker 2's (connect-mirror, whose oldest release Maven Central serves here is 2.7.2, with the Connect
# runtime and clients of that release) under build/kafka-mirror-maker-2.7.2/libs, by tests/reference/mirror-maker/
# pom.xml. Each marker file is written only after a complete copy, so an interrupted one is done again, and a pom
# newer than its marker is copied again. Needs Maven (Debian's maven package).
KAFKA_REFERENCE_LIBS="$ROOT/build/kafka-2.5.1/libs"
MIRROR_MAKER_LIBS="$ROOT/build/kafka-mirror-maker-2.7.2/libs"
ensure_kafka_reference() {
    _copy_maven_jars "$ROOT/tests/reference/pom.xml" "$KAFKA_REFERENCE_LIBS" "Apache Kafka 2.5.1's jars" &&
        _copy_maven_jars "$ROOT/tests/reference/mirror-maker/pom.xml" "$MIRROR_MAKER_LIBS" "MirrorMaker 2's jars"
}

# _copy_maven_jars POM FOLDER WHAT: the runtime dependencies of POM copied into FOLDER, unless FOLDER/.complete is
# newer than POM.
_copy_maven_jars() {
    local pom="$1" libs="$2" what="$3"
    local marker="$libs/.complete"
    if [ -f "$marker" ] && [ ! "$pom" -nt "$marker" ]; then
        return 0
    fi
    if ! command -v mvn >/dev/null 2>&1; then
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "installing maven from Debian (for $what)" >&2
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven) >/dev/null 2>&1 || true
        fi
        if ! command -v mvn >/dev/null 2>&1; then
            echo "$(basename "$0"): mvn not found: $what need Maven (apt-get install maven)" >&2
            return 1
        fi
    fi
    echo "copying $what into $libs (from Maven Central; once)" >&2
    rm -rf "$libs"
    if ! mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies -DoutputDirectory="$libs" >&2; then
        echo "$(basename "$0"): could not copy $what (mvn failed)" >&2
        return 1
    fi
    touch "$marker"
}
