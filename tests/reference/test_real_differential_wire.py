"""Requests and responses, kafka-zk against Apache Kafka 2.5.1: the corpus of tests/reference/wire_corpus.py sent
alike to a cluster of three Kafka 2.5.1 JVM brokers and to one of three kafka-zk brokers, every answer compared once
what legitimately differs (cluster id, hosts, ports, the controller's and coordinators' ids, broker clocks, throttle
times, random member, producer, session and token ids) is normalised away."""

import inspect
import json
import re
import socket
import string
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest

from kafka_zk.client.connection import BrokerConnection
from kafka_zk.client.errors import KafkaConnectionError
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.protocol.primitives import ProtocolEncodeError
from kafka_zk.record.records import iter_batches
from kafka_zk.tools.local_cluster import LocalCluster
from kafka_zk.tools.reference_broker import ReferenceJarsMissing, libs_dir
from tests.authorization_support_real import ADMIN, PASSWORDS, SECURE_OVERRIDES, login
from tests.cluster_support import TEST_DEFAULTS, broker_processes  # noqa: F401
from tests.ports import free_port
from tests.reference.differential_support import run_kafka_class, run_our_script
from tests.reference.wire_corpus import ALL, CORPUS, EACH
from tests.zk_support import create_chroot

# The same settings on both clusters: SASL_PLAINTEXT with the ACL authorizer (admin a super user, alice a principal
# with no ACLs), delegation tokens on, no auto-created topics, groups that rebalance at once. A group's assignment
# and offsets wait 30 s, not Kafka's 5, for the three replicas of their __consumer_offsets partition: a JVM broker
# starved beside the suite's other module once answered a SyncGroup REQUEST_TIMED_OUT and rebalanced the group.
SETTINGS = {
    **TEST_DEFAULTS,
    **SECURE_OVERRIDES,
    "auto.create.topics.enable": "false",
    "group.initial.rebalance.delay.ms": "0",
    "offsets.commit.timeout.ms": "30000",
}
API_KEYS = {spec.name: key for key, spec in API_SPECS.items()}
# COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: a coordinator to find again.
MOVED = (14, 15, 16)
# The APIs only the active controller serves (others answer NOT_CONTROLLER): sent to it unless a step says.
CONTROLLER_ANSWERS = {
    "CreateTopics",
    "DeleteTopics",
    "CreatePartitions",
    "ElectLeaders",
    "AlterPartitionReassignments",
    "ListPartitionReassignments",
    "ControlledShutdown",
}
TOPIC_COMMAND, TOPICS_SCRIPT = "kafka.admin.TopicCommand", "kafka-topics.sh"
SUMMARY = Path(__file__).resolve().parents[2] / "build" / "reference" / "differential-wire.json"

# Differences kept, by step name (every version) or "step name/vN": each is explained in
# tests/reference/known_differences.md under "## Requests and responses".
_MESSAGE = "an error text of Kafka's own"
KNOWN = {
    "create topics, good and bad": "an unregistered broker in an assignment; a name given twice; v5 configs []",
    "create topics, validate only": "entries of topics in error (configs [], texts)",
    "alice: create topics": "configs [] in v5 of a denied topic",
    "produce garbage bytes": "Kafka closes the connection on records that fail while parsing",
    "list offsets: latest, earliest, by time, unknown partition and topic/v0": "v0 old_style_offsets",
    "delete a committed offset": "Kafka repeats the topic once per partition",
    "describe configs of a topic, a broker, unknown ones": "texts; inter.broker.protocol.version 2.5-IV0",
    "alter configs": "a resource named twice: answered once by Kafka",
    "incremental alter configs": "Kafka fails an APPEND to a default cleanup.policy with an internal error",
    "describe configs after the alters": "follows from the APPEND Kafka failed",
    "reassignments: cancel none, unknown topic": _MESSAGE,
    "reassignments: invalid replicas": _MESSAGE,
    "create an acl of an unknown resource type": "Kafka closes the connection",
    "create an acl of a principal without a type": "Kafka answers -1 with a Java exception's text",
    "alice: describe acls": "Kafka's text prints its request object",
    "alice: create acls": "Kafka's text prints its request object",
    "alice: delete acls": "Kafka's text prints its request object",
    "alice: alter reassignments": "Kafka's text prints its request object",
    "alice: list reassignments": "Kafka's text prints its request object",
    "controlled shutdown of a broker not here": "UNKNOWN_SERVER_ERROR in Kafka from v2",
}

