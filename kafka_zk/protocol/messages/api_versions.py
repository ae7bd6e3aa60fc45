"""ApiVersions (key 18), versions 0-3 (flexible from 3): the API versions a broker serves.

Responses always travel with response header v0, even at the flexible v3.
"""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 18
NAME = "ApiVersions"

REQUEST = Schema(
    "ApiVersionsRequest",
    [
        Field("client_software_name", "string", "3+"),
        Field("client_software_version", "string", "3+"),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)

RESPONSE = Schema(
    "ApiVersionsResponse",
    [
        Field("error_code", "int16"),
        Field(
            "api_keys",
            Array(
                [
                    Field("api_key", "int16"),
                    Field("min_version", "int16"),
                    Field("max_version", "int16"),
                ]
            ),
        ),
        Field("throttle_time_ms", "int32", "1+"),
    ],
    valid_versions="0-3",
    flexible_versions="3+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no API versions (the unsupported-version answer, which lists ours, is built elsewhere)."""
    return {"error_code": error_code, "api_keys": [], "throttle_time_ms": 0}
