"""SaslAuthenticate (key 36) outside an authentication exchange: ILLEGAL_SASL_STATE, as Kafka's KafkaApis.

Tokens of a running exchange never get here: the listener's authenticator (security.sasl_server) takes them."""

from kafka_zk.protocol.errors import Errors

API_KEY = 36


def handle(request):
    return {
        "error_code": Errors.ILLEGAL_SASL_STATE,
        "error_message": "SaslAuthenticate request received after successful authentication",
        "auth_bytes": b"",
        "session_lifetime_ms": 0,
    }
