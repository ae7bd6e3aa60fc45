"""The cost of one request in instructions: a broker's request path driven in-process, counted under callgrind.

One Python process builds one broker the way kafka_zk/server/kafka_server.py does (logs in a temp dir, configs,
replica manager, coordinators, the API handlers bound by ``request_dispatcher``, the listener's
KafkaServerFactory and its protocol), with a ZooKeeper that answers from a table (tests/fake_zk.py: the broker calls
the real typed ZooKeeper methods) and a twisted task.Clock, so nothing sleeps. The partitions become leaders as in a
cluster: the controller's LeaderAndIsr and UpdateMetadata arrive as frames on the listener's protocol. Every request
then goes in as frame bytes (dataReceived on a protocol over a StringTransport) and its response comes out as bytes.

What differs from a broker on a socket: no epoll, no recv/send (the transport is a StringTransport, so a Fetch
response's records, when they are a file region, are read into memory instead of going out with sendfile), and the
clock does not move during the loop.

Cases (instructions per request):
  produce          Produce v8, one record, acks=1, to partition 0 (replicas [0]).
  fetch            a consumer's Fetch v11 (replica_id -1, max_wait 500 ms, min_bytes 1) of the one record just
                   produced: measured as (Produce + Fetch) pairs minus the produce case.
  follower-fetch   Fetch v11 from replica 1 on partition 1 (replicas [0, 1]) in a fetch session, as a follower's
                   fetcher sends it (one full fetch opens the session, then incremental ones), reading the record
                   just produced there: (Produce + follower Fetch) pairs minus Produce alone on partition 1.
                   The consumer's fetches are sessionless (session id 0, epoch -1), as librdkafka 1.x sends them.
  parked-fetch     a consumer Fetch at the log end (max_wait 500 ms, min_bytes 1) parks in the purgatory, then one
                   Produce completes it: the pair minus the produce case (the parked Fetch's own cost, parking and
                   completion included).

Counting: each loop runs in its own process under ``valgrind --tool=callgrind`` at two sizes after the same warm-up;
(Ir(N2) - Ir(N1)) / (N2 - N1) is what one more iteration costs, start-up and warm-up cancelling out.

  python bench/request_cost.py                       # every case at this checkout
  python bench/request_cost.py --baseline 304bbb9    # and the same at a git ref, with the ratio
  python bench/request_cost.py --profile produce     # cProfile, top 30 functions by tottime (no valgrind)
  python bench/request_cost.py --cpu --baseline 304bbb9   # CPU microseconds instead of instructions (no valgrind)

--cpu times the same loops in this process's CPU time (best of 5 rounds of 2,000 iterations, in a process of their
own per tree): seconds move with the machine's load and instructions do not, but the compiled twins
(kafka_zk/compiled.py) run about as many instructions as the interpreter and take less time for them.
"""

import argparse
import contextlib
import cProfile
import os
import pstats
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # after PYTHONPATH: a baseline's tree there comes first
    sys.path.append(ROOT)

SIZE = struct.Struct(">i")
TOPIC = "request-cost"
LEADER_PARTITION, REPLICATED_PARTITION = 0, 1
BROKER_ID, FOLLOWER_ID = 0, 1
LEADER_EPOCH = 1
PRODUCE, FETCH, LEADER_AND_ISR, UPDATE_METADATA = 0, 1, 4, 6
PRODUCE_VERSION, FETCH_VERSION = 8, 11  # librdkafka 1.x and Java 2.5 send these
NOW_MS = 1_764_000_000_000

# A reported case: the loop counted, and the loop whose per-iteration figure is subtracted from it (None: none).
CASES = {
    "produce": ("produce", None),
    "fetch": ("produce+fetch", "produce"),
    "follower-fetch": ("produce+follower-fetch", "produce-replicated"),
    "parked-fetch": ("parked-fetch+produce", "produce"),
}
LOOPS = ("produce", "produce-replicated", "produce+fetch", "produce+follower-fetch", "parked-fetch+produce")


