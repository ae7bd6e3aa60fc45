"""Prometheus text exposition of a MetricsRegistry, under the names the JMX exporter's standard Kafka rules give.

Kafka operators scrape brokers through the Prometheus JMX exporter with its ``kafka-2_0_0.yml`` rules, so their
dashboards and alerts expect its names: a meter ``kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,
topic=t`` is ``kafka_server_brokertopicmetrics_messagesin_total{topic="t"}``, a gauge ``kafka.server:type=
ReplicaManager,name=UnderReplicatedPartitions`` is ``kafka_server_replicamanager_underreplicatedpartitions``, a
histogram or timer is ``<name>{quantile="0.99"}`` plus ``<name>_count``. Kafka's own (non-Yammer) metrics, which
have a type and attributes but no name, get the exporter's default naming:
``kafka.server:type=socket-server-metrics,listener=L`` attribute ``connection-count`` is
``kafka_server_socket_server_metrics_connection_count{listener="L"}``; the quota rule makes ``kafka.server:
type=Produce,user=u,client-id=c`` attribute ``throttle-time`` into ``kafka_server_quota_throttle_time{resource=
"Produce",user="u",clientId="c"}``.
"""

import functools
import re

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.openmetrics.exposition import escape_label_name, escape_metric_name
from prometheus_client.utils import floatToGoString

from kafka_zk.common.metrics import PERCENTILES

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_UNSAFE = re.compile(r"[^a-zA-Z0-9:_]+")
_QUOTA_TYPES = {"Produce", "Fetch", "Request"}


@functools.lru_cache(maxsize=8192)  # names of groups, types, attributes and tags: a few hundred
def _safe(text):
    return _UNSAFE.sub("_", text).strip("_") if text else text


@functools.lru_cache(maxsize=1 << 18)  # a scrape of 10,000 partitions names 40,000 log gauges: once each
def prometheus_name(metric_name, kind):
    """(family name, sample name, labels) that the JMX exporter's Kafka rules give ``metric_name`` of ``kind``
    (gauge, meter, histogram, timer). A meter's sample is the family name with ``_total``. The labels dict is
    shared between calls: callers copy it before changing it."""
    group, type_, name, tags = metric_name.group, metric_name.type, metric_name.name, metric_name.tags
    labels = dict(tags)
    if name is None:  # a Kafka (non-Yammer) metric: type and attribute, other tags as labels
        attribute = labels.pop("attribute")
        if group == "kafka.server" and type_ in _QUOTA_TYPES:
            labels = {
                "resource": type_,
                **{("clientId" if key == "client-id" else key): value for key, value in labels.items()},
            }
            family = "kafka_server_quota_%s" % _safe(attribute)
        else:
            family = "%s_%s_%s" % (_safe(group), _safe(type_), _safe(attribute))
        return family.lower(), family.lower(), labels
    labels = {_safe(key): value for key, value in tags}  # the exporter's safeName: broker-id is broker_id
    if group.startswith("kafka.coordinator."):
        family = "kafka_coordinator_%s_%s_%s" % (group.split(".", 2)[2], type_, name)
        return _safe(family).lower(), _safe(family).lower(), labels
    if kind == "meter" and "PerSec" in name:
        family = "%s_%s_%s" % (group.replace(".", "_"), type_, name[: name.index("PerSec")])
        family = _safe(family).lower()
        return family, family + "_total", labels
    family = _safe("%s_%s_%s" % (group.replace(".", "_"), type_, name)).lower()
    return family, family, labels


class _SnapshotCollector:
    """Yields prometheus_client families for samples already taken (see MetricsRegistry.samples)."""

    def __init__(self, samples, extra_labels):
        self.samples = samples
        self.extra_labels = extra_labels

    def collect(self):
        families = {}
        extra = self.extra_labels
        for metric_name, kind, value in self.samples:
            family_name, sample_name, labels = prometheus_name(metric_name, kind)
            if extra:
                labels = {**extra, **labels}
            if kind == "meter":
                family = families.get(family_name)
                if family is None:
                    family = families[family_name] = Metric(family_name, metric_name.mbean(), "counter")
                family.add_sample(sample_name, labels, value)
            elif kind == "gauge":
                family = families.get(family_name)
                if family is None:
                    family = families[family_name] = Metric(family_name, metric_name.mbean(), "gauge")
                family.add_sample(sample_name, labels, float(value))
            else:
                count, percentiles = value
                family = families.get(family_name)
                if family is None:
                    family = families[family_name] = Metric(family_name, metric_name.mbean(), "summary")
                for quantile, estimate in percentiles.items():
                    family.add_sample(sample_name, {**labels, "quantile": _quantile_label(quantile)}, estimate)
                family.add_sample(sample_name + "_count", labels, count)
        return families.values()


