"""CreateDelegationToken (key 38), versions 0-2 (flexible from 2): issue a delegation token."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 38
NAME = "CreateDelegationToken"

REQUEST = Schema(
    "CreateDelegationTokenRequest",
    [
        Field(
            "renewers",
            Array(
                [
                    Field("principal_type", "string"),
                    Field("principal_name", "string"),
                ]
            ),
        ),
        Field("max_lifetime_ms", "int64"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "CreateDelegationTokenResponse",
    [
        Field("error_code", "int16"),
        Field("principal_type", "string"),
        Field("principal_name", "string"),
        Field("issue_timestamp_ms", "int64"),
        Field("expiry_timestamp_ms", "int64"),
        Field("max_timestamp_ms", "int64"),
        Field("token_id", "string"),
        Field("hmac", "bytes"),
        Field("throttle_time_ms", "int32"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error, an anonymous owner and no token."""
    return {
        "error_code": error_code,
        "principal_type": "User",
        "principal_name": "ANONYMOUS",
        "issue_timestamp_ms": -1,
        "expiry_timestamp_ms": -1,
        "max_timestamp_ms": -1,
        "token_id": "",
        "hmac": b"",
        "throttle_time_ms": 0,
    }
