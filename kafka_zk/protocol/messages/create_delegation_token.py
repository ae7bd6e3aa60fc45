"""CreateDelegationToken (key 38), versions 0-2 (flexible from 2): issue a delegation token."""

from kafka_zk.protocol.schema import Array, Field, Schema

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