# where a template's fetch_offset, session id and session epoch go
OFFSET_SENTINEL, SESSION_ID_SENTINEL, SESSION_EPOCH_SENTINEL = 0x0123456789ABCDEF, 0x7A6B5C4D, 0x6C5D4E3F
CORRELATION_ID_AT = 4 + 4  # in a frame: size, api_key, api_version, then the correlation id
INT32, INT64 = struct.Struct(">i"), struct.Struct(">q")


class FrameTemplate:
    """A request frame encoded once; each request patches its correlation id (and a fetch its offset, session id
    and session epoch) in a copy, so the loop spends next to nothing on the client side of the request."""

    def __init__(self, api_key, version, client_id, body):
        from kafka_zk.protocol.headers import encode_request

        payload = encode_request(api_key, version, 0, client_id, body)
        self.frame = SIZE.pack(len(payload)) + payload
        self.at = {}
        for name, form, sentinel in (
            ("offset", INT64, OFFSET_SENTINEL),
            ("session_id", INT32, SESSION_ID_SENTINEL),
            ("session_epoch", INT32, SESSION_EPOCH_SENTINEL),
        ):
            packed = form.pack(sentinel)
            if self.frame.count(packed) > 1:
                raise ValueError("the %s sentinel occurs twice in the template" % name)
            if packed in self.frame:
                self.at[name] = (form, self.frame.find(packed))

    def build(self, correlation_id, **values):
        frame = bytearray(self.frame)
        INT32.pack_into(frame, CORRELATION_ID_AT, correlation_id)
        for name, value in values.items():
            form, at = self.at[name]
            form.pack_into(frame, at, value)
        return bytes(frame)


class Connection:
    """One client connection to the broker's listener: frames in through dataReceived, response frames out."""

    def __init__(self, factory, client_id):
        from twisted.internet.address import IPv4Address
        from twisted.internet.testing import StringTransport

        self.client_id = client_id
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", 40000))
        self.protocol = factory.buildProtocol(self.transport.getPeer())
        self.protocol.makeConnection(self.transport)
        self.correlation_id = 0
        self.held = []  # frames already read, returned by the next frames()

    def send(self, api_key, version, body):
        self.send_frame(FrameTemplate(api_key, version, self.client_id, body))

    def send_frame(self, template, **values):
        self.correlation_id += 1
        self.protocol.dataReceived(template.build(self.correlation_id, **values))

    def frames(self):
        """The response frames written since the last call, as payload bytes."""
        data = self.transport.value()
        self.transport.clear()
        frames, pos = self.held, 0
        self.held = []
        while pos < len(data):
            (size,) = SIZE.unpack_from(data, pos)
            frames.append(data[pos + 4 : pos + 4 + size])
            pos += 4 + size
        return frames


class InlineThreadPool:
    """Runs what the broker hands its reactor's thread pool (checkpoint writes) at once, on this thread."""

    def callInThreadWithCallback(self, on_result, function, *args, **kwargs):
        try:
            result = function(*args, **kwargs)
        except BaseException:
            from twisted.python import failure

            on_result(False, failure.Failure())
        else:
            on_result(True, result)


def make_clock():
    """A task.Clock that also has what the broker asks of its reactor besides time: a thread pool, and
    callFromThread (run on the clock's next advance)."""
    from twisted.internet import task

    class ReactorClock(task.Clock):
        running = True

        def getThreadPool(self):
            return InlineThreadPool()

        def callFromThread(self, function, *args, **kwargs):
            self.callLater(0, function, *args, **kwargs)

    return ReactorClock()