# Steps that differed from Kafka before the broker was fixed (each in its own commit); they must now agree.
FIXED = {
    "create topics sent to a broker not the controller",
    "delete topics sent to a broker not the controller",
    "create partitions sent to a broker not the controller",
    "api versions above the highest",
    "fetch from the start, an unknown partition and topic, and out of range",
    "fetch below the log start",
    "metadata of a topic, an unknown and an invalid name",
    "list reassignments",
    "create acls",
    "describe acls",
    "produce a corrupt batch",
    "idempotent produce, out of sequence",
    "leader and isr from a stale controller",
    "update metadata from a stale controller",
    "stop replica from a stale controller",
    "metadata in the middle of a sasl exchange",
    "create partitions",
    "list offsets naming a partition twice",
    "idempotent produce, a duplicate",
    "alice: find a group coordinator",
    "alice: find a transaction coordinator",
    "elect preferred leaders",
    "controlled shutdown sent to a broker not the controller",
    "alter reassignments sent to a broker not the controller",
    "list reassignments sent to a broker not the controller",
    "describe acls, an unknown filter",
}


def start_member(folder, zookeeper_server, kafka_brokers):
    cluster = LocalCluster(
        folder,
        brokers=3,
        zk_connect=create_chroot(zookeeper_server),
        broker_ports=[free_port() for _ in range(3)],
        overrides=SETTINGS,
        kafka_brokers=kafka_brokers,
    )
    for broker in cluster.brokers:
        broker.client_properties = dict(ADMIN)
    try:
        cluster.start(timeout=120)
    except Exception:
        cluster.kill()
        raise
    return cluster


@pytest.fixture(scope="module")
def clusters(tmp_path_factory, zookeeper_server, broker_processes):  # noqa: F811
    """(Kafka 2.5.1's cluster, kafka-zk's), started side by side."""
    try:
        libs_dir()
    except ReferenceJarsMissing as error:
        pytest.fail(str(error))
    folder = tmp_path_factory.mktemp("differential-wire")
    with ThreadPoolExecutor(2) as pool:
        futures = [
            pool.submit(start_member, folder / name, zookeeper_server, k) for name, k in (("kafka", 3), ("ours", 0))
        ]
        started = []
        try:
            for future in futures:
                started.append(future.result())
        except Exception:
            for future in futures:
                if future.exception() is None:
                    future.result().kill()
            raise
    yield tuple(started)
    for cluster in started:
        cluster.stop()


# -- running the corpus on one cluster ---------------------------------------------------------------------------


def resolve(value, variables):
    if callable(value):
        return value(variables)
    if isinstance(value, dict):
        return {key: resolve(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, variables) for item in value]
    if isinstance(value, tuple):
        return tuple(resolve(item, variables) for item in value)
    if isinstance(value, str) and "$" in value:
        if value[1:] in variables:
            return variables[value[1:]]
        return string.Template(value).substitute({k: str(v) for k, v in variables.items()})
    return value


def expand(corpus, common):
    """The corpus as a flat list of (case id, step, version, fixed variables), identical for both clusters."""
    cases = []

    def add(step, variables, label):
        if "raw" in step:
            cases.append((step["name"], step, None, dict(variables)))
            return
        low, high = common[API_KEYS[step["api"]]]
        if step.get("versions", ALL) == ALL:
            versions = range(low, high + 1)
        elif step["versions"] == EACH:
            versions = [max(low, min(high, variables["i"]))]
        else:
            versions = [v for v in step["versions"] if low <= v <= high]
        for version in versions:
            fixed = dict(variables, version=version)
            if "when" in step and not step["when"](fixed):
                continue
            cases.append(("%s%s/v%d" % (step["name"], label, version), step, version, fixed))

    for item in corpus:
        if "repeat" in item:
            top = max(common[API_KEYS[api]][1] for api in item["apis"])
            for index in range(top + 1):
                for step in item["steps"]:
                    add(step, {"i": index}, " [%s %d]" % (item["repeat"], index))
        else:
            add(item, {"i": 0}, "")
    return cases


