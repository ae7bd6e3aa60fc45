"""Metric primitives named as Kafka's MBeans (meters, histograms, timers, gauges) and the registry that holds them.

A component that measures something takes a ``MetricsRegistry`` in its constructor and keeps the meters and
histograms it updates on the hot path as attributes: an update is an integer add or one bucket increment, never
per-record work. Gauges are functions read when the metrics are collected; a component with thousands of values
of one kind (per-partition log sizes, say) registers one ``collector`` that yields them all at collection time.
"""

import bisect
import math

PERCENTILES = (0.5, 0.75, 0.95, 0.98, 0.99, 0.999)  # Yammer's snapshot: 50th ... 999th, as Kafka exports them


class MetricName:
    """An MBean name: ``kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=events``.

    ``group`` is the JMX domain (``kafka.server``), ``tags`` the ordered (key, value) pairs after ``name``."""

    __slots__ = ("group", "type", "name", "tags", "_hash")

    def __init__(self, group, type, name, tags=()):
        self.group = group
        self.type = type
        self.name = name
        self.tags = tuple((key, str(value)) for key, value in (tags.items() if isinstance(tags, dict) else tags))
        self._hash = hash((group, type, name, self.tags))

    def __eq__(self, other):
        return (
            isinstance(other, MetricName)
            and self.group == other.group
            and self.type == other.type
            and self.name == other.name
            and self.tags == other.tags
        )

    def __hash__(self):
        return self._hash

    def mbean(self):
        parts = ["type=%s" % self.type]
        if self.name is not None:
            parts.append("name=%s" % self.name)
        parts.extend("%s=%s" % pair for pair in self.tags)
        return "%s:%s" % (self.group, ",".join(parts))

    def __repr__(self):
        return "MetricName(%s)" % self.mbean()


class Meter:
    """A Yammer meter as scrapers read it: the count of events (rates are the scraper's business)."""

    __slots__ = ("count",)
    kind = "meter"

    def __init__(self):
        self.count = 0

    def mark(self, n=1):
        self.count += n


def _bucket_bounds():
    """Upper bounds of the histogram's buckets: 0, then 8 per power of two from 1/64 to 2**40 (about 9% wide)."""
    bounds = [0.0]
    for exponent in range(-6, 40):
        base = 2.0**exponent
        bounds.extend(base * (1 + step / 8.0) for step in range(8))
    bounds.append(math.inf)
    return tuple(bounds)


BUCKET_BOUNDS = _bucket_bounds()