class InProcessBroker:
    """Broker 0 assembled as KafkaServer.start() assembles it, minus the ZooKeeper session, the TCP ports, the
    controller and the periodic tasks; the topic's two partitions led by it."""

    def __init__(self, log_dir):
        from kafka_zk.server import apis
        from kafka_zk.server.config.kafka_config import KafkaConfig
        from kafka_zk.server.kafka_server import KafkaServer
        from kafka_zk.server.listeners import BrokerListeners
        from tests.fake_zk import FakeZk

        self.clock = make_clock()
        self.clock.advance(NOW_MS / 1000.0)
        config = KafkaConfig(
            {
                "zookeeper.connect": "127.0.0.1:1",
                "broker.id": str(BROKER_ID),
                "log.dirs": log_dir,
                "listeners": "PLAINTEXT://127.0.0.1:0",
            }
        )
        server = self.server = KafkaServer(config, self.clock)
        server.zk = FakeZk(
            {
                "get_entity_configs": lambda entity_type, names: {},
                "get_entity_config": lambda entity_type, name: {},
                "get_children": lambda path, *watch: [],  # an empty cluster: no quotas, credentials, overrides
            }
        )
        server.cluster_id = "request-cost-cluster"
        server.broker_epoch = 1
        self._run(server._load_logs())
        self._run(server._load_configs())
        server._start_replicas()
        server._start_coordinators()
        self._run(server._start_authorizer())
        self._run(server._start_delegation_tokens())
        server.dispatcher = server.request_dispatcher()
        listeners = BrokerListeners(
            config,
            server.dynamic_config,
            self.clock,
            server.dispatcher,
            config["socket.request.max.bytes"],
            server.sasl.authenticator_factory,
            socket_metrics=server.hot_path_metrics.socket,
        )
        server.hot_path_metrics.start([server.produce_quotas, server.fetch_quotas])
        server.dispatcher.serve(apis.CONTROLLER_APIS)
        self.factory = listeners.ports["PLAINTEXT"].factory
        self.controller = Connection(self.factory, "controller-%d" % BROKER_ID)
        self._become_leader()

    def _run(self, deferred):
        from twisted.internet import defer

        if not isinstance(deferred, defer.Deferred):
            return deferred
        self.clock.advance(0)
        results = []
        deferred.addBoth(results.append)
        if not results:
            raise RuntimeError("a start-up step did not complete with the ZooKeeper table: %r" % deferred)
        if hasattr(results[0], "raiseException"):
            results[0].raiseException()
        return results[0]

    def _partition_states(self):
        return [
            {
                "partition_index": partition,
                "controller_epoch": 1,
                "leader": BROKER_ID,
                "leader_epoch": LEADER_EPOCH,
                "isr": replicas,
                "zk_version": 0,
                "replicas": replicas,
                "adding_replicas": [],
                "removing_replicas": [],
                "is_new": True,
                "offline_replicas": [],
            }
            for partition, replicas in ((LEADER_PARTITION, [BROKER_ID]), (REPLICATED_PARTITION, [BROKER_ID, 1]))
        ]

    def _become_leader(self):
        """What the controller sends a new leader: LeaderAndIsr v4, then UpdateMetadata v6 for both brokers."""
        from kafka_zk.protocol.headers import decode_response

        states = self._partition_states()
        self.controller.send(
            LEADER_AND_ISR,
            4,
            {
                "controller_id": BROKER_ID,
                "controller_epoch": 1,
                "broker_epoch": 1,
                "topic_states": [{"topic_name": TOPIC, "partition_states": states}],
                "live_leaders": [{"broker_id": BROKER_ID, "host_name": "127.0.0.1", "port": 9092}],
            },
        )
        self.controller.send(
            UPDATE_METADATA,
            6,
            {
                "controller_id": BROKER_ID,
                "controller_epoch": 1,
                "broker_epoch": 1,
                "topic_states": [{"topic_name": TOPIC, "partition_states": states}],
                "live_brokers": [
                    {
                        "id": broker,
                        "endpoints": [
                            {
                                "port": 9092 + broker,
                                "host": "127.0.0.1",
                                "listener": "PLAINTEXT",
                                "security_protocol": 0,
                            }
                        ],
                        "rack": None,
                    }
                    for broker in (BROKER_ID, FOLLOWER_ID)
                ],
            },
        )
        self.clock.advance(0)
        frames = self.controller.frames()
        answers = [
            decode_response(key, version, frame)[1]
            for (key, version), frame in zip([(LEADER_AND_ISR, 4), (UPDATE_METADATA, 6)], frames)
        ]
        if len(answers) != 2 or any(answer["error_code"] for answer in answers):
            raise RuntimeError("the broker did not become leader: %r" % answers)
        errors = [p["error_code"] for p in answers[0]["partition_errors"]]
        if any(errors):
            raise RuntimeError("LeaderAndIsr partition errors: %r" % answers[0])


