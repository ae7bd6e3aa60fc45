"""The console's chart data: series kept from the brokers' Prometheus scrapes (rates of counters, gauges and
percentiles as they are) and from the console's own consumer-group lag, a few minutes of points each (pure)."""

from collections import deque
from urllib.parse import urlsplit

from prometheus_client.parser import text_string_to_metric_families

# (chart id, title, unit, sample name, labels a sample must carry, how: "rate" of a counter or "value" of a gauge)
CHARTS = (
    ("messages_in", "Messages in", "msg/s", "kafka_server_brokertopicmetrics_messagesin_total", {}, "rate"),
    ("bytes_in", "Bytes in", "B/s", "kafka_server_brokertopicmetrics_bytesin_total", {}, "rate"),
    ("bytes_out", "Bytes out", "B/s", "kafka_server_brokertopicmetrics_bytesout_total", {}, "rate"),
    (
        "produce_p99",
        "Produce request time, p99",
        "ms",
        "kafka_network_requestmetrics_totaltimems",
        {"request": "Produce", "quantile": "0.99"},
        "value",
    ),
    ("isr_shrinks", "ISR shrinks", "/s", "kafka_server_replicamanager_isrshrinks_total", {}, "rate"),
    (
        "under_replicated",
        "Under-replicated partitions",
        "",
        "kafka_server_replicamanager_underreplicatedpartitions",
        {},
        "value",
    ),
    ("replica_lag", "Replica fetcher max lag", "messages", "kafka_server_replicafetchermanager_maxlag", {}, "value"),
)
CONSUMER_LAG = ("consumer_lag", "Consumer group lag", "messages")
# Per-topic meters have a topic label; the broker's all-topics meter has none: take it when it is there.
PER_TOPIC_LABEL = "topic"


def source_label(url):
    """A scrape URL's short name in the charts: its host:port."""
    return urlsplit(url).netloc or url


def chart_values(text):
    """{chart id: number} of one scrape's exposition text; a chart whose metric the scrape lacks is left out."""
    found = {}
    wanted = {chart[3]: chart for chart in CHARTS}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            chart = wanted.get(sample.name)
            if chart is None or any(sample.labels.get(k) != v for k, v in chart[4].items()):
                continue
            chart_id = chart[0]
            all_topics = PER_TOPIC_LABEL not in sample.labels
            total, had_all = found.get(chart_id, (0.0, False))
            if chart[5] == "rate" and had_all:
                continue
            if chart[5] == "rate" and all_topics:
                found[chart_id] = (sample.value, True)
            elif chart_id == "produce_p99" or chart_id == "replica_lag":
                found[chart_id] = (max(total, sample.value), had_all)
            else:
                found[chart_id] = (total + sample.value, had_all)
    return {chart_id: value for chart_id, (value, _) in found.items()}


class MetricsHistory:
    """Points per (chart, source) over the last ``keep`` samples; counters become per-second rates between two
    scrapes of the same source (a counter that went down, a restarted broker, starts over)."""

    def __init__(self, keep=150):
        self.keep = keep
        self._series = {}
        self._last_counters = {}
        self.scrapes = {}

    def _add(self, chart_id, source, at, value):
        series = self._series.get((chart_id, source))
        if series is None:
            series = self._series[(chart_id, source)] = deque(maxlen=self.keep)
        series.append((round(at, 3), value))

    def record_scrape(self, url, at, text=None, error=None):
        """One scrape of ``url`` at time ``at`` (seconds): its text, or the error that kept it from answering."""
        source = source_label(url)
        if error is not None:
            self.scrapes[url] = {"url": url, "ok": False, "error": str(error), "at": at}
            self._last_counters = {key: v for key, v in self._last_counters.items() if key[1] != source}
            return
        try:
            values = chart_values(text)
        except ValueError as exc:  # not the exposition format
            self.record_scrape(url, at, error="unparsable scrape: %s" % exc)
            return
        self.scrapes[url] = {"url": url, "ok": True, "error": None, "at": at, "series": len(values)}
        kinds = {chart[0]: chart[5] for chart in CHARTS}
        for chart_id, value in values.items():
            if kinds[chart_id] == "value":
                self._add(chart_id, source, at, value)
                continue
            previous = self._last_counters.get((chart_id, source))
            self._last_counters[(chart_id, source)] = (at, value)
            if previous is not None and at > previous[0] and value >= previous[1]:
                self._add(chart_id, source, at, (value - previous[1]) / (at - previous[0]))

    def record_lag(self, at, lags):
        """The console's own view of consumer lag: {group: total lag} at time ``at``."""
        for group, lag in lags.items():
            self._add(CONSUMER_LAG[0], group, at, lag)

    def charts(self):
        """Every chart with its series ([[t, value], ...] per source); a chart nothing fed has no series."""
        result = []
        for chart_id, title, unit in [chart[:3] for chart in CHARTS] + [CONSUMER_LAG]:
            series = [
                {"label": source, "points": [list(point) for point in points]}
                for (chart, source), points in sorted(self._series.items())
                if chart == chart_id
            ]
            result.append({"id": chart_id, "title": title, "unit": unit, "series": series})
        return result

    def to_json(self):
        return {"charts": self.charts(), "scrapes": [self.scrapes[url] for url in sorted(self.scrapes)]}
