"""kafka-consumer-groups and kafka-console-consumer --group against three real brokers: describe with lag, reset
kinds, delete, delete-offsets, bad input; console consumers sharing a group, resuming, and the generated group."""

import io
import os
import re
import subprocess
import time
import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kafka_zk.tools import consumer_groups
from kafka_zk.tools.command_line import run_tool
from tests.cluster_support import GROUP_OVERRIDES, make_topic, module_cluster, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PER_PARTITION = 10

cluster = module_cluster(overrides=GROUP_OVERRIDES)


def tool(cluster, *args):
    out, err = io.StringIO(), io.StringIO()
    code = run_tool(
        consumer_groups.build_parser(),
        consumer_groups.run,
        ["--bootstrap-server", cluster.bootstrap_servers] + list(args),
        out,
        err,
    )
    return code, out.getvalue(), err.getvalue()


def timed_topic(cluster):
    """Two partitions of PER_PARTITION records "0", "1", ... stamped a second apart from 1000 s."""
    return make_topic(
        cluster,
        "cg",
        2,
        records_per_partition=PER_PARTITION,
        value=lambda partition, index: b"%d" % index,
        timestamp=lambda index: 1000000 + index * 1000,
    )


def member(cluster, group):
    return Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "client.id": "lagger",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 500,
        }
    )


def commit_offsets(cluster, group, topic, offsets):
    """Commit {partition: offset} for ``group`` from a consumer that then leaves (group becomes Empty)."""
    c = member(cluster, group)
    c.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    c.close()


def rows(output, group):
    return [line.split() for line in output.splitlines() if line.startswith(group + " ")]


def committed(cluster, group, topic, partitions=2):
    c = member(cluster, group)
    try:
        return {
            tp.partition: tp.offset
            for tp in c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
        }
    finally:
        c.close()


@pytest.fixture(scope="module")
def active(cluster):
    """A Stable group whose only member consumed and committed 3 of 10 records per partition."""
    topic = timed_topic(cluster)
    group = "active-" + uuid.uuid4().hex[:6]
    c = member(cluster, group)
    c.subscribe([topic])
    wait_for(lambda: c.poll(0.2) is not None or len(c.assignment()) == 2, 90, message="assignment")
    c.commit(offsets=[TopicPartition(topic, p, 3) for p in range(2)], asynchronous=False)
    yield group, topic, c
    c.close()


def test_describe_shows_lag_members_and_state_of_an_active_group(cluster, active):
    group, topic, c = active
    code, out, err = tool(cluster, "--describe", "--group", group)
    assert code == 0, out + err
    assert out.splitlines()[1].split() == [
        "GROUP",
        "TOPIC",
        "PARTITION",
        "CURRENT-OFFSET",
        "LOG-END-OFFSET",
        "LAG",
        "CONSUMER-ID",
        "HOST",
        "CLIENT-ID",
    ]
    found = rows(out, group)
    assert sorted((r[1], r[2], r[3], r[4], r[5], r[8]) for r in found) == [
        (topic, str(p), "3", str(PER_PARTITION), str(PER_PARTITION - 3), "lagger") for p in range(2)
    ]
    assert found[0][6].startswith("lagger-")
    code, out, _ = tool(cluster, "--describe", "--group", group, "--members", "--verbose")
    assert rows(out, group)[0][3:] == ["lagger", "2", "%s(0,1)" % topic]
    code, out, _ = tool(cluster, "--describe", "--group", group, "--state")
    state = rows(out, group)[0]
    assert state[-3:] == ["range", "Stable", "1"] and state[2].startswith("(") and state[2].endswith(")")
    code, out, _ = tool(cluster, "--list")
    assert group in out.split()


def test_reset_refuses_an_active_group_with_kafkas_message(cluster, active):
    group, topic, _ = active
    code, out, err = tool(cluster, "--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--execute")
    assert code == 0
    assert (
        "Error: Assignments can only be reset if the group '%s' is inactive, but the current state is Stable." % group
    ) in out
    assert committed(cluster, group, topic) == {0: 3, 1: 3}


