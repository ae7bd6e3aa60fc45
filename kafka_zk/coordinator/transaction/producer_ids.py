"""Producer ids for InitProducerId, handed out from blocks reserved in /latest_producer_id_block."""

from twisted.internet import defer


class ProducerIdManager:
    def __init__(self, zk, broker_id):
        self.zk = zk
        self.broker_id = broker_id
        self._next = 0
        self._end = -1
        self._lock = defer.DeferredLock()

    @defer.inlineCallbacks
    def next_id(self):
        yield self._lock.acquire()
        try:
            if self._next > self._end:
                start, end = yield self.zk.allocate_producer_id_block(self.broker_id)
                self._next, self._end = start, end
            producer_id = self._next
            self._next += 1
            return producer_id
        finally:
            self._lock.release()
