"""Each API's error response, byte for byte against Kafka 2.5.1's getErrorResponse for the same request."""

import subprocess

import pytest

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.error_responses import ERROR_RESPONSES, error_response, kafka_api_name
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import encode_response
from tests.error_response_corpus import corpus, filled_request
from tests.java_clients import java_command

CORRELATION_ID = 7  # the one ErrorResponseOracle writes
CASES = [(api_key, version, kind) for api_key, version in corpus() for kind in ("sasl", "runtime")]


def _request_bytes(api_key, version):
    return API_SPECS[api_key].request.encode(filled_request(api_key, version), version)


@pytest.fixture(scope="module")
def kafka_answers():
    """Kafka's error response for every case, from one run of the Java oracle."""
    lines = ["%d %d %s %s" % (key, version, kind, _request_bytes(key, version).hex()) for key, version, kind in CASES]
    result = subprocess.run(
        java_command("ErrorResponseOracle"), input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert len(answers) == len(CASES), result.stderr
    return dict(zip(CASES, answers))


def test_every_api_we_serve_has_an_error_response():
    assert set(ERROR_RESPONSES) == set(API_SPECS)


@pytest.mark.parametrize("api_key,version,kind", CASES, ids=lambda value: str(value))
def test_error_response_matches_kafka(kafka_answers, api_key, version, kind):
    expected = kafka_answers[(api_key, version, kind)]
    assert not expected.startswith("ERROR"), expected
    if kind == "sasl":
        error = Errors.ILLEGAL_SASL_STATE
        message = "Unexpected Kafka request of type %s during SASL authentication." % kafka_api_name(api_key)
    else:
        error, message = Errors.UNKNOWN_SERVER_ERROR, "boom"
    request = API_SPECS[api_key].request.decode(_request_bytes(api_key, version), version)
    ours = encode_response(api_key, version, CORRELATION_ID, error_response(api_key, version, request, error, message))
    assert ours.hex() == expected
