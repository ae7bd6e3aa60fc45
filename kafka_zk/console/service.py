"""ConsoleService: the console's live picture of the cluster on the reactor. Every second ZooKeeper is read on
one worker thread (and at once when a broker registers or goes away); every two seconds the brokers are asked
for groups, lag and listed reassignments on another, and their metrics are scraped on pool threads. Pages
waiting for news are answered when the cluster's state changes or after two seconds."""

import json
import urllib.request

from twisted.internet import defer, task, threads
from twisted.python import log
from twisted.python.threadpool import ThreadPool

from kafka_zk.console import views
from kafka_zk.console.metrics_history import MetricsHistory

REFRESH_SECONDS = 1.0
BROKER_VIEW_SECONDS = 2.0  # groups and lag cost a request per group and partition leader
SCRAPE_SECONDS = 2.0
SCRAPE_TIMEOUT = 1.5
NEWS_WAIT_SECONDS = 2.0


def scrape(url, timeout=SCRAPE_TIMEOUT):
    """The exposition text at ``url`` (blocking: a worker thread calls it)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8", "replace")


class ConsoleService:
    """Owns the latest snapshot, its version, the metrics history and the pages waiting for news."""

    def __init__(
        self, reactor, reader, actions, metrics_urls=(), history=None, scraper=scrape, reader_pool=None, admin_pool=None
    ):
        self.reactor = reactor
        self.reader = reader
        self.actions = actions
        self.metrics_urls = list(metrics_urls)
        self.history = history or MetricsHistory()
        self._scraper = scraper
        self._own_pools = reader_pool is None
        self.reader_pool = reader_pool or ThreadPool(minthreads=1, maxthreads=1, name="console-zookeeper")
        self.admin_pool = admin_pool or reader_pool or ThreadPool(minthreads=1, maxthreads=1, name="console-admin")
        self.version = 0
        self.state = {
            "brokers": [],
            "controller": {"id": None, "epoch": None},
            "topics": [],
            "reassignments": [],
            "error": "not read yet",
        }
        self.groups = []
        self.groups_error = None
        self.listed = {}
        self.listed_error = None
        self.updated_at = None
        self._digest = None
        self._refreshing = False
        self._again = False
        self._asking_brokers = False
        self._waiters = []
        self._loops = []

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self):
        if self._own_pools:
            self.reader_pool.start()
            self.admin_pool.start()
        self._every(REFRESH_SECONDS, self.refresh)
        self._every(BROKER_VIEW_SECONDS, self.ask_brokers)
        if self.metrics_urls:
            self._every(SCRAPE_SECONDS, self.scrape_all)
        watching = self._on_reader(self.reader.watch_brokers, lambda: self.reactor.callFromThread(self.refresh))
        watching.addErrback(log.err, "console: cannot watch /brokers/ids")

    def _every(self, seconds, function):
        loop = task.LoopingCall(function)
        loop.clock = self.reactor
        loop.start(seconds, now=True)
        self._loops.append(loop)

    def stop(self):
        for loop in self._loops:
            if loop.running:
                loop.stop()
        self._loops = []
        for waiter in self._waiters:
            waiter.callback(None)
        self._waiters = []
        if self._own_pools:
            self.reader_pool.stop()
            self.admin_pool.stop()

    def _on_reader(self, function, *args):
        return threads.deferToThreadPool(self.reactor, self.reader_pool, function, *args)

    def _on_admin(self, function, *args):
        return threads.deferToThreadPool(self.reactor, self.admin_pool, function, *args)

    # -- refresh --------------------------------------------------------------------------------

    def refresh(self):
        """Read ZooKeeper once (one read at a time; a request while one runs starts another after it)."""
        if self._refreshing:
            self._again = True
            return
        self._refreshing = True
        reading = self._on_reader(self.reader.cluster_state, self.listed)
        reading.addCallbacks(self._store, self._failed)
        reading.addBoth(self._done)

    def _store(self, state):
        state["error"] = None
        state["reassignment_error"] = self.listed_error
        self.state = state
        self.updated_at = self.reactor.seconds()
        self._publish()

    def _failed(self, failure):
        self.state = dict(self.state, error="%s: %s" % (failure.type.__name__, failure.getErrorMessage()))
        self._publish()

    def _done(self, _):
        self._refreshing = False
        if self._again:
            self._again = False
            self.refresh()

    def _publish(self):
        digest = views.state_digest(self.state)
        if digest != self._digest:
            self._digest = digest
            self.version += 1
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                waiter.callback(None)

    def ask_brokers(self):
        """Groups, lag and the controller's listed reassignments (skipped while the last ask still runs)."""
        if self._asking_brokers:
            return
        self._asking_brokers = True
        asking = self._on_admin(self.reader.broker_view)
        asking.addCallbacks(
            self._store_broker_view,
            lambda failure: self._store_broker_view(
                {
                    "listed": self.listed,
                    "listed_error": None,
                    "groups": None,
                    "groups_error": "%s: %s" % (failure.type.__name__, failure.getErrorMessage()),
                }
            ),
        )
        asking.addBoth(lambda _: setattr(self, "_asking_brokers", False))

    def _store_broker_view(self, view):
        self.listed, self.listed_error = view["listed"], view["listed_error"]
        self.groups_error = view["groups_error"]
        if view["groups"] is not None:
            self.groups = view["groups"]
            self.history.record_lag(
                self.reactor.seconds(),
                {g["group"]: g["total_lag"] for g in self.groups if g.get("total_lag") is not None},
            )

    def snapshot(self):
        return {
            "version": self.version,
            "updated_at": self.updated_at,
            "state": views.page_state(self.state),
            "groups": self.groups,
            "groups_error": self.groups_error,
        }

    def news(self, after, wait=NEWS_WAIT_SECONDS):
        """A Deferred of the snapshot: at once when its version is past ``after``, else when the state changes or
        ``wait`` seconds have passed."""
        if after is None or self.version > after:
            return defer.succeed(self.snapshot())
        waiter = defer.Deferred()
        self._waiters.append(waiter)
        timer = self.reactor.callLater(wait, self._give_up, waiter)
        waiter.addCallback(lambda _: timer.cancel() if timer.active() else None)
        waiter.addCallback(lambda _: self.snapshot())
        return waiter

    def _give_up(self, waiter):
        if waiter in self._waiters:
            self._waiters.remove(waiter)
            waiter.callback(None)

    # -- metrics --------------------------------------------------------------------------------

    def scrape_all(self):
        scrapes = []
        for url in self.metrics_urls:
            fetching = threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), self._scraper, url)
            fetching.addCallbacks(
                lambda text, url=url: self.history.record_scrape(url, self.reactor.seconds(), text),
                lambda failure, url=url: self.history.record_scrape(
                    url, self.reactor.seconds(), error=failure.getErrorMessage()
                ),
            )
            scrapes.append(fetching)
        return defer.DeferredList(scrapes)

    # -- one topic, and actions -------------------------------------------------------------------

    def topic_detail(self, name):
        """A Deferred of the topic's partitions (from the snapshot) and its configs (read now), or None."""
        topic = next((t for t in self.state["topics"] if t["name"] == name), None)
        if topic is None:
            return defer.succeed(None)
        reading = self._on_admin(self.reader.topic_configs, name)

        def combine(result):
            overrides, entries = result
            return dict(topic, overrides=overrides, configs=entries)

        return reading.addCallback(combine)

    def run_action(self, name, fields):
        """A Deferred of the action's outcome; the cluster is read again right after."""
        running = threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), self.actions.run, name, fields)

        def reread(outcome):
            log.msg("console action %s %s: %s" % (name, json.dumps(fields, sort_keys=True), outcome.get("message")))
            self.refresh()
            return outcome

        return running.addCallback(reread)