class ClusterRunner:
    """One cluster's side: a connection per (user, broker), the routes of groups and transactions, the answers."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.brokers = {broker.broker_id: broker for broker in cluster.brokers}
        self.connections = {}
        self.coordinators = {}
        self.variables = {}
        self.seconds = []  # when each case started

    def connection(self, user, broker_id):
        key = (user, broker_id)
        if key not in self.connections:
            broker = self.brokers[broker_id]
            self.connections[key] = BrokerConnection(
                broker.host, broker.port, client_id="diff-wire", timeout=20, security=login(user)
            )
        return self.connections[key]

    def close(self):
        for connection in self.connections.values():
            connection.close()

    def api_versions(self):
        response = self.connection("admin", 0).request(18, {}, version=0)
        return {entry["api_key"]: (entry["min_version"], entry["max_version"]) for entry in response["api_keys"]}

    def controller(self):
        return self.connection("admin", 0).request(3, {"topics": []}, version=1)["controller_id"]

    def coordinator(self, key_type, key):
        if (key_type, key) not in self.coordinators:
            deadline = time.monotonic() + 60
            while True:
                answer = self.connection("admin", 0).request(10, {"key": key, "key_type": key_type}, version=1)
                if answer["error_code"] == 0 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert answer["error_code"] == 0, (key, answer)
            self.coordinators[(key_type, key)] = answer["node_id"]
            if key_type == 0:  # and serves the group: its offsets partition loaded, its leadership settled
                while time.monotonic() < deadline:
                    described = self.connection("admin", answer["node_id"]).request(15, {"groups": [key]}, version=0)
                    if described["groups"][0]["error_code"] == 0:
                        break
                    time.sleep(0.1)
        return self.coordinators[(key_type, key)]

    def route(self, to, variables):
        if isinstance(to, int):
            return to
        if to == "controller":
            return self.controller()
        if to == "not controller":
            return (self.controller() + 1) % 3
        kind, key = to
        return self.coordinator(0 if kind == "group" else 1, resolve(key, variables))

    def run(self, cases):
        """Each case's answer (a decoded body, or {"<outcome>": ...} when there was none), in order."""
        answers = []
        for _, step, version, fixed in cases:
            self.seconds.append(time.monotonic())
            variables = dict(self.variables, **fixed)
            if "raw" in step:
                answers.append(RAW_FRAMES[step["raw"]](self.brokers[0]))
                continue
            user = step.get("user", "admin")
            route = step.get("to", "controller" if step["api"] in CONTROLLER_ANSWERS else 0)
            broker_id = self.route(route, variables)
            body = resolve(step["body"], variables)
            answer = self.send(user, broker_id, API_KEYS[step["api"]], version, body)
            deadline = time.monotonic() + 15
            while isinstance(route, tuple) and answer.get("error_code") in MOVED and time.monotonic() < deadline:
                # as a client does: find the coordinator again (it moved, or was still loading) and retry
                self.coordinators.pop((0 if route[0] == "group" else 1, resolve(route[1], variables)), None)
                time.sleep(0.2)
                broker_id = self.route(route, variables)
                answer = self.send(user, broker_id, API_KEYS[step["api"]], version, body)
            while "until" in step and not _holds(step["until"], answer, variables) and time.monotonic() < deadline:
                time.sleep(0.1)
                answer = self.send(user, broker_id, API_KEYS[step["api"]], version, body)
            for name, path in step.get("save", {}).items():
                try:
                    value = answer
                    for part in path:
                        value = value[part]
                except (KeyError, IndexError, TypeError):
                    continue
                self.variables[name] = value
            answers.append(answer)
        return answers

    def send(self, user, broker_id, api_key, version, body):
        try:
            return self.connection(user, broker_id).request(api_key, body, version=version)
        except ProtocolEncodeError as error:
            return {"<corpus error>": str(error)}
        except KafkaConnectionError as error:
            return {"<outcome>": "no answer: " + ("timed out" if "timed out" in str(error) else "connection closed")}


def _holds(test, answer, variables):
    try:
        return bool(test(answer, variables) if len(inspect.signature(test).parameters) == 2 else test(answer))
    except (KeyError, IndexError, TypeError):
        return False


# -- frames our codec cannot encode ------------------------------------------------------------------------------

_SIZE = struct.Struct(">i")