RECORD_KEY, RECORD_VALUE = b"key", b"value-0123456789"


def produce_body(partition):
    """One record in a v2 batch; the same bytes each time (the broker assigns the offset)."""
    from kafka_zk.record.records import encode_batch

    batch = encode_batch([(RECORD_KEY, RECORD_VALUE, (), NOW_MS)], first_timestamp=NOW_MS)
    return {
        "transactional_id": None,
        "acks": 1,
        "timeout_ms": 30000,
        "topics": [{"name": TOPIC, "partitions": [{"partition_index": partition, "records": batch}]}],
    }


def fetch_body(partition, replica_id=-1, session_id=0, session_epoch=-1, offset=OFFSET_SENTINEL):
    return {
        "replica_id": replica_id,
        "max_wait_ms": 500,
        "min_bytes": 1,
        "max_bytes": 52428800,
        "isolation_level": 0,
        "session_id": session_id,
        "session_epoch": session_epoch,
        "topics": [
            {
                "topic": TOPIC,
                "partitions": [
                    {
                        "partition": partition,
                        "current_leader_epoch": LEADER_EPOCH,
                        "fetch_offset": offset,
                        "log_start_offset": -1,
                        "partition_max_bytes": 1048576,
                    }
                ],
            }
        ],
        "forgotten_topics_data": [],
        "rack_id": "",
    }


