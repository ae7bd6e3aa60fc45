"""The listener's metrics as Kafka names them: RequestMetrics per request, SocketServer, socket-server-metrics.

``kafka.network:type=RequestMetrics,request=<Kafka's API name>``: RequestsPerSec (tag version), ErrorsPerSec (tag
error, from the response's error codes as Kafka's errorCounts), and histograms in ms of where each request's time
went, with Kafka's time points mapped onto one reactor:

- RequestQueueTimeMs: from the moment the reactor read the bytes that completed the request to the moment its
  handler starts (the requests read before it in the same read are handled first);
- LocalTimeMs: the handler's own run;
- RemoteTimeMs: from the handler's return to the response being ready (acks=all waiting for followers, a fetch
  long-polling in the purgatory);
- ResponseQueueTimeMs: from ready to its turn to be sent (responses leave in request order);
- ResponseSendTimeMs: encoding and handing it to the socket;
- ThrottleTimeMs: the throttle time the response announces; TotalTimeMs: all of it; RequestBytes: the body's size.

A Fetch counts under Fetch and under FetchConsumer or FetchFollower, as in Kafka. Request metrics are made on a
request name's first use. Every request and error is counted: requests as they arrive, in one flat list of counts
that the RequestsPerSec meters take up before each collection; errors from each response. As Yammer's histograms
keep a sample of what they are given, the histograms' percentiles come from a sample: of each request type, one in
TIME_EVERY and any that comes TIME_AT_LEAST_EVERY_S after the last timed one is timed, its timing folded in later in
batches (see RequestMetrics), so that the produce path pays a percent or two, not ten.
``kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent`` is the share of
recent time the reactor spent waiting in its poll (0..1, as Kafka's); per listener,
``kafka.server:type=socket-server-metrics,listener=L,networkProcessor=0`` has Kafka's connection-count,
connection-creation-rate/-total and connection-close-rate/-total.
"""

import functools
from bisect import bisect_left
from collections import Counter

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import BUCKET_BOUNDS, MetricName
from kafka_zk.common.sampled_stats import SampledRate
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.errors import Errors

GROUP = "kafka.network"
TYPE = "RequestMetrics"
FETCH_KEY = 1
METADATA_KEY = 3
PRODUCE_KEY = 0
_HISTOGRAMS = (
    "TotalTimeMs",
    "RequestQueueTimeMs",
    "LocalTimeMs",
    "RemoteTimeMs",
    "ThrottleTimeMs",
    "ResponseQueueTimeMs",
    "ResponseSendTimeMs",
    "RequestBytes",
)
RATE_WINDOW_S = 30.0  # Kafka's metrics.sample.window.ms, with metrics.num.samples 2
RATE_WINDOW_MS, RATE_SAMPLES = int(RATE_WINDOW_S * 1000), 2


class RequestMetrics:
    """The metrics of one request name. On the hot path a timed request's timing is appended to ``pending``;
    ``fold`` folds the timings into the eight histograms FLUSH_EVERY requests at a time and before every
    collection, in C loops (map, bisect, Counter, sum, max) over a sample of them: eight Histogram.update calls per
    request would cost the produce path several percent."""

    __slots__ = ("name", "_registry", "_versions", "_errors", "histograms", "pending", "_flushes")

    def __init__(self, registry, name):
        self.name = name
        self._registry = registry
        self._versions = {}
        self._errors = {}
        tags = (("request", name),)
        self.histograms = tuple(registry.histogram(GROUP, TYPE, metric, tags) for metric in _HISTOGRAMS)
        self.pending = []
        self._flushes = 0

    def requests(self, version):
        meter = self._versions.get(version)
        if meter is None:
            meter = self._versions[version] = self._registry.meter(
                GROUP, TYPE, "RequestsPerSec", (("request", self.name), ("version", version))
            )
        return meter

    def errors(self, code):
        meter = self._errors.get(code)
        if meter is None:
            meter = self._errors[code] = self._registry.meter(
                GROUP, TYPE, "ErrorsPerSec", (("request", self.name), ("error", Errors.from_code(code).name))
            )
        return meter

    def add(self, timing):
        """One timed request's timing, folded in later."""
        pending = self.pending
        pending.append(timing)
        if len(pending) >= FLUSH_EVERY:
            self.fold()

    def fold(self):
        rows = self.pending
        if rows:
            self.pending = []
            self._fold_rows(rows)

    def settle(self, counts, base):
        """Before a collection: the version meters take their counts from ``counts[base + version]``, and every
        request counts in the histograms, timed or not (the timed ones' values stand for all)."""
        self.fold()
        requests = 0
        for version in range(VERSION_SLOTS):
            count = counts[base + version]
            if count:
                self.requests(version).count = count
                requests += count
        for histogram in self.histograms:
            histogram.count = requests

    def _fold_rows(self, rows):
        # As Yammer's histograms keep a sample of the values they are given, the percentiles come from a sample
        # of at most SAMPLED rows of each batch, weighted by the rows it stands for; the counts are exact.
        count = len(rows)
        step = count // SAMPLED
        sample = rows[(self._flushes % step) :: step] if step > 1 else rows
        weight = count / len(sample)
        total, queue, local, remote, throttle, response_queue, send, size = self.histograms
        _fold(total, count, weight, [(row[END] - row[START]) * 1000.0 for row in sample])
        _fold(queue, count, weight, [(row[DEQUEUED] - row[START]) * 1000.0 for row in sample])
        _fold(local, count, weight, [(row[LOCAL_DONE] - row[DEQUEUED]) * 1000.0 for row in sample])
        _fold(remote, count, weight, [(row[RESPONSE_DONE] - row[LOCAL_DONE]) * 1000.0 for row in sample])
        _fold(throttle, count, weight, [row[THROTTLE] for row in sample])
        _fold(response_queue, count, weight, [(row[SEND_START] - row[RESPONSE_DONE]) * 1000.0 for row in sample])
        _fold(send, count, weight, [(row[END] - row[SEND_START]) * 1000.0 for row in sample])
        _fold(size, count, weight, [row[SIZE] for row in sample])
        self._flushes += 1