def _read_frame(sock):
    def exact(size):
        data = b""
        while len(data) < size:
            try:
                chunk = sock.recv(size - len(data))
            except (ConnectionResetError, socket.timeout):
                return None
            if not chunk:
                return None
            data += chunk
        return data

    head = exact(4)
    return None if head is None else exact(_SIZE.unpack(head)[0])


def _exchange(sock, api_key, version, body):
    payload = encode_request(api_key, version, 7, "diff-wire", body)
    sock.sendall(_SIZE.pack(len(payload)) + payload)
    return decode_response(api_key, version, _read_frame(sock))[1]


def _flexible_header(api_key, version):
    client = b"diff-wire"
    return struct.pack(">hhih", api_key, version, 9, len(client)) + client + b"\x00"


def _compact(text):
    return bytes([len(text) + 1]) + text


def _raw_answer(broker, frame, authenticate):
    with socket.create_connection((broker.host, broker.port), timeout=10) as sock:
        if authenticate:
            assert _exchange(sock, 17, 1, {"mechanism": "PLAIN"})["error_code"] == 0
            assert _exchange(sock, 36, 0, {"auth_bytes": b"\0admin\0admin-secret"})["error_code"] == 0
        sock.sendall(_SIZE.pack(len(frame)) + frame)
        return _read_frame(sock)


def api_versions_above_the_highest(broker):
    """ApiVersions v4 as a newer client sends it: the answer is read as v0, the version Kafka answers it in."""
    frame = _flexible_header(18, 4) + _compact(b"diff-wire") + _compact(b"1.0") + b"\x00"
    answer = _raw_answer(broker, frame, authenticate=False)
    if answer is None:
        return {"<outcome>": "no answer: connection closed"}
    return {"correlation_id": struct.unpack(">i", answer[:4])[0], **API_SPECS[18].response.decode(answer[4:], 0)}


def unserved(api_key, version):
    def send(broker):
        answer = _raw_answer(broker, _flexible_header(api_key, version) + b"\x00\x00", authenticate=True)
        return {"<outcome>": "no answer: connection closed"} if answer is None else {"<answer>": answer.hex()}

    return send


def metadata_mid_sasl(broker):
    """Metadata v1 after SaslHandshake v1, where a SaslAuthenticate belongs: the answer (if any), then the close."""
    with socket.create_connection((broker.host, broker.port), timeout=10) as sock:
        assert _exchange(sock, 17, 1, {"mechanism": "PLAIN"})["error_code"] == 0
        body = {"topics": [{"name": "dw-one"}, {"name": "dw-two"}], "allow_auto_topic_creation": True}
        payload = encode_request(3, 1, 8, "diff-wire", body)
        sock.sendall(_SIZE.pack(len(payload)) + payload)
        answer = _read_frame(sock)
        closed = _read_frame(sock) is None
    return {"<answer>": None if answer is None else answer.hex(), "<closed after>": closed}


RAW_FRAMES = {
    "api_versions_v4": api_versions_above_the_highest,
    "metadata_mid_sasl": metadata_mid_sasl,
    "metadata_v10": unserved(3, 10),
    "api_key_99": unserved(99, 0),
}


# -- normalising and comparing -----------------------------------------------------------------------------------

BLANKED = {
    "throttle_time_ms",
    "cluster_id",
    "host",
    "port",
    "controller_id",
    "issue_timestamp_ms",
    "expiry_timestamp_ms",
    "max_timestamp_ms",
    "issue_timestamp",
    "expiry_timestamp",
    "max_timestamp",
}
RENAMED = {"member_id": "member", "leader": "member", "producer_id": "producer", "session_id": "session"}
RENAMED.update({"hmac": "hmac", "token_id": "token"})
SORTED = {"isr_nodes", "isr", "offline_replicas"}


class Renamer:
    """Random ids (member, producer, session, token ids) named by the order they first appear in: equal answers
    name theirs alike."""

    def __init__(self):
        self.names = {}

    def __call__(self, kind, value):
        key = (kind, value)
        if key not in self.names:
            self.names[key] = "<%s %d>" % (kind, sum(1 for k, _ in self.names if k == kind) + 1)
        return self.names[key]


