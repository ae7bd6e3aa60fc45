"""SaslHandshake (key 17), versions 0-1: pick a SASL mechanism."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 17
NAME = "SaslHandshake"

REQUEST = Schema(
    "SaslHandshakeRequest",
    [
        Field("mechanism", "string"),
    ],
    valid_versions="0-1",
)

RESPONSE = Schema(
    "SaslHandshakeResponse",
    [
        Field("error_code", "int16"),
        Field("mechanisms", Array("string")),
    ],
    valid_versions="0-1",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no mechanisms."""
    return {"error_code": error_code, "mechanisms": []}