class RequestLoop:
    """The clients of one loop: a producer, a consumer and the follower, each on its own connection. step() runs one
    iteration and returns the raw response frames per connection; check=True decodes them and checks them."""

    def __init__(self, broker, loop):
        if loop not in LOOPS:
            raise ValueError("unknown loop %r (one of %s)" % (loop, ", ".join(LOOPS)))
        self.broker = broker
        self.loop = loop
        self.clock = broker.clock
        self.producer = Connection(broker.factory, "rdkafka")
        self.consumer = Connection(broker.factory, "consumer-1")
        self.follower = Connection(broker.factory, "broker-%d-fetcher-0" % FOLLOWER_ID)
        self.partition = REPLICATED_PARTITION if loop in ("produce-replicated", "produce+follower-fetch") else 0
        self.produce = FrameTemplate(PRODUCE, PRODUCE_VERSION, self.producer.client_id, produce_body(self.partition))
        self.consumer_fetch = FrameTemplate(FETCH, FETCH_VERSION, self.consumer.client_id, fetch_body(self.partition))
        self.follower_fetch = FrameTemplate(
            FETCH,
            FETCH_VERSION,
            self.follower.client_id,
            fetch_body(self.partition, FOLLOWER_ID, SESSION_ID_SENTINEL, SESSION_EPOCH_SENTINEL),
        )
        self.follower_session = None  # [session id, next epoch] once the leader has created the session
        self.fetching = {"produce+fetch": self.consumer, "parked-fetch+produce": self.consumer}.get(
            loop, self.follower if loop == "produce+follower-fetch" else None
        )  # the connection whose responses the loop reads besides the producer's
        self.next_offset = 0  # the offset of the next record produced
        self.fetched = []  # (offset, value) of every record a fetch returned, when checked

    def step(self, check=False):
        loop, offset = self.loop, self.next_offset
        if loop == "parked-fetch+produce":
            self.consumer.send_frame(self.consumer_fetch, offset=offset)
            self.clock.advance(0)
            if check and self.consumer.frames():
                raise AssertionError("the fetch at the log end was answered before any record came")
        self.producer.send_frame(self.produce)
        if loop == "produce+fetch":
            self.consumer.send_frame(self.consumer_fetch, offset=offset)
        elif loop == "produce+follower-fetch":
            self._follower_fetch(offset)
        self.clock.advance(0)  # whatever the handlers left for the reactor's next turn
        self.next_offset += 1
        produced = self.producer.frames()
        fetched = self.fetching.frames() if self.fetching is not None else []
        if check:
            if self.fetching is None:
                fetched = self.consumer.frames() + self.follower.frames()  # none expected
            self._check(offset, produced, fetched)

    def _follower_fetch(self, offset):
        """As a follower's fetcher: a full fetch that opens a fetch session, then incremental fetches in it."""
        session = self.follower_session
        if session is None:
            from kafka_zk.protocol.headers import decode_response

            self.follower.send_frame(self.follower_fetch, session_id=0, session_epoch=0, offset=offset)
            self.clock.advance(0)
            (frame,) = self.follower.frames()
            answer = decode_response(FETCH, FETCH_VERSION, frame)[1]
            if not answer["session_id"]:
                raise AssertionError("the leader opened no fetch session for the follower: %r" % answer)
            self.follower_session = [answer["session_id"], 1]
            self.follower.held.append(frame)  # for step's check, as any other response
            return
        self.follower.send_frame(self.follower_fetch, session_id=session[0], session_epoch=session[1], offset=offset)
        session[1] += 1

    def _check(self, offset, produced, fetched):
        from kafka_zk.protocol.headers import decode_response
        from kafka_zk.record.records import iter_records

        if len(produced) != 1:
            raise AssertionError("%d Produce responses, not 1" % len(produced))
        answer = decode_response(PRODUCE, PRODUCE_VERSION, produced[0])[1]
        result = answer["responses"][0]["partitions"][0]
        if result["error_code"] != 0 or result["base_offset"] != offset:
            raise AssertionError("Produce answered %r, expected offset %d" % (result, offset))
        if self.loop.startswith("produce") and "+" not in self.loop:
            if fetched:
                raise AssertionError("a fetch response when none was sent")
            return
        if len(fetched) != 1:
            raise AssertionError("%d Fetch responses, not 1" % len(fetched))
        answer = decode_response(FETCH, FETCH_VERSION, fetched[0])[1]
        partition = answer["responses"][0]["partitions"][0]
        if answer["error_code"] != 0 or partition["error_code"] != 0:
            raise AssertionError("Fetch answered %r" % answer)
        records = [(r.offset, r.value) for r in iter_records(partition["records"] or b"")]
        if records != [(offset, RECORD_VALUE)]:
            raise AssertionError("Fetch at %d returned %r" % (offset, records))
        self.fetched.extend(records)


CPU_ROUNDS, CPU_ROUND = 5, 2000


def cpu_per_iteration(loop, warmup):
    """The least CPU time one iteration of ``loop`` took over CPU_ROUNDS rounds, in microseconds."""
    log_dir = tempfile.mkdtemp(prefix="request-cost-")
    try:
        requests = RequestLoop(InProcessBroker(log_dir), loop)
        for _ in range(warmup):
            requests.step()
        best = float("inf")
        for _ in range(CPU_ROUNDS):
            started = time.process_time()
            for _ in range(CPU_ROUND):
                requests.step()
            best = min(best, (time.process_time() - started) / CPU_ROUND * 1e6)
        return best
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