class Histogram:
    """A histogram with Kafka's percentiles over recent values, in fixed logarithmic buckets (about 9% wide).

    Yammer's histograms decay old values away over about five minutes; this one keeps ``windows`` windows of
    ``window_s`` seconds and forgets the oldest as time passes, so its percentiles describe the last minutes, while
    ``count``, ``sum``, ``min`` and ``max`` cover its whole life. An update costs one bisect and two adds."""

    __slots__ = (
        "count",
        "sum",
        "min",
        "max",
        "_buckets",
        "_windows",
        "_window_s",
        "_window_start",
        "_clock",
        "_windows_kept",
    )
    kind = "histogram"

    def __init__(self, clock=None, window_s=30.0, windows=10):
        self.count = 0
        self.sum = 0.0
        self.min = math.inf
        self.max = -math.inf
        self._clock = clock
        self._window_s = window_s
        self._buckets = [0] * len(BUCKET_BOUNDS)
        self._windows = [self._buckets]
        self._window_start = clock() if clock is not None else 0.0
        self._windows_kept = windows

    def update(self, value):
        self.count += 1
        self.sum += value
        if value < self.min:
            self.min = value
        if value > self.max:
            self.max = value
        self._buckets[bisect.bisect_left(BUCKET_BOUNDS, value)] += 1

    def _roll(self):
        """Start new windows for the time passed since the current one began, forgetting the oldest."""
        if self._clock is None:
            return
        now = self._clock()
        passed = int((now - self._window_start) // self._window_s)
        if passed <= 0:
            return
        for _ in range(min(passed, self._windows_kept)):
            self._buckets = [0] * len(BUCKET_BOUNDS)
            self._windows.append(self._buckets)
        del self._windows[: -self._windows_kept]
        self._window_start += passed * self._window_s

    def recent_buckets(self):
        self._roll()
        return [sum(counts) for counts in zip(*self._windows)] if len(self._windows) > 1 else list(self._buckets)

    def percentiles(self, quantiles=PERCENTILES):
        """{quantile: value} over the recent windows; each value is the upper bound of its bucket, capped by the
        largest value seen (0.0 for every quantile when nothing was recorded recently)."""
        buckets = self.recent_buckets()
        total = sum(buckets)
        if total == 0:
            return {q: 0.0 for q in quantiles}
        result = {}
        for q in quantiles:
            rank, seen = q * total, 0
            for index, count in enumerate(buckets):
                seen += count
                if seen >= rank and count:
                    result[q] = min(BUCKET_BOUNDS[index], self.max)
                    break
        return result

    def mean(self):
        return self.sum / self.count if self.count else 0.0


class Timer(Histogram):
    """Kafka's ``...RateAndTimeMs``: a meter of events and a histogram of how long each took (in ms)."""

    __slots__ = ()
    kind = "timer"


class Gauge:
    """A value read when the metrics are collected: ``read()`` returns a number."""

    __slots__ = ("read",)
    kind = "gauge"

    def __init__(self, read):
        self.read = read


class _NullMetric:
    """What a disabled registry hands out: updates do nothing (callers never check whether metrics are on)."""

    __slots__ = ()
    kind = "null"
    count = 0

    def mark(self, n=1):
        pass

    def update(self, value):
        pass


NULL_METRIC = _NullMetric()


class MetricsRegistry:
    """Every metric of one process, by MetricName, plus collectors that yield many gauges at once.

    ``clock()`` (seconds) ages the histograms' windows; ``enabled=False`` (the broker's ``metrics.enabled``) hands
    out metrics that record nothing and collects nothing, for measuring what metrics cost."""

    def __init__(self, clock=None, enabled=True):
        self.clock = clock
        self.enabled = enabled
        self._metrics = {}
        self._collectors = []
        self._preparations = []

    def _get_or_add(self, name, make):
        if not self.enabled:
            return NULL_METRIC
        metric = self._metrics.get(name)
        if metric is None:
            metric = self._metrics[name] = make()
        return metric

    def meter(self, group, type, name, tags=()):
        return self._get_or_add(MetricName(group, type, name, tags), Meter)

    def histogram(self, group, type, name, tags=()):
        return self._get_or_add(MetricName(group, type, name, tags), lambda: Histogram(self.clock))

    def timer(self, group, type, name, tags=()):
        return self._get_or_add(MetricName(group, type, name, tags), lambda: Timer(self.clock))

    def gauge(self, group, type, name, read, tags=()):
        """Register (or replace) the gauge ``read()``."""
        if not self.enabled:
            return NULL_METRIC
        metric = self._metrics[MetricName(group, type, name, tags)] = Gauge(read)
        return metric

    def remove(self, group, type, name, tags=()):
        self._metrics.pop(MetricName(group, type, name, tags), None)

    def remove_where(self, predicate):
        """Drop every metric whose MetricName ``predicate`` accepts (a deleted topic's, a closed purgatory's)."""
        for name in [name for name in self._metrics if predicate(name)]:
            del self._metrics[name]

    def before_collect(self, prepare):
        """``prepare()`` runs at the start of each collection: to fold recorded values in, or sum derived meters."""
        if self.enabled:
            self._preparations.append(prepare)

    def add_collector(self, collect):
        """``collect()`` yields (MetricName, value) gauge samples at each collection."""
        if not self.enabled:
            return
        self._collectors.append(collect)

    def get(self, group, type, name, tags=()):
        return self._metrics.get(MetricName(group, type, name, tags))

    def samples(self):
        """The collection a scrape renders, as plain values taken now: (MetricName, kind, value) where kind is
        "gauge" or "meter" with a number, or "histogram" or "timer" with (count, {quantile: value}). Collectors'
        samples are gauges. Gauges and collectors that fail are left out."""
        result = []
        if not self.enabled:
            return result
        for prepare in self._preparations:
            prepare()
        append = result.append
        for name, metric in list(self._metrics.items()):
            kind = metric.kind
            if kind == "meter":
                append((name, kind, metric.count))
            elif kind == "gauge":
                try:
                    value = metric.read()
                except Exception:
                    continue
                if value is not None:
                    append((name, kind, value))
            else:
                append((name, kind, (metric.count, metric.percentiles())))
        for collect in self._collectors:
            try:
                result.extend((name, "gauge", value) for name, value in collect())
            except Exception:
                continue
        return result
