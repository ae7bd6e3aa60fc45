"""Pure parts of the operator tools: election JSON and output lines, API version text, GetOffsetShell argument
checks, the preferred-election znode, and kafka-dump-log's __consumer_offsets / __transaction_state decoders."""

import io
import struct

import pytest

from kafka_zk.client.zk_admin import AdminOperationError
from kafka_zk.log.log import Log
from kafka_zk.log.log_config import LogConfig
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from kafka_zk.tools import broker_api_versions, dump_log, get_offsets, leader_election, preferred_replica_election
from kafka_zk.tools.command_line import ToolFailure, UsageError, run_tool
from kafka_zk.tools.dump_log_decoders import offsets_decoder, parse_record, string_parser, transaction_log_decoder
from kafka_zk.zk.znodes import PreferredReplicaElectionZNode
from tests.millisecond_clock import MillisecondClock


def string(text):
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def nullable(text):
    return struct.pack(">h", -1) if text is None else string(text)


def blob(data):
    return struct.pack(">i", -1) if data is None else struct.pack(">i", len(data)) + data


def offset_key(group, topic, partition):
    return struct.pack(">h", 1) + string(group) + string(topic) + struct.pack(">i", partition)


def offset_value_v3(offset, metadata):
    return struct.pack(">hqi", 3, offset, -1) + string(metadata) + struct.pack(">q", 1234)


def consumer_assignment(partitions, user_data=None):
    body = struct.pack(">hi", 1, len(partitions))
    for topic, ids in partitions:
        body += string(topic) + struct.pack(">i", len(ids)) + b"".join(struct.pack(">i", i) for i in ids)
    return body + blob(user_data)


def group_value_v3(protocol_type, generation, protocol, members):
    body = struct.pack(">h", 3) + string(protocol_type) + struct.pack(">i", generation) + nullable(protocol)
    body += nullable(members[0][0] if members else None) + struct.pack(">q", 99) + struct.pack(">i", len(members))
    for member_id, assignment in members:
        body += string(member_id) + nullable(None) + string("client") + string("/127.0.0.1")
        body += struct.pack(">ii", 300000, 10000) + blob(b"sub") + blob(assignment)
    return body


def test_offsets_decoder_prints_offsets_and_groups_like_kafka():
    assert offsets_decoder(offset_key("g", "t", 3), offset_value_v3(42, "")) == ("offset::g:t:3", "42")
    assert offsets_decoder(offset_key("g", "t", 3), offset_value_v3(42, "meta")) == ("offset::g:t:3", "42:meta")
    v1 = struct.pack(">hq", 1, 7) + string("") + struct.pack(">qq", 1, 2)
    assert offsets_decoder(offset_key("g", "t", 0), v1) == ("offset::g:t:0", "7")
    assert offsets_decoder(offset_key("g", "t", 0), None) == (None, None)

    group_key = struct.pack(">h", 2) + string("grp")
    value = group_value_v3(
        "consumer",
        5,
        "range",
        [("m-1", consumer_assignment([("t", [0, 1])])), ("m-2", consumer_assignment([("u", [2])], b"\x00\xab"))],
    )
    assert offsets_decoder(group_key, value) == (
        '{"metadata":"grp"}',
        '{"protocolType":"consumer","protocol":"range","generationId":5,"assignment":"{m-1=[t-0, t-1],m-2=[u-2]:AB}"}',
    )
    other = group_value_v3("connect", 1, None, [("w", b"\x01\x02")])
    assert (
        offsets_decoder(group_key, other)[1]
        == '{"protocolType":"connect","protocol":null,"generationId":1,"assignment":"{w=102}"}'
    )
    # Bytes of another format are printed raw, as the string decoder would.
    assert parse_record(offsets_decoder, b"plain", b"text") == ("plain", "text")
    assert string_parser(None, b"v") == (None, "v")