def normalise(value, renamer, api=None, key=None):
    if isinstance(value, dict):
        return {k: normalise_field(k, v, renamer, api) for k, v in value.items()}
    if isinstance(value, list):
        items = [normalise(item, renamer, api, key) for item in value]
        if items and isinstance(items[0], dict):
            return sorted(items, key=lambda item: json.dumps(item, sort_keys=True, default=str))
        return sorted(items) if key in SORTED else items
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return value


def normalise_field(key, value, renamer, api):
    if key in BLANKED or (api == "FindCoordinator" and key == "node_id"):
        return "<%s>" % key
    if key == "log_dir":
        return "<log dir>"
    if key in RENAMED:
        if key == "producer_id" and isinstance(value, int) and value < 0:
            return value
        if key == "session_id" and value == 0:
            return value
        if key in ("member_id", "leader") and not isinstance(value, str) or value in ("", None):
            return value
        return renamer(RENAMED[key], bytes(value) if isinstance(value, (bytearray, memoryview)) else value)
    if key == "records" and value is not None:
        return records_view(bytes(value), renamer)
    return normalise(value, renamer, api, key)


def records_view(data, renamer):
    """A records field as its batches' fields and records; producer ids renamed, the broker-stamped times of
    control batches blanked. Message sets of magic 0 and 1 stay bytes."""
    if len(data) < 17 or data[16] != 2:
        return data.hex()
    view = []
    for header, records in iter_batches(data, verify_crc=False):
        fields = header._asdict()
        fields.pop("crc")
        if fields["producer_id"] >= 0:
            fields["producer_id"] = renamer("producer", fields["producer_id"])
        if header.is_control:
            fields["first_timestamp"] = fields["max_timestamp"] = "<time>"
        view.append(
            {
                "header": fields,
                "records": [
                    [
                        r.offset,
                        "<time>" if header.is_control else r.timestamp,
                        r.key and r.key.hex(),
                        r.value and r.value.hex(),
                        [list(h) for h in r.headers],
                    ]
                    for r in records
                ],
            }
        )
    return repr(view)


def differences(kafka, ours, path="", found=None):
    """Where two normalised answers differ, as "path: Kafka's value != ours" lines."""
    found = [] if found is None else found
    if isinstance(kafka, dict) and isinstance(ours, dict):
        for key in list(kafka) + [k for k in ours if k not in kafka]:
            differences(kafka.get(key, "<absent>"), ours.get(key, "<absent>"), "%s.%s" % (path, key), found)
    elif isinstance(kafka, list) and isinstance(ours, list) and len(kafka) == len(ours):
        for index, (a, b) in enumerate(zip(kafka, ours)):
            differences(a, b, "%s[%d]" % (path, index), found)
    elif isinstance(kafka, list) and isinstance(ours, list):
        kafka_only = [item for item in kafka if item not in ours]
        ours_only = [item for item in ours if item not in kafka]
        found.append(
            "%s: %d items != %d; only Kafka's: %s; only ours: %s"
            % (path, len(kafka), len(ours), _short(kafka_only), _short(ours_only))
        )
    elif kafka != ours:
        found.append("%s: %s != %s" % (path or "answer", _short(kafka), _short(ours)))
    return found


def _short(value):
    text = json.dumps(value, default=str)
    return text if len(text) < 300 else text[:300] + "..."


def _step_name(case_id):
    return re.sub(r" \[.*\]", "", case_id).rsplit("/", 1)[0]


def is_known(case_id):
    name = re.sub(r" \[.*\]", "", case_id)
    return name in KNOWN or name.rsplit("/", 1)[0] in KNOWN