_bucket_of = functools.partial(bisect_left, BUCKET_BOUNDS)


def _fold(histogram, count, weight, values):
    """What Histogram.update does for ``count`` values of which ``values`` is a sample standing for ``weight``
    values each (into the histogram's current window)."""
    histogram.count += count
    histogram.sum += sum(values) * weight
    largest, smallest = max(values), min(values)
    if largest > histogram.max:
        histogram.max = largest
    if smallest < histogram.min:
        histogram.min = smallest
    buckets = histogram._buckets
    if weight == 1:
        for index, hits in Counter(map(_bucket_of, values)).items():
            buckets[index] += hits
    else:
        for index, hits in Counter(map(_bucket_of, values)).items():
            buckets[index] += hits * weight


# A request's timing as the connection carries it: a list, cheaper to make than an object.
TIME_EVERY = 64  # of each request type, the first and every 64th request after it is timed ...
TIME_AT_LEAST_EVERY_S = 0.05  # ... and any that comes this long after the last timed one (rare types: all)
VERSION_SLOTS = 16  # counts are kept per (request slot, version); every API's versions fit below it
assert max(spec.max_version for spec in API_SPECS.values()) < VERSION_SLOTS
FETCH_CONSUMER_SLOT, FETCH_FOLLOWER_SLOT = 256, 257  # where a Fetch also counts, after the 256 API keys

# The connection stamps RESPONSE_DONE and leaves the response's BODY when it is ready (see KafkaServerProtocol).
(API_KEY, VERSION, FOLLOWER, SIZE, START, DEQUEUED, LOCAL_DONE, RESPONSE_DONE, THROTTLE, SEND_START, END, BODY) = range(
    12
)
FLUSH_EVERY = 512  # requests of one name between flushes
SAMPLED = 64  # rows of a flush whose values go into the percentiles


