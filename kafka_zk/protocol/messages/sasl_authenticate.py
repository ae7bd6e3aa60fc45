"""SaslAuthenticate (key 36), versions 0-2 (flexible from 2): SASL tokens wrapped in Kafka frames."""

from kafka_zk.protocol.schema import Body, Field, Schema

API_KEY = 36
NAME = "SaslAuthenticate"

REQUEST = Schema(
    "SaslAuthenticateRequest",
    [
        Field("auth_bytes", "bytes"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "SaslAuthenticateResponse",
    [
        Field("error_code", "int16"),
        Field("error_message", "string", nullable_versions="0+"),
        Field("auth_bytes", "bytes"),
        Field("session_lifetime_ms", "int64", "1+", default=0),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error with its message, no token and no session lifetime."""
    return {"error_code": error_code, "error_message": message, "auth_bytes": b"", "session_lifetime_ms": 0}