@pytest.fixture(scope="module")
def comparison(clusters):
    """Every case's id, API key, version and the differences of the two answers."""
    kafka, ours = (ClusterRunner(cluster) for cluster in clusters)
    try:
        advertised = [kafka.api_versions(), ours.api_versions()]
        common = {
            key: (max(advertised[0][key][0], advertised[1][key][0]), min(advertised[0][key][1], advertised[1][key][1]))
            for key in set(advertised[0]) & set(advertised[1])
        }
        cases = expand(CORPUS, common)
        started = time.monotonic()
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda runner: runner.run(cases), (kafka, ours)))
        elapsed = time.monotonic() - started
    finally:
        kafka.close()
        ours.close()
    renamers = (Renamer(), Renamer())
    results = []
    for index, (case_id, step, version, _) in enumerate(cases):
        api = step.get("api")
        pair = [normalise(answers[side][index], renamers[side], api) for side in (0, 1)]
        results.append(
            {
                "case": case_id,
                "api_key": API_KEYS.get(api),
                "version": version,
                "differences": differences(*pair),
                "kafka": pair[0],
            }
        )
    starts = kafka.seconds + [started + elapsed]
    slowest = sorted(((starts[i + 1] - starts[i], case[0]) for i, case in enumerate(cases)), reverse=True)[:5]
    print("\nslowest cases on Kafka's side:", ["%s %.1fs" % (name, took) for took, name in slowest])
    differing = [r for r in results if r["differences"]]
    known = [r for r in differing if is_known(r["case"])]
    summary = {
        "pairs compared": len(results),
        "differences found": len(differing),
        "differences kept as known": len(known),
        # every pair of a FIXED step differed before its fix (each step's every version did)
        "differences fixed in the broker": sum(1 for r in results if _step_name(r["case"]) in FIXED),
        "unexplained differences": len(differing) - len(known),
        "seconds": round(elapsed, 1),
        "common (api key, version) pairs": sum(high - low + 1 for low, high in common.values()),
    }
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    SUMMARY.write_text(
        json.dumps(
            {"summary": summary, "differences": [{k: r[k] for k in ("case", "differences")} for r in differing]},
            indent=1,
        )
    )
    print("\ndifferential wire test:", json.dumps(summary))
    return {"common": common, "results": results, "summary": summary}


def test_every_api_version_both_serve_is_compared(comparison):
    compared = {(r["api_key"], r["version"]) for r in comparison["results"] if r["version"] is not None}
    common = {(key, version) for key, (low, high) in comparison["common"].items() for version in range(low, high + 1)}
    assert common - compared == set()
    assert len(common) == 196  # what Kafka 2.5.1 serves; ours serves the same


def test_the_corpus_encodes_at_every_version_it_is_sent(comparison):
    errors = [
        r["case"] + ": " + r["kafka"]["<corpus error>"] for r in comparison["results"] if "<corpus error>" in r["kafka"]
    ]
    assert errors == []


def test_the_answers_are_kafkas_but_for_known_differences(comparison):
    unexplained = [
        "%s\n    %s" % (r["case"], "\n    ".join(r["differences"][:6]))
        for r in comparison["results"]
        if r["differences"] and not is_known(r["case"])
    ]
    assert unexplained == [], "%d answers differ from Kafka 2.5.1's:\n%s" % (len(unexplained), "\n".join(unexplained))


def test_fixed_differences_stay_fixed_and_known_ones_still_show(comparison):
    by_name = {}
    for r in comparison["results"]:
        by_name.setdefault(re.sub(r" \[.*\]", "", r["case"]).rsplit("/", 1)[0], []).append(r)
    for name in FIXED:
        assert by_name[name] and not any(r["differences"] for r in by_name[name]), name
    for name in KNOWN:
        cases = by_name.get(name.rsplit("/", 1)[0], [])
        assert any(r["differences"] for r in cases if is_known(r["case"])), "no longer differs: %s" % name


def test_kafka_topics_prints_kafkas_exception_on_an_authorization_failure(clusters, tmp_path):
    """kafka-topics --create as alice, who holds no ACL: Kafka's TopicCommand on Kafka's cluster, our script on ours,
    the same exit code and standard output (the exception's class and message)."""
    properties = tmp_path / "alice.properties"
    properties.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="%s";\n' % PASSWORDS["alice"]
    )
    create = ["--create", "--topic", "dw-denied", "--partitions", "1", "--replication-factor", "1"]
    answers = []
    for cluster, run in zip(
        clusters, (lambda a: run_kafka_class(TOPIC_COMMAND, a), partial(run_our_script, TOPICS_SCRIPT))
    ):
        code, out, _ = run(
            ["--bootstrap-server", cluster.bootstrap_servers, "--command-config", str(properties)] + create
        )
        answers.append((code, out))
    assert answers[0] == (
        1,
        "Error while executing topic command : org.apache.kafka.common.errors.TopicAuthorizationException: "
        "Authorization failed.\n",
    )
    assert answers[1] == answers[0]
