"""The JVMs' class archives: named after the JDK and every jar of the class path, used only once trained, trained by
a clean stop of a real ZooKeeper server, then mapped by the next JVM on the same class path."""

import os
import shutil
import subprocess

import pytest

from kafka_zk.tools.class_archives import train
from zookeeper.class_archive import QUIET, archive_options, archive_path
from zookeeper.launcher import SERVER_MAIN, _java, find_zookeeper_classpath

JAVA = shutil.which("java") or "java"


@pytest.fixture
def jars(tmp_path):
    folder = tmp_path / "libs"
    folder.mkdir()
    for name in ("a.jar", "b.jar"):
        (folder / name).write_bytes(b"PK" + name.encode())
    return folder


def test_the_name_changes_with_a_jar_changed_added_or_removed(jars, tmp_path):
    classpath = ["%s/*" % jars]
    first = archive_path(JAVA, classpath, tmp_path)
    assert archive_path(JAVA, classpath, tmp_path) == first
    (jars / "a.jar").write_bytes(b"PK changed, and longer")
    changed = archive_path(JAVA, classpath, tmp_path)
    assert changed != first
    (jars / "c.jar").write_bytes(b"PK")
    added = archive_path(JAVA, classpath, tmp_path)
    assert added not in (first, changed)
    (jars / "c.jar").unlink()
    assert archive_path(JAVA, classpath, tmp_path) == changed
    assert archive_path(JAVA, [str(jars / "a.jar")], tmp_path) != changed  # another class path
    assert archive_path(JAVA, classpath, tmp_path).parent == tmp_path


def test_options_name_the_archive_only_once_it_is_there(jars, tmp_path):
    classpath = ["%s/*" % jars]
    assert archive_options(JAVA, classpath, directory=tmp_path) == []
    path = archive_path(JAVA, classpath, tmp_path)
    path.write_bytes(b"an archive")
    assert archive_options(JAVA, classpath, directory=tmp_path) == ["-XX:SharedArchiveFile=%s" % path, QUIET]
    assert archive_options(str(tmp_path / "no-such-java"), classpath, directory=tmp_path) == []
    training = ["-XX:ArchiveClassesAtExit=%s" % (tmp_path / "new.jsa")]
    assert archive_options(JAVA, classpath, training, directory=tmp_path) == []  # a training run's own archive


@pytest.mark.timeout(120)
def test_a_trained_zookeeper_archive_is_mapped_by_the_next_jvm(zookeeper_server, tmp_path):
    java, classpath = _java(), find_zookeeper_classpath()
    path = archive_path(java, classpath, tmp_path / "archives")
    path.parent.mkdir()
    assert train({"zookeeper": path}, tmp_path / "scratch") == [path]
    assert not [name for name in os.listdir(path.parent) if name.endswith(".partial")]

    def shared_classes(options):
        # QuorumPeerMain without a config prints its usage and exits: a start's class loading, then an end.
        run = subprocess.run(
            [java, *options, "-Xlog:class+load=info", "-cp", os.pathsep.join(classpath), SERVER_MAIN],
            capture_output=True,
            text=True,
            timeout=60,
        )
        return sum("source: shared objects file (top)" in line for line in run.stdout.splitlines())

    assert shared_classes(archive_options(java, classpath, directory=path.parent)) > 200
    assert shared_classes([]) == 0