class SocketServerMetrics:
    """Everything the listeners measure, in one broker's registry. ``clock.seconds()`` times requests."""

    def __init__(self, registry, clock):
        self.registry = registry
        self.clock = clock
        self.enabled = registry.enabled
        self._by_key = {}
        self._fetch_consumer = None
        self._fetch_follower = None
        self._listeners = {}
        self._counts = [0] * ((FETCH_FOLLOWER_SLOT + 1) * VERSION_SLOTS)  # by slot * VERSION_SLOTS + version
        self._next_timed = [0.0] * 256  # when a request of each api key is timed at the latest
        self._produce_none = 0  # Produce partitions answered without an error since the last collection
        self._fetch_none = 0  # and Fetch responses and partitions
        registry.before_collect(self.flush)  # counts and timings not folded yet go into the metrics first

    def _metrics(self, api_key):
        metrics = self._by_key.get(api_key)
        if metrics is None:
            spec = API_SPECS.get(api_key)
            metrics = self._by_key[api_key] = RequestMetrics(self.registry, spec.name if spec else str(api_key))
        return metrics

    def _fetch_metrics(self, follower):
        if follower:
            if self._fetch_follower is None:
                self._fetch_follower = RequestMetrics(self.registry, "FetchFollower")
            return self._fetch_follower
        if self._fetch_consumer is None:
            self._fetch_consumer = RequestMetrics(self.registry, "FetchConsumer")
        return self._fetch_consumer

    def request_names(self):
        return sorted(metrics.name for metrics in self._by_key.values())

    def flush(self):
        """Fold every pending request count and timing into its metrics."""
        if self._produce_none:
            self._produce_metrics().errors(Errors.NONE).count += self._produce_none
            self._produce_none = 0
        if self._fetch_none:
            (self._by_key.get(FETCH_KEY) or self._metrics(FETCH_KEY)).errors(Errors.NONE).count += self._fetch_none
            self._fetch_none = 0
        counts = self._counts
        for slot in range(FETCH_FOLLOWER_SLOT + 1):
            base = slot * VERSION_SLOTS
            if any(counts[base : base + VERSION_SLOTS]):
                if slot >= FETCH_CONSUMER_SLOT:
                    metrics = self._fetch_metrics(slot == FETCH_FOLLOWER_SLOT)
                else:
                    metrics = self._by_key.get(slot) or self._metrics(slot)
                metrics.settle(counts, base)

    def arrived(self, header, body, now):
        """Count a request as it arrives; True when it is one to time. As Yammer's histograms keep a sample of the
        values they are given, the percentiles come from a sample."""
        api_key, version = header.api_key, header.api_version
        counts = self._counts
        index = api_key * VERSION_SLOTS + version
        counts[index] = seen = counts[index] + 1
        if api_key == FETCH_KEY:
            slot = FETCH_FOLLOWER_SLOT if body["replica_id"] >= 0 else FETCH_CONSUMER_SLOT
            counts[slot * VERSION_SLOTS + version] += 1
        if seen % TIME_EVERY == 1 or now >= self._next_timed[api_key]:
            self._next_timed[api_key] = now + TIME_AT_LEAST_EVERY_S
            return True
        return False

    def answered(self, api_key, body):
        """A request's response (``body``, None for none): count its errors. A Produce's partitions without an
        error, the produce path's most frequent count, add to a plain count the meter takes up at collection; so do
        a Fetch response's and partitions' (error_counts() says what a Fetch counts)."""
        if body is None:
            return
        if api_key == FETCH_KEY:
            none = 0
            code = body.get("error_code", 0)
            if code:
                self._fetch_error(code)
            else:
                none = 1
            for topic in body["responses"]:
                for partition in topic["partitions"]:
                    code = partition["error_code"]
                    if code:
                        self._fetch_error(code)
                    else:
                        none += 1
            self._fetch_none += none
            return
        if api_key == PRODUCE_KEY:
            for topic in body["responses"]:
                for partition in topic["partitions"]:
                    if partition["error_code"]:
                        self._produce_metrics().errors(partition["error_code"]).count += 1
                    else:
                        self._produce_none += 1
            return
        for code, count in error_counts(api_key, body).items():
            (self._by_key.get(api_key) or self._metrics(api_key)).errors(code).count += count

    def _fetch_error(self, code):
        (self._by_key.get(FETCH_KEY) or self._metrics(FETCH_KEY)).errors(code).count += 1

    def _produce_metrics(self):
        return self._by_key.get(PRODUCE_KEY) or self._metrics(PRODUCE_KEY)

    @staticmethod
    def timing(api_key, version, follower, size, start, dequeued, local_done):
        """A request's timing: read (``start``), handled from ``dequeued`` to ``local_done`` (seconds)."""
        return [api_key, version, follower, size, start, dequeued, local_done, None, 0, None, None, None]

    def sent(self, timing, send_start, end):
        """A timed request's response left (its turn came at ``send_start``, written by ``end``): count its
        errors (those of the response's BODY, which is let go) and its throttle time, and keep its timing for the
        histograms."""
        timing[SEND_START] = send_start
        timing[END] = end
        api_key = timing[API_KEY]
        metrics = self._by_key.get(api_key) or self._metrics(api_key)
        body = timing[BODY]
        if body is not None:
            timing[BODY] = None
            timing[THROTTLE] = body.get("throttle_time_ms") or 0
            self.answered(api_key, body)
        elif timing[RESPONSE_DONE] is None:  # no response came (a failed handler): its wait counts as remote
            timing[RESPONSE_DONE] = send_start
        metrics.add(timing)
        if api_key == FETCH_KEY:
            self._fetch_metrics(timing[FOLLOWER]).add(timing)

    def listener(self, name):
        """The connection metrics of listener ``name`` (one per name)."""
        connections = self._listeners.get(name)
        if connections is None:
            connections = self._listeners[name] = ListenerConnections(self.registry, self.clock, name)
        return connections


