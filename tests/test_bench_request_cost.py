"""The request-cost harness (bench/request_cost.py) without valgrind: its loops answer as a broker must, and its
arithmetic on callgrind's totals."""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import request_cost  # noqa: E402


@pytest.mark.parametrize("loop", request_cost.LOOPS)
def test_each_loop_is_answered_without_error_and_its_fetches_return_the_records_produced(loop):
    requests = request_cost.run_loop(loop, 6, 2, check=True)  # check: every response decoded and checked
    assert requests.next_offset == 8
    if "fetch" in loop:
        assert requests.fetched == [(offset, request_cost.RECORD_VALUE) for offset in range(8)]
    else:
        assert requests.fetched == []
    if loop == "produce+follower-fetch":  # one full fetch opened the session, seven incremental ones followed
        assert requests.follower_session[1] == 8


def test_the_broker_parks_a_fetch_at_the_log_end_until_a_record_arrives(tmp_path):
    broker = request_cost.InProcessBroker(str(tmp_path))
    requests = request_cost.RequestLoop(broker, "parked-fetch+produce")
    requests.consumer.send_frame(requests.consumer_fetch, offset=0)
    broker.clock.advance(0)
    assert requests.consumer.frames() == []
    requests.producer.send_frame(requests.produce)
    broker.clock.advance(0)
    assert len(requests.producer.frames()) == 1
    assert len(requests.consumer.frames()) == 1


def test_every_reported_case_counts_a_loop_and_subtracts_only_produce_alone():
    for loop, minus in request_cost.CASES.values():
        assert loop in request_cost.LOOPS
        assert minus is None or minus.startswith("produce") and "+" not in minus
    figures = request_cost.case_figures(
        {
            "produce": 100.0,
            "produce-replicated": 110.0,
            "produce+fetch": 250.0,
            "produce+follower-fetch": 300.0,
            "parked-fetch+produce": 400.0,
        },
        list(request_cost.CASES),
    )
    assert figures == {"produce": 100.0, "fetch": 150.0, "follower-fetch": 190.0, "parked-fetch": 300.0}


def test_instructions_per_iteration_come_from_the_totals_line_of_two_runs(tmp_path):
    small, large = tmp_path / "small.out", tmp_path / "large.out"
    small.write_text("version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 1000\ntotals: 1000\n")
    large.write_text("version: 1\nevents: Ir\nsummary: 6000\n")
    assert request_cost.callgrind_total(small) == 1000
    assert request_cost.callgrind_total(large) == 6000
    assert request_cost.per_iteration(1000, 6000, 200, 1200) == 5.0


def test_a_request_template_patches_only_the_correlation_id_and_the_fetch_offset():
    from kafka_zk.protocol.headers import decode_request

    template = request_cost.FrameTemplate(
        request_cost.FETCH, request_cost.FETCH_VERSION, "consumer-1", request_cost.fetch_body(0)
    )
    header, body = decode_request(template.build(42, offset=1234)[4:])
    assert (header.api_key, header.api_version, header.correlation_id) == (1, 11, 42)
    assert body["replica_id"] == -1 and body["max_wait_ms"] == 500 and body["min_bytes"] == 1
    assert body["topics"][0]["partitions"][0]["fetch_offset"] == 1234