def test_every_reset_kind_moves_an_inactive_groups_offsets(cluster, tmp_path):
    topic = timed_topic(cluster)
    group = "reset-" + uuid.uuid4().hex[:6]
    commit_offsets(cluster, group, topic, {0: 5, 1: 5})
    code, out, err = tool(cluster, "--describe", "--group", group)
    assert "Consumer group '%s' has no active members." % group in err
    assert sorted((r[2], r[5], r[6]) for r in rows(out, group)) == [("0", "5", "-"), ("1", "5", "-")]

    plan_code, plan, warn = tool(cluster, "--reset-offsets", "--group", group, "--all-topics", "--to-earliest")
    assert "WARN: No action will be performed as the --execute option is missing." in warn
    assert plan.splitlines()[1].split() == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert sorted(r[1:] for r in rows(plan, group)) == [[topic, "0", "0"], [topic, "1", "0"]]
    assert committed(cluster, group, topic) == {0: 5, 1: 5}  # the plan alone changes nothing

    csv = tmp_path / "plan.csv"
    csv.write_text("%s,0,7\n%s,1,8\n" % (topic, topic))
    cases = [
        (["--to-earliest"], {0: 0, 1: 0}),
        (["--to-latest"], {0: 10, 1: 10}),
        (["--to-offset", "4"], {0: 4, 1: 4}),
        (["--shift-by", "-2"], {0: 2, 1: 2}),
        (["--shift-by", "100"], {0: 10, 1: 10}),  # clamped to the log end
        (["--to-datetime", "1970-01-01T00:16:44.000"], {0: 4, 1: 4}),  # records stamped 1000000 + i*1000 ms
        (["--by-duration", "PT1H"], {0: 10, 1: 10}),  # nothing that recent: the log end
        (["--from-file", str(csv)], {0: 7, 1: 8}),
    ]
    for scenario, expected in cases:
        code, out, err = tool(cluster, "--reset-offsets", "--group", group, "--topic", topic, "--execute", *scenario)
        assert code == 0, (scenario, out, err)
        assert committed(cluster, group, topic) == expected, scenario
    code, out, _ = tool(
        cluster, "--reset-offsets", "--group", group, "--topic", topic + ":1", "--to-current", "--execute"
    )
    assert sorted(r[1:] for r in rows(out, group)) == [[topic, "1", "8"]]
    code, out, _ = tool(
        cluster, "--reset-offsets", "--group", group, "--topic", topic, "--to-earliest", "--dry-run", "--export"
    )
    assert out.splitlines() == ["%s,0,0" % topic, "%s,1,0" % topic]


def test_delete_offsets_then_delete_group(cluster, active):
    busy_group, busy_topic, _ = active
    code, out, _ = tool(cluster, "--delete", "--group", busy_group)
    assert "Error: Deletion of some consumer groups failed:" in out
    assert (
        "* Group '%s' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException: "
        "The group is not empty." % busy_group
    ) in out
    code, out, _ = tool(cluster, "--delete-offsets", "--group", busy_group, "--topic", busy_topic)
    assert "Encounter some partition level error" in out and "Error: " in out

    topic = timed_topic(cluster)
    group = "del-" + uuid.uuid4().hex[:6]
    commit_offsets(cluster, group, topic, {0: 1, 1: 2})
    code, out, _ = tool(cluster, "--delete-offsets", "--group", group, "--topic", "%s:0" % topic)
    assert code == 0
    assert "Request succeed for deleting offsets with topic %s:0 group %s" % (topic, group) in out
    assert [line.split() for line in out.splitlines() if line.startswith(topic)] == [[topic, "0", "Successful"]]
    assert committed(cluster, group, topic) == {0: -1001, 1: 2}
    code, out, _ = tool(cluster, "--delete", "--group", group)
    assert out.strip() == "Deletion of requested consumer groups ('%s') was successful." % group
    code, out, _ = tool(cluster, "--describe", "--group", group)
    assert "Error: Consumer group '%s' does not exist." % group in out


