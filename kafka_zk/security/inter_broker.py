"""The broker's SASL login on its own outgoing connections (controller channel, replica fetchers, transaction
markers, controlled shutdown): the ``authenticate(protocol)`` hook net.broker_client.BrokerConnection runs after
connecting and before the connection carries requests."""

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.security.sasl_client import exchange


def sasl_authenticate_hook(login, clock):
    """``login``: a sasl_client.ClientSasl. The hook's Deferred fires with the session lifetime (ms, 0: none) or
    fails with SaslClientError (or the connection's error)."""

    @defer.inlineCallbacks
    def authenticate(protocol):
        steps = exchange(login, lambda: milliseconds(clock), protocol.transport.getPeer().host)
        request = next(steps)
        while True:
            api_key, version, body = request
            response = yield protocol.request(api_key, version, body)
            try:
                request = steps.send(response)
            except StopIteration as done:
                return done.value or 0

    return authenticate