def time_tree(tree, loops, warmup, interpreted=False):
    """({loop: CPU microseconds per iteration}, compiled twins loaded) for the code at ``tree``, each loop in a
    process of its own, one at a time (a second process beside it would slow it)."""
    per_loop, twins = {}, 0
    for loop in loops:
        env = dict(os.environ, PYTHONPATH=tests_package_path(tree), PYTHONHASHSEED="0")
        if interpreted:
            env["KAFKA_ZK_INTERPRETED"] = "1"
        command = [sys.executable, os.path.join(ROOT, "bench", "request_cost.py"), "--time-loop", loop]
        completed = subprocess.run(
            command + ["--warmup", str(warmup)], env=env, cwd=tree, capture_output=True, text=True
        )
        if completed.returncode != 0:
            raise RuntimeError("%s failed:\n%s" % (" ".join(command), completed.stderr[-3000:]))
        per_loop[loop] = float(completed.stdout.split()[-1])
        found = re.search(r"^compiled twins loaded: (\d+)$", completed.stderr, re.MULTILINE)
        twins = max(twins, int(found.group(1)) if found else 0)
    return per_loop, twins


def run_loop(loop, count, warmup, check=False):
    """Start a broker in a temp dir, run ``warmup`` then ``count`` iterations of ``loop``."""
    log_dir = tempfile.mkdtemp(prefix="request-cost-")
    try:
        broker = InProcessBroker(log_dir)
        requests = RequestLoop(broker, loop)
        for _ in range(warmup + count):
            requests.step(check)
        return requests
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


# -- counting under callgrind ------------------------------------------------------------------------------------


def callgrind_total(out_file):
    """The Ir total of a callgrind out file ('totals:' line, else 'summary:')."""
    summary = None
    with open(out_file) as lines:
        for line in lines:
            if line.startswith("totals:"):
                return int(line.split()[1])
            if line.startswith("summary:"):
                summary = int(line.split()[1])
    if summary is None:
        raise ValueError("no totals or summary line in %s" % out_file)
    return summary


def per_iteration(ir_small, ir_large, small, large):
    return (ir_large - ir_small) / (large - small)


def count_instructions(tree, loop, count, warmup, work_dir, interpreted=False):
    """(Ir, compiled twins loaded) of one process running ``loop`` ``count`` times after ``warmup``, with ``tree``
    on PYTHONPATH (every module interpreted when ``interpreted``)."""
    out_file = os.path.join(work_dir, "callgrind.%s.%d.out" % (loop.replace("+", "_"), count))
    env = dict(os.environ, PYTHONPATH=tests_package_path(tree), PYTHONHASHSEED="0")
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=%s" % out_file,
        sys.executable,
        os.path.join(ROOT, "bench", "request_cost.py"),
        "--run-loop",
        loop,
        "--count",
        str(count),
        "--warmup",
        str(warmup),
    ]
    if interpreted:
        env["KAFKA_ZK_INTERPRETED"] = "1"
    completed = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(command), completed.stderr[-3000:]))
    if "kafka_zk from %s" % os.path.join(tree, "kafka_zk") not in completed.stderr:
        raise RuntimeError(
            "the counted process did not import kafka_zk from %s:\n%s" % (tree, completed.stderr[-3000:])
        )
    twins = re.search(r"^compiled twins loaded: (\d+)$", completed.stderr, re.MULTILINE)
    return callgrind_total(out_file), int(twins.group(1)) if twins else 0


def measure_tree(tree, loops, sizes, warmup, jobs, interpreted=False):
    """({loop: instructions per iteration}, the most compiled twins a counted process loaded) for the code at
    ``tree``."""
    small, large = sizes
    work_dir = tempfile.mkdtemp(prefix="request-cost-callgrind-")
    try:
        runs = [(loop, n) for loop in loops for n in (small, large)]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            counted = dict(
                zip(
                    runs,
                    pool.map(lambda run: count_instructions(tree, run[0], run[1], warmup, work_dir, interpreted), runs),
                )
            )
        totals = {run: total for run, (total, _twins) in counted.items()}
        twins = max(twins for _total, twins in counted.values())
        return {loop: per_iteration(totals[loop, small], totals[loop, large], small, large) for loop in loops}, twins
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def case_figures(per_loop, cases):
    figures = {}
    for case in cases:
        loop, minus = CASES[case]
        figures[case] = per_loop[loop] - (per_loop[minus] if minus else 0)
    return figures


