"""A broker process is recognised as started by the line its server.log gains, also when a JVM broker's log4j rolls
server.log (hourly, to server.log.<date-hour>) between the offset taken before the start and the line."""

import pytest

from kafka_zk.tools.broker_process import ClusterError
from kafka_zk.tools.reference_broker import KAFKA_STARTED_MARK, ReferenceBrokerProcess

STARTED = ("[2026-11-29 05:00:01,000] INFO [KafkaServer id=0%s\n" % KAFKA_STARTED_MARK).encode()
OLD = b"[2026-11-29 04:59:00,000] INFO an earlier run's line\n" * 20


def broker_in(folder):
    return ReferenceBrokerProcess(0, folder, 9092, "127.0.0.1:2181")


def test_the_started_line_is_found_in_the_new_file_after_a_roll(tmp_path):
    broker = broker_in(tmp_path)
    (tmp_path / "server.log.2026-11-29-04").write_bytes(OLD)
    (tmp_path / "server.log").write_bytes(b"[2026-11-29 05:00:00,000] INFO starting\n" + STARTED)
    broker.wait_started(len(OLD), timeout=1)


def test_the_started_line_is_found_in_the_rolled_file_past_the_offset(tmp_path):
    broker = broker_in(tmp_path)
    (tmp_path / "server.log.2026-11-29-03").write_bytes(OLD + STARTED)  # an older roll: not this start's
    (tmp_path / "server.log.2026-11-29-04").write_bytes(OLD + STARTED)
    (tmp_path / "server.log").write_bytes(b"[2026-11-29 05:00:02,000] INFO after the roll\n")
    broker.wait_started(len(OLD), timeout=1)


def test_a_started_line_before_the_offset_is_an_earlier_run(tmp_path):
    broker = broker_in(tmp_path)
    (tmp_path / "server.log").write_bytes(STARTED + OLD)
    with pytest.raises(ClusterError, match="exited during startup"):
        broker.wait_started(len(STARTED), timeout=1)