def test_transaction_log_decoder():
    key = struct.pack(">h", 0) + string("tx-1")
    value = (
        struct.pack(">hqhib", 0, 4000, 2, 60000, 1)
        + struct.pack(">i", 1)
        + string("t")
        + struct.pack(">iii", 2, 0, 1)
        + struct.pack(">qq", 555, 444)
    )
    assert transaction_log_decoder(key, value) == (
        "transaction_metadata::transactionalId=tx-1",
        "producerId:4000,producerEpoch:2,state=Ongoing,partitions=[t-0,t-1],txnLastUpdateTimestamp=555,"
        "txnTimeoutMs=60000",
    )
    assert transaction_log_decoder(key, None) == ("transaction_metadata::transactionalId=tx-1", "<DELETE>")


def test_dump_log_with_the_offsets_decoder_and_decoder_classes(tmp_path):
    directory = tmp_path / "__consumer_offsets-0"
    log = Log(str(directory), LogConfig(), MillisecondClock(1000))
    log.append(
        encode_batch(
            [(offset_key("g", "t", 0), offset_value_v3(9, ""), [], 1000), (offset_key("g", "t", 1), None, [], 1000)],
            base_offset=0,
        ),
        1,
        1000,
        1,
    )
    log.close()
    path = str(directory / "00000000000000000000.log")

    def dump(*argv):
        out, err = io.StringIO(), io.StringIO()
        code = run_tool(dump_log.build_parser(), dump_log.run, ["--files", path, *argv], out, err)
        return code, out.getvalue().splitlines(), err.getvalue()

    code, lines, _ = dump("--offsets-decoder")
    assert code == 0
    records = [line for line in lines if line.startswith("| offset:")]
    assert records[0].endswith(" key: offset::g:t:0 payload: 9")
    assert records[1].endswith("headerKeys: []")  # a tombstone: nothing decoded, nothing printed
    code, lines, _ = dump("--value-decoder-class", "kafka.serializer.StringDecoder")
    assert code == 0 and any(" payload: " in line for line in lines)
    code, lines, err = dump("--key-decoder-class", "com.example.Missing")
    assert code == 1
    assert err.strip() == 'Exception in thread "main" java.lang.ClassNotFoundException: com.example.Missing'