@contextlib.contextmanager
def worktree_at(ref):
    """A detached worktree of ``ref`` in a temp dir, removed afterwards."""
    parent = tempfile.mkdtemp(prefix="request-cost-baseline-")
    path = os.path.join(parent, "tree")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, ref], check=True, capture_output=True)
    try:
        # the harness comes from this checkout; only the broker's code is the ref's
        yield path
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", path], capture_output=True)
        shutil.rmtree(parent, ignore_errors=True)


def tests_package_path(tree):
    """The ref's tree for kafka_zk, this checkout's tests/fake_zk.py beside it (the harness's ZooKeeper table)."""
    return tree + os.pathsep + ROOT if tree != ROOT else ROOT


def print_table(figures, pair_loops, baseline=None, ref=None, unit="instr/request", decimals=0):
    header = "%-16s %14s" % ("case", unit)
    if baseline is not None:
        header += " %16s %8s" % ("baseline " + ref[:10], "ratio")
    print(header)
    for case, value in figures.items():
        line = "%-16s %14.*f" % (case, decimals, value)
        if baseline is not None:
            line += " %16.*f %8.2f" % (decimals, baseline[case], value / baseline[case])
        print(line)
    print()
    print("per loop iteration (before subtraction):")
    for loop, value in pair_loops.items():
        print("  %-24s %14.*f" % (loop, decimals, value))


# -- profiling ---------------------------------------------------------------------------------------------------


def profile_rows(stats, top):
    """(own share, cumulative share, calls per iteration, name) of the ``top`` functions by own time; shares
    of the whole loop's own time."""
    entries = stats.stats  # {(file, line, name): (primitive calls, calls, tottime, cumtime, callers)}
    total = sum(entry[2] for entry in entries.values()) or 1.0
    rows = []
    for (path, line, name), (_primitive, calls, own, cumulative, _callers) in entries.items():
        where = (
            name
            if path == "~"
            else "%s:%d(%s)" % (os.path.relpath(path, ROOT) if path.startswith(ROOT) else path, line, name)
        )
        rows.append((own / total, cumulative / total, calls, where))
    rows.sort(reverse=True)
    return rows[:top]


def module_rows(stats, top):
    """(own share, module) summed over each module's functions (the codecs generated per schema and version are
    '<schema codecs>', C built-ins '<built-ins>')."""
    entries = stats.stats
    total = sum(entry[2] for entry in entries.values()) or 1.0
    shares = {}
    for (path, _line, _name), entry in entries.items():
        if path == "~":
            module = "<built-ins>"
        elif path.startswith("<"):
            module = "<schema codecs>"
        else:
            module = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
        shares[module] = shares.get(module, 0.0) + entry[2] / total
    return sorted(((share, module) for module, share in shares.items()), reverse=True)[:top]


