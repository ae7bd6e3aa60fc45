"""The broker's Prometheus endpoint: ``GET /metrics`` on the HTTP listener ``metrics.prometheus.listener`` names.

A scrape takes the registry's samples on the reactor thread (plain reads, no formatting) and renders the text in
a worker thread, so a broker with tens of thousands of partitions answers without holding the reactor for the
formatting."""

import logging
from urllib.parse import urlsplit

from twisted.application import internet
from twisted.internet import threads
from twisted.python.threadpool import ThreadPool
from twisted.web import resource, server

from kafka_zk.server.metrics import prometheus

log = logging.getLogger(__name__)


def parse_listener(value):
    """(host, port) of ``http://host:port`` (or ``host:port``); host "" means every interface."""
    text = value.strip()
    parts = urlsplit(text if "://" in text else "http://" + text)
    if parts.scheme != "http" or parts.port is None:
        raise ValueError("metrics.prometheus.listener must be http://host:port, not %r" % value)
    return parts.hostname or "", parts.port


class MetricsResource(resource.Resource):
    """``/metrics``: the registry's samples in Prometheus text format."""

    isLeaf = True

    def __init__(self, registry, reactor, threadpool, extra_labels=None):
        super().__init__()
        self.registry = registry
        self.reactor = reactor
        self.threadpool = threadpool
        self.extra_labels = extra_labels

    def render_GET(self, request):
        if request.postpath not in ([b"metrics"], [b""], []) and request.path != b"/metrics":
            request.setResponseCode(404)
            return b"not found: try /metrics\n"
        samples = self.registry.samples()
        rendered = threads.deferToThreadPool(
            self.reactor, self.threadpool, prometheus.render, samples, self.extra_labels
        )

        def write(body):
            request.setHeader(b"Content-Type", prometheus.CONTENT_TYPE.encode())
            request.write(body)
            request.finish()

        def failed(failure):
            log.error("rendering metrics failed: %s", failure.getTraceback())
            request.setResponseCode(500)
            request.finish()

        rendered.addCallbacks(write, failed)
        return server.NOT_DONE_YET


class PrometheusEndpoint(internet.TCPServer):
    """The HTTP listener as a child service of the broker; its worker thread renders scrapes."""

    def __init__(self, listener, registry, reactor):
        host, port = parse_listener(listener)
        self.threadpool = ThreadPool(minthreads=0, maxthreads=1, name="prometheus-render")
        root = resource.Resource()
        metrics = MetricsResource(registry, reactor, self.threadpool)
        root.putChild(b"metrics", metrics)
        root.putChild(b"", metrics)
        site = server.Site(root)
        site.noisy = False
        super().__init__(port, site, interface=host)
        self.setName("prometheus endpoint")

    def startService(self):
        self.threadpool.start()
        super().startService()

    def stopService(self):
        stopped = super().stopService()
        self.threadpool.stop()
        return stopped

    @property
    def bound_port(self):
        return self._port.getHost().port
