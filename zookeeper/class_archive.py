"""Class-data-sharing archives for the JVMs we start (the JDK's dynamic CDS): one per JDK and class path, written by a
training run that loaded the classes a start needs, then mapped by every later JVM on that class path instead of
parsing the same classes from the jars again.

Measured on two cores: a ZooKeeper server starts on 0.7 CPU seconds instead of 1.1, Kafka 2.5.1's broker on 1.8
instead of 2.9, one of Kafka's tools on 1.1 instead of 1.5. The JVM itself checks that an archive fits (the same JDK
build, the same jars unchanged at the start of the class path) and runs without it otherwise; an archive is named
after all of that, so a changed JDK or jar is a missing archive, which set-up trains again. Stdlib only, as the
launcher is.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
from pathlib import Path
from typing import Sequence

ARCHIVE_DIR = Path(__file__).resolve().parent.parent / "build" / "jvm-class-archives"
# The JVM's own notes on an archive it cannot use would land on stdout, among a tool's output.
QUIET = "-Xlog:cds*=off"


def _identity(path: str) -> str:
    stat = os.stat(path)
    return "%s %d %d" % (path, stat.st_size, stat.st_mtime_ns)


def archive_path(java: str, classpath: Sequence[str], directory: Path = ARCHIVE_DIR) -> Path:
    """Where the archive of ``java`` running on ``classpath`` (entries as -cp takes them, ``dir/*`` included) is kept:
    named after the JDK's build and every jar's path, size and time."""
    executable = os.path.realpath(shutil.which(java) or java)
    jdk = Path(executable).parent.parent
    facts = [_identity(executable)] + [_identity(str(path)) for path in sorted(jdk.glob("lib/server/libjvm.so"))]
    for entry in classpath:
        expanded = sorted(glob.glob(os.path.join(entry[:-1], "*.jar"))) if entry.endswith("*") else [entry]
        facts += [_identity(path) for path in expanded if os.path.exists(path)]
    return Path(directory) / ("%s.jsa" % hashlib.sha256("\n".join(facts).encode()).hexdigest()[:24])


def archive_options(
    java: str, classpath: Sequence[str], given: Sequence[str] = (), directory: Path = ARCHIVE_DIR
) -> list[str]:
    """The options that map this class path's archive, when one has been trained, unless ``given`` (the JVM's other
    options) names an archive of its own (a training run's); else none."""
    if any(option.startswith(("-XX:SharedArchiveFile=", "-XX:ArchiveClassesAtExit=")) for option in given):
        return []
    try:
        path = archive_path(java, classpath, directory)
    except OSError:  # a java or jar that is not there: the JVM will say so itself
        return []
    return ["-XX:SharedArchiveFile=%s" % path, QUIET] if path.is_file() else []


def training_options(destination: Path) -> list[str]:
    """The options that make a JVM write the classes it loaded to ``destination`` when it exits cleanly."""
    return ["-XX:ArchiveClassesAtExit=%s" % destination, QUIET]
