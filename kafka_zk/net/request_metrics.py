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
request name's first use. ``kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent`` is the share of
recent time the reactor spent waiting in its poll (0..1, as Kafka's); per listener,
``kafka.server:type=socket-server-metrics,listener=L,networkProcessor=0`` has Kafka's connection-count,
connection-creation-rate/-total and connection-close-rate/-total.
"""

from kafka_zk.common.metrics import MetricName
from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.errors import Errors

GROUP = "kafka.network"
TYPE = "RequestMetrics"
FETCH_KEY = 1
METADATA_KEY = 3
PRODUCE_KEY = 0
_HISTOGRAMS = ("TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ThrottleTimeMs",
               "ResponseQueueTimeMs", "ResponseSendTimeMs", "RequestBytes")
RATE_WINDOW_S = 30.0  # Kafka's metrics.sample.window.ms, with metrics.num.samples 2


class RequestMetrics:
    """The metrics of one request name."""

    __slots__ = ("name", "_registry", "_versions", "_errors", "histograms")

    def __init__(self, registry, name):
        self.name = name
        self._registry = registry
        self._versions = {}
        self._errors = {}
        tags = (("request", name),)
        self.histograms = tuple(registry.histogram(GROUP, TYPE, metric, tags) for metric in _HISTOGRAMS)

    def requests(self, version):
        meter = self._versions.get(version)
        if meter is None:
            meter = self._versions[version] = self._registry.meter(
                GROUP, TYPE, "RequestsPerSec", (("request", self.name), ("version", version)))
        return meter

    def errors(self, code):
        meter = self._errors.get(code)
        if meter is None:
            meter = self._errors[code] = self._registry.meter(
                GROUP, TYPE, "ErrorsPerSec", (("request", self.name), ("error", Errors.from_code(code).name)))
        return meter


class RequestTiming:
    """One request's time points (seconds, the listener's clock) on its way through the connection."""

    __slots__ = ("api_key", "version", "follower", "size", "start", "dequeued", "local_done", "response_done",
                 "throttle_ms")

    def __init__(self, api_key, version, follower, size, start, dequeued):
        self.api_key = api_key
        self.version = version
        self.follower = follower
        self.size = size
        self.start = start
        self.dequeued = dequeued
        self.local_done = dequeued
        self.response_done = None
        self.throttle_ms = 0


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

    def _metrics(self, api_key):
        metrics = self._by_key.get(api_key)
        if metrics is None:
            spec = API_SPECS.get(api_key)
            metrics = self._by_key[api_key] = RequestMetrics(self.registry, spec.name if spec else str(api_key))
        return metrics

    def request_names(self):
        return sorted(metrics.name for metrics in self._by_key.values())

    def completed(self, timing, body):
        """The response (``body``, None for none) is ready: note the time, its throttle time and its errors."""
        timing.response_done = self.clock.seconds()
        if body is None:
            return
        timing.throttle_ms = body.get("throttle_time_ms", 0) or 0
        metrics = self._metrics(timing.api_key)
        for code, count in error_counts(timing.api_key, body).items():
            metrics.errors(code).count += count

    def sent(self, timing, dequeued, end):
        """The response left (``dequeued`` its turn came, ``end`` written): update the request's metrics."""
        start, response_done = timing.start, timing.response_done
        if response_done is None:  # the connection's response came without completing (e.g. a closed client)
            response_done = dequeued
        values = ((end - start) * 1000.0, (timing.dequeued - start) * 1000.0,
                  (timing.local_done - timing.dequeued) * 1000.0, (response_done - timing.local_done) * 1000.0,
                  timing.throttle_ms, (dequeued - response_done) * 1000.0, (end - dequeued) * 1000.0, timing.size)
        metrics = self._metrics(timing.api_key)
        _record(metrics, timing.version, values)
        if timing.api_key == FETCH_KEY:
            if timing.follower:
                if self._fetch_follower is None:
                    self._fetch_follower = RequestMetrics(self.registry, "FetchFollower")
                _record(self._fetch_follower, timing.version, values)
            else:
                if self._fetch_consumer is None:
                    self._fetch_consumer = RequestMetrics(self.registry, "FetchConsumer")
                _record(self._fetch_consumer, timing.version, values)

    def listener(self, name):
        """The connection metrics of listener ``name`` (one per name)."""
        connections = self._listeners.get(name)
        if connections is None:
            connections = self._listeners[name] = ListenerConnections(self.registry, self.clock, name)
        return connections


def _record(metrics, version, values):
    metrics.requests(version).count += 1
    for histogram, value in zip(metrics.histograms, values):
        histogram.update(value if value > 0 else 0.0)


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


class WindowedRate:
    """Kafka's Rate over ``samples`` windows of ``window_s`` seconds: events per second, recently."""

    __slots__ = ("total", "_window_s", "_samples", "_windows")

    def __init__(self, window_s=RATE_WINDOW_S, samples=2):
        self.total = 0
        self._window_s = window_s
        self._samples = samples
        self._windows = []  # [start, count], oldest first

    def record(self, now, n=1):
        self.total += n
        windows = self._windows
        if not windows or now >= windows[-1][0] + self._window_s:
            windows.append([now, 0])
            del windows[:-self._samples]
        windows[-1][1] += n

    def measure(self, now):
        window_s, samples = self._window_s, self._samples
        recent = [(start, count) for start, count in self._windows if start > now - samples * window_s]
        if not recent:
            return 0.0
        elapsed = now - recent[0][0]
        full_windows = int(elapsed // window_s)
        if full_windows < samples - 1:  # Kafka's Rate.windowSize: at least samples - 1 whole windows
            elapsed += (samples - 1 - full_windows) * window_s
        return sum(count for _, count in recent) / elapsed if elapsed > 0 else 0.0


class ListenerConnections:
    """One listener's connections as Kafka's selector counts them (its single "network processor" 0)."""

    def __init__(self, registry, clock, listener):
        self.clock = clock
        self.count = 0
        self.created = WindowedRate()
        self.closed = WindowedRate()
        tags = (("listener", listener), ("networkProcessor", "0"))
        registry.add_collector(lambda: self._samples(tags))

    def opened(self):
        self.count += 1
        self.created.record(self.clock.seconds())

    def lost(self):
        self.count -= 1
        self.closed.record(self.clock.seconds())

    def _samples(self, tags):
        now = self.clock.seconds()
        for attribute, value in (("connection-count", self.count),
                                 ("connection-creation-rate", self.created.measure(now)),
                                 ("connection-creation-total", self.created.total),
                                 ("connection-close-rate", self.closed.measure(now)),
                                 ("connection-close-total", self.closed.total)):
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