def test_bad_input_gets_kafkas_messages_and_exit_codes(cluster, tmp_path):
    code, out, err = tool(cluster, "--describe", "--group", "no-such-group-" + uuid.uuid4().hex[:6])
    assert code == 0 and "does not exist." in out
    code, _, err = tool(cluster, "--describe")
    assert code == 1 and "Option [describe] takes one of these options: [group], [all-groups]" in err
    code, _, err = tool(cluster, "--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--to-latest")
    assert code == 1 and 'Option "[to-earliest]" can\'t be used with option "[to-latest]"' in err
    code, _, err = tool(cluster, "--reset-offsets", "--group", "g", "--to-earliest")
    assert code == 1 and "One of the reset scopes should be defined: --all-topics, --topic." in err
    code, _, err = tool(cluster, "--list", "--describe")
    assert code == 1 and "Command must include exactly one action" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("t,zero,1\n")
    code, out, _ = tool(cluster, "--reset-offsets", "--group", "g", "--from-file", str(bad), "--execute")
    assert code == 0 and "Error: Executing consumer group command failed due to Malformed reset plan line" in out


def test_shell_wrapper_lists_groups(cluster, active):
    group, _, _ = active
    started = time.monotonic()
    result = subprocess.run(
        [
            os.path.join(ROOT, "scripts", "kafka-consumer-groups.sh"),
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--list",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert group in result.stdout.split() and time.monotonic() - started < 120


def console(cluster, topic, *args):
    """A kafka-console-consumer.sh process printing partition and offset of each record."""
    return subprocess.Popen(
        [
            os.path.join(ROOT, "scripts", "kafka-console-consumer.sh"),
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--topic",
            topic,
            "--property",
            "print.partition=true",
            "--property",
            "print.offset=true",
            "--consumer-property",
            "heartbeat.interval.ms=500",
            *map(str, args),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def printed(process, timeout=90):
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return [tuple(int(field.split(":")[1]) for field in line.split("\t")[:2]) for line in out.splitlines()], err


def member_partition_counts(cluster, group):
    code, out, _ = tool(cluster, "--describe", "--group", group, "--members")
    return sorted(int(r[4]) for r in rows(out, group)) if code == 0 else []


def produce(cluster, topic, partitions, count):
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
    for partition in range(partitions):
        for index in range(count):
            producer.produce(topic, value=b"v%d" % index, partition=partition)
    assert producer.flush(60) == 0


def test_console_consumers_share_a_group_and_a_rerun_resumes(cluster):
    topic = make_topic(cluster, "console", 4)
    group = "console-group-" + uuid.uuid4().hex[:6]
    first, second = (
        console(cluster, topic, "--group", group, "--from-beginning", "--max-messages", 20, "--timeout-ms", 60000)
        for _ in range(2)
    )
    try:
        wait_for(
            lambda: member_partition_counts(cluster, group) == [2, 2],
            90,
            interval=0.5,
            message="two console consumers sharing four partitions",
        )
        produce(cluster, topic, 4, 10)
        (got_first, err_first), (got_second, _) = printed(first), printed(second)
    finally:
        for process in (first, second):
            process.kill() if process.poll() is None else None
    assert "Processed a total of 20 messages" in err_first
    assert len({p for p, _ in got_first}) == 2 and not {p for p, _ in got_first} & {p for p, _ in got_second}
    assert sorted(got_first + got_second) == [(p, o) for p in range(4) for o in range(10)]
    assert committed(cluster, group, topic, 4) == {p: 10 for p in range(4)}

    produce(cluster, topic, 4, 2)  # a rerun with the same group reads only what came after the commits,
    again, _ = printed(
        console(cluster, topic, "--group", group, "--from-beginning", "--max-messages", 8, "--timeout-ms", 60000)
    )  # --from-beginning notwithstanding
    assert sorted(again) == [(p, o) for p in range(4) for o in (10, 11)]
    assert committed(cluster, group, topic, 4) == {p: 12 for p in range(4)}

    produce(cluster, topic, 1, 5)  # partition 0 only: offsets 12..16, of which three get printed
    partial, _ = printed(
        console(
            cluster,
            topic,
            "--group",
            group,
            "--max-messages",
            3,
            "--timeout-ms",
            60000,
            "--consumer-property",
            "group.id=" + group,
        )
    )
    assert partial == [(0, 12), (0, 13), (0, 14)]
    assert committed(cluster, group, topic, 4) == {0: 15, 1: 12, 2: 12, 3: 12}  # fetched, not printed: not committed


def test_console_consumer_without_group_uses_a_generated_one_and_commits_nothing(cluster):
    topic = make_topic(cluster, "console", 2)
    before = set(tool(cluster, "--list")[1].split())

    def generated():
        return [
            g for g in set(tool(cluster, "--list")[1].split()) - before if re.fullmatch(r"console-consumer-\d{1,5}", g)
        ]

    process = console(cluster, topic, "--from-beginning", "--max-messages", 6, "--timeout-ms", 60000)
    try:
        wait_for(
            lambda: generated() and member_partition_counts(cluster, generated()[0]) == [2],
            90,
            interval=0.5,
            message="the generated console-consumer group",
        )
        produce(cluster, topic, 2, 3)
        got, err = printed(process)
    finally:
        process.kill() if process.poll() is None else None
    assert sorted(got) == [(p, o) for p in range(2) for o in range(3)]
    assert "Processed a total of 6 messages" in err
    assert committed(cluster, generated()[0], topic) == {0: -1001, 1: -1001}


def test_describe_lag_follows_a_confluent_consumer_that_falls_behind(cluster):
    topic = timed_topic(cluster)
    group = "behind-" + uuid.uuid4().hex[:6]
    c = member(cluster, group)
    try:
        c.subscribe([topic])
        consumed = []
        wait_for(
            lambda: (
                consumed.extend(m for m in c.consume(7 - len(consumed), 0.5) if not m.error()) or len(consumed) >= 7
            ),
            90,
            message="seven records consumed",
        )
        c.commit(asynchronous=False)  # the positions of what the application got, not of what was prefetched
        position = {}
        for m in consumed:
            position[m.partition()] = max(position.get(m.partition(), 0), m.offset() + 1)
        produce(cluster, topic, 1, 5)  # partition 0 grows to 15 while the member does not read
        wait_for(
            lambda: (
                {r[2]: r[4] for r in rows(tool(cluster, "--describe", "--group", group)[1], group)}.get("0") == "15"
            ),
            30,
            interval=0.3,
            message="log end offset 15",
        )
        code, out, err = tool(cluster, "--describe", "--group", group)
        assert code == 0 and err == "", err
        shown = {int(r[2]): (r[3], r[4], r[5]) for r in rows(out, group)}
        ends = {0: PER_PARTITION + 5, 1: PER_PARTITION}
        assert shown == {
            p: (str(position[p]), str(ends[p]), str(ends[p] - position[p]))
            if p in position
            else ("-", str(ends[p]), "-")
            for p in range(2)
        }
    finally:
        c.close()


def test_reset_all_topics_and_partition_lists_with_execute_and_dry_run(cluster):
    first, second = timed_topic(cluster), timed_topic(cluster)
    group = "scope-" + uuid.uuid4().hex[:6]
    commit_offsets(cluster, group, first, {0: 5, 1: 5})
    commit_offsets(cluster, group, second, {0: 5, 1: 5})

    code, out, _ = tool(cluster, "--reset-offsets", "--group", group, "--all-topics", "--to-offset", "2", "--dry-run")
    assert sorted(r[1:] for r in rows(out, group)) == sorted(
        [t, str(p), "2"] for t in (first, second) for p in range(2)
    )
    assert committed(cluster, group, first) == {0: 5, 1: 5} and committed(cluster, group, second) == {0: 5, 1: 5}

    code, out, _ = tool(cluster, "--reset-offsets", "--group", group, "--all-topics", "--to-offset", "2", "--execute")
    assert code == 0
    assert committed(cluster, group, first) == {0: 2, 1: 2} and committed(cluster, group, second) == {0: 2, 1: 2}

    code, out, _ = tool(
        cluster,
        "--reset-offsets",
        "--group",
        group,
        "--topic",
        first + ":0,1",
        "--topic",
        second + ":1",
        "--to-latest",
        "--execute",
    )
    assert sorted(r[1:] for r in rows(out, group)) == sorted(
        [[first, "0", "10"], [first, "1", "10"], [second, "1", "10"]]
    )
    assert committed(cluster, group, first) == {0: 10, 1: 10} and committed(cluster, group, second) == {0: 2, 1: 10}


def test_console_consumer_with_roundrobin_shares_a_group_with_a_confluent_member(cluster):
    topic = make_topic(cluster, "console-rr", 4)
    group = "console-rr-" + uuid.uuid4().hex[:6]
    process = console(
        cluster,
        topic,
        "--group",
        group,
        "--from-beginning",
        "--max-messages",
        10,
        "--timeout-ms",
        60000,
        "--consumer-property",
        "partition.assignment.strategy=org.apache.kafka.clients.consumer.RoundRobinAssignor",
    )
    other = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": group,
            "client.id": "rr",
            "auto.offset.reset": "earliest",
            "partition.assignment.strategy": "roundrobin",
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 500,
        }
    )
    try:
        other.subscribe([topic])
        wait_for(
            lambda: other.poll(0.2) is None and member_partition_counts(cluster, group) == [2, 2],
            90,
            interval=0.3,
            message="console and confluent members sharing four partitions",
        )
        state = rows(tool(cluster, "--describe", "--group", group, "--state")[1], group)[0]
        assert state[-3:] == ["roundrobin", "Stable", "2"]
        mine = {tp.partition for tp in other.assignment()}
        produce(cluster, topic, 4, 5)
        got, _ = printed(process)
        assert sorted(got) == [(p, o) for p in range(4) if p not in mine for o in range(5)]
    finally:
        process.kill() if process.poll() is None else None
        other.close()


def test_console_whitelist_member_picks_up_a_topic_created_after_it_started(cluster):
    prefix = "late-" + uuid.uuid4().hex[:6]
    group = prefix + "-group"
    process = subprocess.Popen(
        [
            os.path.join(ROOT, "scripts", "kafka-console-consumer.sh"),
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--whitelist",
            prefix + r"-[0-9a-f]{8}",
            "--group",
            group,
            "--from-beginning",
            "--max-messages",
            "4",
            "--timeout-ms",
            "60000",
            "--property",
            "print.partition=true",
            "--property",
            "print.offset=true",
            "--consumer-property",
            "metadata.max.age.ms=500",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def members():
            state = rows(tool(cluster, "--describe", "--group", group, "--state")[1], group)
            return state[0][-2:] if state else None

        wait_for(lambda: members() == ["Stable", "1"], 90, interval=0.5, message="the whitelist member in its group")
        topic = make_topic(cluster, prefix, 2, records_per_partition=2, value=lambda partition, index: b"v%d" % index)
        got, _ = printed(process)
    finally:
        process.kill() if process.poll() is None else None
    assert sorted(got) == [(p, o) for p in range(2) for o in range(2)]
    assert committed(cluster, group, topic) == {0: 2, 1: 2}