def _quantile_label(quantile):
    """As the exporter writes Yammer's ``99thPercentile``: "0.99"; ``50thPercentile``: "0.50"; "0.999"."""
    text = repr(quantile)
    return text if len(text) > 3 else text + "0"


def render(samples, extra_labels=None, process=True):
    """The exposition text (bytes) of ``samples`` (MetricsRegistry.samples()), with the process's CPU, memory and
    descriptor metrics (process_cpu_seconds_total, process_resident_memory_bytes, process_open_fds, ...) as the
    exporter's JVM agent gives them. Runs off the reactor thread: it only reads the samples and /proc.

    The text is what prometheus_client's generate_latest writes for _SnapshotCollector's families, byte for byte
    (tests/test_metrics_core holds it), written from the start of each sample's line kept per metric: a broker
    with 10,000 partitions has 40,000 per-partition gauges, and formatting each through the library's Metric and
    sample_line at every scrape cost most of a second."""
    text = _render_samples(samples, extra_labels)
    if process:
        registry = CollectorRegistry(auto_describe=False)
        ProcessCollector(registry=registry)
        text += generate_latest(registry)
    return text


_TYPES = {"meter": "counter", "gauge": "gauge", "histogram": "summary", "timer": "summary"}
_LINE_STARTS = {}  # (MetricName, kind, extra labels) -> _LineStart
_LINE_STARTS_KEPT = 1 << 19


class _LineStart:
    """What generate_latest writes for one metric, but its values: the family's name and type, and the start of
    each sample line (``name{labels} ``); the family's HELP and TYPE lines come from its first metric."""

    __slots__ = ("family", "type", "starts")

    def __init__(self, metric_name, kind, extra_labels):
        family, sample_name, labels = prometheus_name(metric_name, kind)
        if extra_labels:
            labels = {**extra_labels, **labels}
        self.family = family
        self.type = _TYPES[kind]
        if self.type == "summary":
            self.starts = {
                quantile: _sample_start(sample_name, {**labels, "quantile": _quantile_label(quantile)})
                for quantile in PERCENTILES
            }
            self.starts["count"] = _sample_start(sample_name + "_count", labels)
        else:
            self.starts = _sample_start(sample_name, labels)

    def header(self, metric_name):
        name = _metric_name(self.family + "_total" if self.type == "counter" else self.family)
        documentation = metric_name.mbean().replace("\\", r"\\").replace("\n", r"\n")
        return "# HELP %s %s\n# TYPE %s %s\n" % (name, documentation, name, self.type)


# a few hundred distinct metric and label names: escaped once each
_metric_name = functools.lru_cache(maxsize=4096)(escape_metric_name)
_label_name = functools.lru_cache(maxsize=4096)(escape_label_name)


def _sample_start(sample_name, labels):
    if not labels:
        return _metric_name(sample_name) + " "
    return "%s{%s} " % (
        _metric_name(sample_name),
        ",".join(
            '%s="%s"' % (_label_name(key), str(value).replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\""))
            for key, value in sorted(labels.items())
        ),
    )


def _render_samples(samples, extra_labels):
    extra_key = tuple(sorted(extra_labels.items())) if extra_labels else ()
    line_starts = _LINE_STARTS
    if len(line_starts) > _LINE_STARTS_KEPT:  # metrics of deleted topics and partitions pile up: start over
        line_starts.clear()
    families = {}
    for metric_name, kind, value in samples:
        key = (metric_name, kind, extra_key)
        start = line_starts.get(key)
        if start is None:
            start = line_starts[key] = _LineStart(metric_name, kind, extra_labels)
        lines = families.get(start.family)
        if lines is None:
            lines = families[start.family] = [start.header(metric_name)]
        if kind == "gauge" or kind == "meter":
            lines.append(start.starts + floatToGoString(value) + "\n")
        else:
            count, percentiles = value
            starts = start.starts
            for quantile, estimate in percentiles.items():
                lines.append(starts[quantile] + floatToGoString(estimate) + "\n")
            lines.append(starts["count"] + floatToGoString(count) + "\n")
    return "".join(line for lines in families.values() for line in lines).encode("utf-8")
