"""DescribeDelegationToken (key 41), versions 0-2 (flexible from 2): list delegation tokens."""

from kafka_zk.protocol.schema import Array, Body, Field, Schema

API_KEY = 41
NAME = "DescribeDelegationToken"

PRINCIPAL = [
    Field("principal_type", "string"),
    Field("principal_name", "string"),
]

# A null owners list asks for every token.
REQUEST = Schema(
    "DescribeDelegationTokenRequest",
    [
        Field("owners", Array(PRINCIPAL), nullable_versions="0+"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)

RESPONSE = Schema(
    "DescribeDelegationTokenResponse",
    [
        Field("error_code", "int16"),
        Field(
            "tokens",
            Array(
                [
                    Field("principal_type", "string"),
                    Field("principal_name", "string"),
                    Field("issue_timestamp", "int64"),
                    Field("expiry_timestamp", "int64"),
                    Field("max_timestamp", "int64"),
                    Field("token_id", "string"),
                    Field("hmac", "bytes"),
                    Field("renewers", Array(PRINCIPAL)),
                ]
            ),
        ),
        Field("throttle_time_ms", "int32"),
    ],
    valid_versions="0-2",
    flexible_versions="2+",
)


def error_response(body: Body, version: int, error_code: int, message: str | None = None) -> Body:
    """The error and no tokens."""
    return {"error_code": error_code, "tokens": [], "throttle_time_ms": 0}
