"""kafka-reassign-partitions without a cluster: option checks, reassignment JSON, and throttled-replica lists."""

import io
import json

import pytest

from kafka_zk.tools.command_line import run_tool
from kafka_zk.tools.reassign_partitions import (
    ReassignmentError,
    build_parser,
    format_reassignment_json,
    generate,
    main,
    parse_reassignment,
    throttled_replicas,
)
from kafka_zk.tools.reassign_partitions import run as run_command


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(build_parser(), run_command, list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_throttles_name_pre_move_replicas_as_leaders_and_gained_replicas_as_followers():
    current = {("t", 0): [1, 2], ("t", 1): [2, 3], ("t", 2): [3, 1], ("u", 0): [1]}
    proposed = {("t", 0): [3, 2], ("t", 1): [2, 3], ("t", 2): [4, 5], ("u", 0): [2]}
    assert throttled_replicas(current, proposed) == {
        "t": ("0:1,0:2,2:3,2:1", "0:3,2:4,2:5"),  # partition 1 does not move, so it is not throttled
        "u": ("0:1", "0:2"),
    }


def test_reassignment_json_is_compact_and_sorted_like_kafkas():
    text = format_reassignment_json({("b", 1): [2, 1], ("a", 0): [1]})
    assert text == (
        '{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"log_dirs":["any"]},'
        '{"topic":"b","partition":1,"replicas":[2,1],"log_dirs":["any","any"]}]}'
    )


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"version":1,"partitions":[]}', "Partition reassignment data file is empty"),
        (
            '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[]}]}',
            "Partition replica list cannot be empty",
        ),
        (
            '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}',
            "Partition reassignment contains duplicate topic partitions: t-0",
        ),
        ('{"partitions":[{"topic":"t","partition":0,"replicas":[1,"x"]}]}', "must look like"),
        (
            '{"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}',
            "Size of replicas list [1, 2] is different from size of log dirs list ['any'] for partition t-0",
        ),
        ("not json", "Unable to parse the reassignment-json file"),
        (
            '{"version":2,"partitions":[{"topic":"t","partition":0,"replicas":[1]}]}',
            "Not supported version field value 2",
        ),
    ],
)
def test_bad_reassignment_files_are_refused_with_one_message(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ReassignmentError) as raised:
        parse_reassignment(path)
    assert message in str(raised.value)


def test_reassignment_file_keeps_its_order(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(
        '{"version":1,"partitions":[{"topic":"t","partition":1,"replicas":[2]},'
        '{"topic":"t","partition":0,"replicas":[1,3],"log_dirs":["any","any"]}]}'
    )
    assert parse_reassignment(path) == [(("t", 1), [2]), (("t", 0), [1, 3])]


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--zookeeper", "z", "--execute", "--verify", "--reassignment-json-file", "f"],
            "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list",
        ),
        (["--zookeeper", "z", "--list"], 'Option "[zookeeper]" can\'t be used with action "[list]"'),
        (
            ["--bootstrap-server", "b", "--verify", "--reassignment-json-file", "f", "--throttle", "5"],
            'Option "[throttle]" can\'t be used with action "[verify]"',
        ),
        (
            ["--bootstrap-server", "b", "--verify", "--reassignment-json-file", "f", "--timeout", "5"],
            'Option "[timeout]" can\'t be used with action "[verify]"',
        ),
        (
            ["--bootstrap-server", "b", "--generate", "--topics-to-move-json-file", "f"],
            'Missing required argument "[broker-list]"',
        ),
        (
            ["--zookeeper", "z", "--execute", "--reassignment-json-file", "f", "--additional"],
            'You must specify --bootstrap-server when using "[additional]"',
        ),
        (["--execute", "--reassignment-json-file", "f"], "Please specify --bootstrap-server"),
    ],
)
def test_bad_option_combinations_exit_one_with_kafkas_message(argv, message):
    code, out, err = run(*argv)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == message


def test_no_arguments_prints_usage_and_exits_one(capsys):
    assert main([]) == 1
    assert "kafka-reassign-partitions" in capsys.readouterr().err


class RackedBackend:
    """Brokers {id: rack} and one topic's current assignment, as generate reads them."""

    def __init__(self, racks, current):
        self.racks = racks
        self.current = current

    def brokers(self):
        return dict(self.racks)

    def assignment(self, topics):
        return {tp: replicas for tp, replicas in self.current.items() if tp[0] in topics}


def _generated(backend, tmp_path, *extra, brokers="0,1,2,3,4,5"):
    topics = tmp_path / "topics.json"
    topics.write_text('{"topics":[{"topic":"t"}],"version":1}')
    args = build_parser().parse_args(
        ["--zookeeper", "z", "--generate", "--topics-to-move-json-file", str(topics), "--broker-list", brokers, *extra]
    )
    out = io.StringIO()
    generate(backend, args, out)
    proposed = out.getvalue().split("Proposed partition reassignment configuration\n")[1]
    return {entry["partition"]: entry["replicas"] for entry in json.loads(proposed)["partitions"]}


def test_generate_is_rack_aware_unless_disabled(tmp_path):
    racks = {b: "rack-%d" % (b % 3) for b in range(6)}
    backend = RackedBackend(racks, {("t", p): [0, 1, 2] for p in range(30)})
    aware = _generated(backend, tmp_path)
    assert sorted(aware) == list(range(30))
    assert all(len({racks[b] for b in replicas}) == 3 for replicas in aware.values())
    # over 30 partitions the unaware plan passes every follower shift, some landing on the leader's rack
    unaware = _generated(backend, tmp_path, "--disable-rack-aware")
    assert any(len({racks[b] for b in replicas}) < 3 for replicas in unaware.values())


def test_generate_refuses_brokers_of_which_only_some_have_racks(tmp_path):
    backend = RackedBackend({0: "r0", 1: "r1", 2: None}, {("t", 0): [0, 1]})
    with pytest.raises(ReassignmentError, match="Not all brokers have rack information. Add --disable-rack-aware"):
        _generated(backend, tmp_path, brokers="0,1,2")
    assert _generated(backend, tmp_path, "--disable-rack-aware", brokers="0,1,2")[0][0] in (0, 1, 2)
    # brokers outside the list do not count
    assert len(_generated(backend, tmp_path, brokers="0,1")[0]) == 2
