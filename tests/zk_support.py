"""A real ZooKeeper for tests: one server per pytest session, a fresh chroot per test."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from tests.ports import free_port
from zookeeper.launcher import ZooKeeperError, ZooKeeperServer


def start_zookeeper(tmp_dir: str | Path, attempts: int = 3) -> ZooKeeperServer:
    """Start a ZooKeeper with its data in `tmp_dir` on a free port (another port if that one gets taken)."""
    error: ZooKeeperError | None = None
    for _ in range(attempts):
        try:
            return ZooKeeperServer(tmp_dir, port=free_port()).start(timeout=30)
        except ZooKeeperError as exc:
            error = exc
    raise error


def controller_id(client: KazooClient) -> int | None:
    """The broker id in /controller, or None between controllers."""
    try:
        return json.loads(client.get("/controller")[0])["brokerid"]
    except NoNodeError:
        return None


def create_chroot(server: ZooKeeperServer) -> str:
    """Create /t_<uuid> and return the connect string rooted there."""
    chroot = f"/t_{uuid.uuid4().hex}"
    client = KazooClient(hosts=server.connect_string)
    client.start(10)
    try:
        client.create(chroot)
    finally:
        client.stop()
        client.close()
    return f"{server.connect_string}{chroot}"


@pytest.fixture(scope="session")
def zookeeper_server(tmp_path_factory):
    """One ZooKeeper for the whole test session; tests isolate themselves with `zk_connect` chroots."""
    server = start_zookeeper(tmp_path_factory.mktemp("zookeeper"))
    yield server
    server.stop()


@pytest.fixture
def zk_connect(zookeeper_server):
    """ "host:port/t_<uuid>": a connect string whose chroot exists and is private to this test."""
    return create_chroot(zookeeper_server)
