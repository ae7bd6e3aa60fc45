"""Each API's own error response (Kafka's AbstractRequest.getErrorResponse), found by api key."""

from collections.abc import Callable

from kafka_zk.protocol.api_keys import _MODULES, API_SPECS
from kafka_zk.protocol.schema import Body

ErrorResponseBuilder = Callable[[Body, int, int, "str | None"], "Body | None"]

ERROR_RESPONSES: dict[int, ErrorResponseBuilder] = {module.API_KEY: module.error_response for module in _MODULES}


def error_response(api_key: int, version: int, body: Body, error_code: int, message: str | None = None) -> Body | None:
    """The response body answering ``body`` (a decoded request of ``api_key`` at ``version``) with ``error_code``:
    every error field set to it, shaped by what the request named, ``message`` where Kafka sends the exception's;
    None where Kafka sends none (Produce with acks=0), and the connection closes."""
    return ERROR_RESPONSES[api_key](body, version, error_code, message)


def kafka_api_name(api_key: int) -> str:
    """The API's name as Kafka's ApiKeys spells it (METADATA, SASL_AUTHENTICATE), which its messages quote."""
    name = API_SPECS[api_key].name
    return "".join("_" + char if char.isupper() and index else char for index, char in enumerate(name)).upper()