def error_counts(api_key, body):
    """{error code: count} as Kafka's AbstractResponse.errorCounts: a Produce response's partitions, a Fetch
    response's top-level error and partitions, a Metadata response's topics, and every error_code of others."""
    counts = {}
    if api_key == PRODUCE_KEY:
        for topic in body["responses"]:
            for partition in topic["partitions"]:
                code = partition["error_code"]
                counts[code] = counts.get(code, 0) + 1
    elif api_key == FETCH_KEY:
        code = body.get("error_code", 0)
        counts[code] = 1
        for topic in body["responses"]:
            for partition in topic["partitions"]:
                code = partition["error_code"]
                counts[code] = counts.get(code, 0) + 1
    elif api_key == METADATA_KEY:
        for topic in body.get("topics") or ():
            code = topic.get("error_code", 0)
            counts[code] = counts.get(code, 0) + 1
    else:
        _count_error_codes(body, counts)
    return counts


def _count_error_codes(value, counts):
    if isinstance(value, dict):
        code = value.get("error_code")
        if code is not None:
            counts[code] = counts.get(code, 0) + 1
        for item in value.values():
            if isinstance(item, (list, dict)):
                _count_error_codes(item, counts)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (list, dict)):
                _count_error_codes(item, counts)


class ListenerConnections:
    """One listener's connections as Kafka's selector counts them (its single "network processor" 0)."""

    def __init__(self, registry, clock, listener):
        self.clock = clock
        self.count = 0
        self.created = SampledRate(RATE_SAMPLES, RATE_WINDOW_MS)
        self.closed = SampledRate(RATE_SAMPLES, RATE_WINDOW_MS)
        self.created_total = self.closed_total = 0
        tags = (("listener", listener), ("networkProcessor", "0"))
        registry.add_collector(lambda: self._samples(tags))

    def opened(self):
        self.count += 1
        self.created_total += 1
        self.created.record(1, milliseconds(self.clock))

    def lost(self):
        self.count -= 1
        self.closed_total += 1
        self.closed.record(1, milliseconds(self.clock))

    def _samples(self, tags):
        now_ms = milliseconds(self.clock)
        for attribute, value in (
            ("connection-count", self.count),
            ("connection-creation-rate", self.created.measure(now_ms)),
            ("connection-creation-total", self.created_total),
            ("connection-close-rate", self.closed.measure(now_ms)),
            ("connection-close-total", self.closed_total),
        ):
            yield MetricName("kafka.server", "socket-server-metrics", None, tags + (("attribute", attribute),)), value


class ReactorIdleMeter:
    """The share of recent time a reactor spent waiting for I/O in its poll: Kafka's
    NetworkProcessorAvgIdlePercent for a broker whose one reactor is its only network thread.

    Installed on the reactor instance by wrapping its poller (epoll and poll reactors have one); the two clock
    reads per reactor iteration are all it costs. Reports over the last one or two windows of ``window_s``."""

    def __init__(self, clock_seconds, window_s=RATE_WINDOW_S):
        self.seconds = clock_seconds
        self.window_s = window_s
        now = clock_seconds()
        self._previous = (now, 0.0, now)  # (start, idle seconds, end) of the last finished window
        self._start = now
        self._idle = 0.0

    def install(self, reactor):
        """Wrap ``reactor``'s poller; False (nothing installed) for a reactor without one."""
        poller = getattr(reactor, "_poller", None)
        if poller is None or not hasattr(poller, "poll"):
            return False
        reactor._poller = _TimedPoller(poller, self)
        return True

    def waited(self, began, ended):
        self._idle += ended - began
        if ended - self._start >= self.window_s:
            self._previous = (self._start, self._idle, ended)
            self._start = ended
            self._idle = 0.0

    def idle_share(self):
        now = self.seconds()
        previous_start, previous_idle, previous_end = self._previous
        start = previous_start if previous_end > previous_start else self._start
        elapsed = now - start
        if elapsed <= 0:
            return 1.0
        return max(0.0, min(1.0, (previous_idle + self._idle) / elapsed))

    def register(self, registry):
        registry.gauge(GROUP, "SocketServer", "NetworkProcessorAvgIdlePercent", self.idle_share)


class _TimedPoller:
    """A reactor's epoll / poll object whose poll() tells the idle meter how long it waited."""

    __slots__ = ("_poller", "_meter", "_seconds")

    def __init__(self, poller, meter):
        self._poller = poller
        self._meter = meter
        self._seconds = meter.seconds

    def poll(self, *args):
        seconds = self._seconds
        began = seconds()
        try:
            return self._poller.poll(*args)
        finally:
            self._meter.waited(began, seconds())

    def __getattr__(self, name):
        return getattr(self._poller, name)