def test_leader_election_json_and_output_lines():
    assert leader_election.parse_election_json(
        '{"partitions": [{"topic": "b", "partition": 1}, {"topic": "a", "partition": 0}]}'
    ) == [("a", 0), ("b", 1)]
    for text, message in [
        ("not json", "Replica election data is empty"),
        ('{"x": 1}', 'Replica election data is missing "partition" field'),
        (
            '{"partitions": [{"topic": "a", "partition": 0}, {"topic": "a", "partition": 0}]}',
            "Replica election data contains duplicate partitions: a-0",
        ),
        ('{"partitions": [{"topic": "a"}]}', "No such field exists: `partition`"),
    ]:
        with pytest.raises(ToolFailure) as failure:
            leader_election.parse_election_json(text)
        assert failure.value.message == message
    lines, failed = leader_election.format_results(
        "PREFERRED",
        {
            ("t", 1): (Errors.NONE, None),
            ("t", 0): (Errors.NONE, None),
            ("u", 0): (Errors.ELECTION_NOT_NEEDED, None),
            ("v", 3): (
                Errors.PREFERRED_LEADER_NOT_AVAILABLE,
                "Failed to elect leader for partition v-3 under strategy "
                "PreferredReplicaPartitionLeaderElectionStrategy",
            ),
        },
    )
    assert failed == 1
    assert lines == [
        "Successfully completed leader election (PREFERRED) for partitions t-0, t-1",
        "Valid replica already elected for partitions u-0",
        "Error completing leader election (PREFERRED) for partition: v-3: org.apache.kafka.common.errors."
        "PreferredLeaderNotAvailableException: Failed to elect leader for partition v-3 under strategy "
        "PreferredReplicaPartitionLeaderElectionStrategy",
    ]
    assert (
        leader_election.java_exception_text(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
        == "org.apache.kafka.common.errors.EligibleLeadersNotAvailableException: "
        "Eligible topic partition leaders are not available."
    )
    args = leader_election.build_parser().parse_args(
        ["--bootstrap-server", "h:1", "--election-type", "unclean", "--partition", "0", "--all-topic-partitions"]
    )
    with pytest.raises(UsageError, match="Option partition is only allowed if topic is used"):
        leader_election.validate(args)


class FakeZkAdmin:
    def __init__(self, in_progress=None):
        self.in_progress = in_progress
        self.written = None

    def topic_assignments(self, topics):
        return {topic: {0: [1, 2]} for topic in topics if topic == "t"}

    def list_topics(self):
        return ["t"]

    def start_preferred_replica_election(self, partitions):
        if self.in_progress:
            raise AdminOperationError(
                "Preferred replica leader election currently in progress for %s. Aborting operation" % self.in_progress
            )
        self.written = list(partitions)

    def close(self):
        pass


def test_preferred_replica_election_znode_and_in_progress_refusal():
    assert (
        PreferredReplicaElectionZNode.encode([("t", 0), ("u", 2)])
        == b'{"version":1,"partitions":[{"topic":"t","partition":0},{"topic":"u","partition":2}]}'
    )
    out = io.StringIO()
    fake = FakeZkAdmin()
    preferred_replica_election.elect_through_zookeeper("zk", None, out, lambda connect: fake)
    assert fake.written == [("t", 0)]
    assert out.getvalue().splitlines() == [
        "Created preferred replica election path with t-0",
        "Successfully started preferred replica election for partitions Set(t-0)",
    ]
    with pytest.raises(ToolFailure) as failure:
        preferred_replica_election.elect_through_zookeeper(
            "zk", [("t", 0)], io.StringIO(), lambda connect: FakeZkAdmin("t-0")
        )
    assert failure.value.message == (
        "Admin command failed\nCaused by: kafka.admin.AdminOperationException: "
        "Preferred replica leader election currently in progress for t-0. "
        "Aborting operation"
    )


def test_broker_api_version_text():
    produce = API_SPECS[0]
    assert broker_api_versions.api_version_text(
        0, (0, produce.max_version + 3)
    ) == "Produce(0): 0 to %d [usable: %d]" % (produce.max_version + 3, produce.max_version)
    assert broker_api_versions.api_version_text(
        0, (produce.max_version + 1, produce.max_version + 1)
    ) == "Produce(0): %d [unusable: node too new]" % (produce.max_version + 1)
    assert broker_api_versions.api_version_text(47, None) == "OffsetDelete(47): UNSUPPORTED"
    assert broker_api_versions.api_version_text(1000, (0, 2)) == "UNKNOWN(1000): 0 to 2"
    block = broker_api_versions.format_node_versions({0: (0, 1), 1000: (0, 0)}).splitlines()
    assert block[0] == "(" and block[-1] == ")"
    assert block[1] == "\tProduce(0): 0 to 1 [usable: 1],"
    assert block[-2] == "\tUNKNOWN(1000): 0"
    assert len(block) == len(API_SPECS) + 3


def test_get_offsets_argument_checks():
    assert get_offsets.parse_partition_ids("") == set()
    assert get_offsets.parse_partition_ids("2,0,2") == {0, 2}
    with pytest.raises(get_offsets.ToolExit):
        get_offsets.parse_partition_ids("1,a")
    get_offsets.validate_broker_list("h1:9091,h2:9092")
    for bad in ("h1", "h1:x", ":9092"):
        with pytest.raises(UsageError):
            get_offsets.validate_broker_list(bad)
    assert get_offsets.offset_lines("t", {1: 5, 0: None}) == ["t:0:", "t:1:5"]
