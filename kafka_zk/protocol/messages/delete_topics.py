"""DeleteTopics (key 20), versions 0-4 (flexible from 4): delete topics by name."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 20
NAME = "DeleteTopics"

REQUEST = Schema(
    "DeleteTopicsRequest",
    [
        Field("topic_names", Array("string")),
        Field("timeout_ms", "int32"),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)

RESPONSE = Schema(
    "DeleteTopicsResponse",
    [
        Field("throttle_time_ms", "int32", "1+"),
        Field(
            "responses",
            Array(
                [
                    Field("name", "string"),
                    Field("error_code", "int16"),
                ]
            ),
        ),
    ],
    valid_versions="0-4",
    flexible_versions="4+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """Every topic the request named, with the error."""
    return {
        "throttle_time_ms": 0,
        "responses": [{"name": name, "error_code": error_code} for name in body["topic_names"]],
    }
