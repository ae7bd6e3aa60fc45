"""Every collected test has exactly one tier marker, and the pure ones use no fixture that starts a process."""

import pytest

from tests import tiers
from zookeeper.launcher import ZooKeeperServer


def test_every_collected_test_has_exactly_one_tier():
    assert tiers.collected
    wrong = [(node_id, marked) for node_id, marked, _ in tiers.collected if len(marked) != 1]
    assert not wrong, wrong[:10]


def test_pure_tests_use_no_fixture_that_starts_a_process():
    starting = [
        (node_id, sorted(fixtures & tiers.PROCESS_FIXTURES))
        for node_id, marked, fixtures in tiers.collected
        if marked == ["pure"] and fixtures & tiers.PROCESS_FIXTURES
    ]
    assert not starting, starting[:10]


def test_a_pure_test_that_starts_zookeeper_fails(tmp_path):
    with pytest.raises(tiers.PureTestStartedAProcess):
        ZooKeeperServer(tmp_path, port=2999).start()
