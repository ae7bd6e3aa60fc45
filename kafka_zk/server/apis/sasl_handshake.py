"""SaslHandshake (key 17) on a connection that is not authenticating: ILLEGAL_SASL_STATE, as Kafka's KafkaApis.

The handshake itself is the listener's authenticator's (security.sasl_server): it sees the request before
authentication, and again when an authenticated client re-authenticates."""

from kafka_zk.protocol.errors import Errors

API_KEY = 17


def handle(request):
    return {"error_code": Errors.ILLEGAL_SASL_STATE, "mechanisms": []}