def profile(case, count, warmup, top=30):
    """``case``'s loop under cProfile, timed in CPU seconds of this process (another process on the core does
    not count), and its top functions by own time."""
    loop = CASES[case][0]
    log_dir = tempfile.mkdtemp(prefix="request-cost-")
    try:
        broker = InProcessBroker(log_dir)
        requests = RequestLoop(broker, loop)
        for _ in range(warmup):
            requests.step()
        profiler = cProfile.Profile(time.process_time)
        started = time.process_time()
        profiler.enable()
        for _ in range(count):
            requests.step()
        profiler.disable()
        elapsed = time.process_time() - started
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    print(
        "%s: loop %s, %d iterations, %.1f µs of CPU each under cProfile; own and cumulative time as shares of "
        "the loop (the harness's own functions are bench/request_cost.py's)"
        % (case, loop, count, elapsed / count * 1e6)
    )
    print("%6s %6s %8s  %s" % ("own", "cum", "calls/it", "function"))
    stats = pstats.Stats(profiler)
    for own, cumulative, calls, where in profile_rows(stats, top):
        print("%5.1f%% %5.1f%% %8.2f  %s" % (own * 100, cumulative * 100, calls / count, where))
    print()
    print("own time by module:")
    for share, module in module_rows(stats, 20):
        print("%5.1f%%  %s" % (share * 100, module))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated, of: %s" % ", ".join(CASES))
    parser.add_argument("--sizes", default="200,1200", help="the two loop lengths N1,N2")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2, help="valgrind processes at once")
    parser.add_argument("--baseline", metavar="REF", help="also measure this git ref and print the ratio")
    parser.add_argument("--profile", metavar="CASE", help="run CASE's loop under cProfile instead of valgrind")
    parser.add_argument("--run-loop", metavar="LOOP", help=argparse.SUPPRESS)  # one counted process
    parser.add_argument("--time-loop", metavar="LOOP", help=argparse.SUPPRESS)  # one timed process
    parser.add_argument("--cpu", action="store_true", help="CPU microseconds per request instead of instructions")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument(
        "--interpreted", action="store_true", help="count with every module interpreted (KAFKA_ZK_INTERPRETED=1)"
    )
    args = parser.parse_args(argv)
    if args.run_loop or args.time_loop:
        import kafka_zk

        print("kafka_zk from %s" % os.path.dirname(kafka_zk.__file__), file=sys.stderr)
        if args.run_loop:
            run_loop(args.run_loop, args.count, args.warmup)
        else:
            print("%.2f" % cpu_per_iteration(args.time_loop, args.warmup))
        compiled = getattr(kafka_zk, "_compiled", None)  # a tree from before the compiled twins has none
        print("compiled twins loaded: %d" % (len(compiled.compiled_modules()) if compiled else 0), file=sys.stderr)
        return
    if args.profile:
        profile(args.profile, args.count, args.warmup)
        return
    cases = [case for case in args.cases.split(",") if case]
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        parser.error("unknown case(s) %s" % ", ".join(unknown))
    sizes = tuple(int(n) for n in args.sizes.split(","))
    loops = sorted({loop for case in cases for loop in CASES[case] if loop}, key=LOOPS.index)
    if args.cpu:
        measure = lambda tree, interpreted=False: time_tree(tree, loops, args.warmup, interpreted)  # noqa: E731
    else:
        measure = lambda tree, interpreted=False: measure_tree(  # noqa: E731
            tree, loops, sizes, args.warmup, args.jobs, interpreted
        )
    per_loop, twins = measure(ROOT, args.interpreted)
    figures = case_figures(per_loop, cases)
    baseline = None
    if args.baseline:
        with worktree_at(args.baseline) as tree:
            baseline = case_figures(measure(tree)[0], cases)
    if args.cpu:
        print(
            "CPU microseconds per request (this process's CPU time, best of %d rounds of %d after %d warm-up); "
            "fetch, follower-fetch and parked-fetch are their loop minus its Produce-alone loop"
            % (CPU_ROUNDS, CPU_ROUND, args.warmup)
        )
    else:
        print(
            "instructions per request (callgrind Ir, (Ir(N2) - Ir(N1)) / (N2 - N1), N = %d, %d after %d warm-up); "
            "fetch, follower-fetch and parked-fetch are their loop minus its Produce-alone loop" % (*sizes, args.warmup)
        )
    print(
        "this checkout: %s"
        % (
            "every module interpreted (KAFKA_ZK_INTERPRETED=1)"
            if args.interpreted
            else "%d compiled twins loaded (kafka_zk/compiled.py; 0: interpreted, no build)" % twins
        )
    )
    if args.cpu:
        print_table(figures, per_loop, baseline, args.baseline, unit="CPU us/request", decimals=1)
    else:
        print_table(figures, per_loop, baseline, args.baseline)


if __name__ == "__main__":
    main()
