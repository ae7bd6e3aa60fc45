"""Runs blocking KafkaZkClient calls on threads and hands watch events back to the reactor."""

from twisted.internet import threads


class ZkBridge:
    def __init__(self, client, reactor):
        self.client = client
        self.reactor = reactor

    def call(self, method, *args, **kwargs):
        """Deferred result of client.<method>(*args) run on the reactor's thread pool."""
        return threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(),
                                         getattr(self.client, method), *args, **kwargs)

    def on_reactor(self, handler):
        """Wrap handler so that, called on a kazoo thread, it runs on the reactor thread instead."""
        def post(*args, **kwargs):
            self.reactor.callFromThread(handler, *args, **kwargs)
        return post
