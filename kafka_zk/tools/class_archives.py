"""Trains the JVMs' class archives (zookeeper/class_archive.py) that are missing: a ZooKeeper server, and Kafka
2.5.1's broker on it when its jars are there, each started until it serves, then stopped cleanly, which writes the
classes it loaded. Set-up runs it (scripts/test.sh); by hand:

    .venv/bin/python -m kafka_zk.tools.class_archives [--directory DIR]
"""

import argparse
import os
import socket
import sys
import tempfile
from pathlib import Path

from kafka_zk.tools.broker_process import ClusterError
from kafka_zk.tools.reference_broker import (
    LIBS,
    ReferenceBrokerProcess,
    ReferenceJarsMissing,
    java_executable,
    libs_dir,
)
from zookeeper.class_archive import ARCHIVE_DIR, archive_path, training_options
from zookeeper.launcher import ZooKeeperError, ZooKeeperServer, _java, find_zookeeper_classpath

TRAINING_TIMEOUT_S = 120.0


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def missing_archives(directory=ARCHIVE_DIR, libs=LIBS):
    """{"zookeeper" | "kafka": the archive's path} of the archives to train (Kafka's only when its jars are there)."""
    missing = {"zookeeper": archive_path(_java(), find_zookeeper_classpath(), directory)}
    try:
        missing["kafka"] = archive_path(java_executable(), ["%s/*" % libs_dir(libs)], directory)
    except ReferenceJarsMissing:
        pass
    return {kind: path for kind, path in missing.items() if not path.is_file()}


def train(missing, scratch, libs=LIBS):
    """Run the training JVMs for ``missing`` (missing_archives' answer) in folder ``scratch``; the archives written."""
    scratch = Path(scratch)
    partial = {kind: path.with_name("%s.%d.partial" % (path.name, os.getpid())) for kind, path in missing.items()}
    zookeeper = ZooKeeperServer(
        scratch / "zookeeper",
        port=free_port(),
        jvm_options=training_options(partial["zookeeper"]) if "zookeeper" in partial else [],
    )
    zookeeper.start(TRAINING_TIMEOUT_S)
    try:
        if "kafka" in partial:
            broker = ReferenceBrokerProcess(
                0,
                scratch / "kafka",
                free_port(),
                "%s/class-archive" % zookeeper.connect_string,
                libs=libs,
                jvm_options=training_options(partial["kafka"]),
            )
            broker.start(timeout=TRAINING_TIMEOUT_S)
            broker.stop(TRAINING_TIMEOUT_S)
    finally:
        zookeeper.stop(TRAINING_TIMEOUT_S)
    written = []
    for kind, path in missing.items():
        if partial[kind].is_file():  # written whole: the JVM writes it as it exits, and has exited
            os.replace(partial[kind], path)
            written.append(path)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m kafka_zk.tools.class_archives", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--directory", default=str(ARCHIVE_DIR), help="where the archives are kept (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    directory = Path(args.directory)
    try:
        missing = missing_archives(directory)
        if not missing:
            return 0
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="class-archives-") as scratch:
            written = train(missing, scratch)
    except (ClusterError, ZooKeeperError, OSError) as error:
        print("class archives not trained (the JVMs start without them): %s" % error, file=sys.stderr)
        return 1
    for path in written:
        print("trained %s" % path)
    return 0 if len(written) == len(missing) else 1


if __name__ == "__main__":
    sys.exit(main())
