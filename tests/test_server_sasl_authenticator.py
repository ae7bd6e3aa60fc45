"""The SASL handshake state machine on a listener connection, in memory: v0 raw tokens, v1 SaslAuthenticate,
unsupported mechanisms, illegal states, delayed close after a failure, re-authentication and session expiry."""

import struct

import pytest
from twisted.internet import task
from twisted.internet.testing import StringTransport

from kafka_zk.net.socket_server import KafkaServerFactory, Listener
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.headers import decode_response, encode_request
from kafka_zk.security import plain, scram
from kafka_zk.security.credential_cache import CredentialCache
from kafka_zk.security.principal import user
from kafka_zk.security.sasl_server import SaslServerAuthenticator, SaslServerSettings
from kafka_zk.server import apis

SHA256 = scram.MECHANISMS["SCRAM-SHA-256"]
USERS = {"alice": "alice-secret", "bob": "bob-secret"}


def settings(max_reauth_ms=0, delay_ms=100):
    cache = CredentialCache()
    cache.update_user(
        "alice", {"SCRAM-SHA-256": scram.format_credential(scram.credential_from_password(SHA256, "alice-secret"))}
    )
    servers = {
        "PLAIN": lambda: plain.PlainServer(plain.users_checker(USERS)),
        "SCRAM-SHA-256": lambda: scram.ScramServer(SHA256, lambda name: cache.get("SCRAM-SHA-256", name)),
    }
    return SaslServerSettings(
        ["PLAIN", "SCRAM-SHA-256", "GSSAPI"],
        servers,
        {"PLAIN": max_reauth_ms, "SCRAM-SHA-256": max_reauth_ms},
        delay_ms,
    )


class Connection:
    def __init__(self, **kwargs):
        self.clock = task.Clock()
        self.clock.advance(1000)
        seen = self.seen = []
        handlers = dict(apis.HANDLERS)
        handlers[3] = lambda request: (
            seen.append(request)
            or {"throttle_time_ms": 0, "brokers": [], "cluster_id": None, "controller_id": -1, "topics": []}
        )
        dispatcher = apis.Dispatcher(handlers)
        sasl = settings(**kwargs)
        listener = Listener(
            "SASL_PLAINTEXT", "SASL_PLAINTEXT", authenticator_factory=lambda: SaslServerAuthenticator(sasl)
        )
        self.protocol = KafkaServerFactory(dispatcher, self.clock, 1 << 20, listener).buildProtocol(None)
        self.transport = StringTransport()
        self.protocol.makeConnection(self.transport)
        self.correlation = 0

    def send(self, api_key, version, body):
        self.correlation += 1
        self.send_raw(encode_request(api_key, version, self.correlation, "test", body))
        return self.correlation

    def send_raw(self, payload):
        self.protocol.dataReceived(struct.pack(">i", len(payload)) + payload)

    def frames(self):
        data, out = self.transport.value(), []
        self.transport.clear()
        while data:
            size = struct.unpack(">i", data[:4])[0]
            out.append(data[4 : 4 + size])
            data = data[4 + size :]
        return out

    def call(self, api_key, version, body):
        correlation = self.send(api_key, version, body)
        [payload] = self.frames()
        received, response = decode_response(api_key, version, payload)
        assert received == correlation
        return response

    @property
    def closed(self):
        return self.transport.disconnecting

    def login_plain(self, name="alice", password="alice-secret", version=1):
        assert self.call(17, 1, {"mechanism": "PLAIN"})["error_code"] == Errors.NONE
        return self.call(36, version, {"auth_bytes": plain.client_token(name, password)})


def test_v1_plain_login_then_requests_carry_the_principal():
    connection = Connection()
    versions = connection.call(18, 3, {"client_software_name": "t", "client_software_version": "1"})
    assert {entry["api_key"] for entry in versions["api_keys"]} >= {17, 36}
    handshake = connection.call(17, 1, {"mechanism": "PLAIN"})
    assert handshake == {"error_code": Errors.NONE, "mechanisms": ["PLAIN", "SCRAM-SHA-256", "GSSAPI"]}
    response = connection.call(36, 2, {"auth_bytes": plain.client_token("alice", "alice-secret")})
    assert response["error_code"] == Errors.NONE and response["session_lifetime_ms"] == 0
    connection.call(
        3,
        9,
        {
            "topics": [],
            "allow_auto_topic_creation": False,
            "include_cluster_authorized_operations": False,
            "include_topic_authorized_operations": False,
        },
    )
    assert connection.seen[0].principal == user("alice") and connection.seen[0].security_protocol == "SASL_PLAINTEXT"
    # after authentication the handshake APIs answer ILLEGAL_SASL_STATE (no re-authentication configured)
    assert connection.call(17, 1, {"mechanism": "PLAIN"})["error_code"] == Errors.ILLEGAL_SASL_STATE
    assert not connection.closed


def test_v0_handshake_takes_raw_tokens():
    connection = Connection()
    assert connection.call(17, 0, {"mechanism": "SCRAM-SHA-256"})["error_code"] == Errors.NONE
    client = scram.ScramClient(SHA256, "alice", "alice-secret")
    connection.send_raw(client.first_message())
    [server_first] = connection.frames()
    connection.send_raw(client.final_message(server_first))
    [server_final] = connection.frames()
    client.verify(server_final)
    assert connection.protocol.principal == user("alice") and not connection.closed


def test_unsupported_mechanism_is_answered_with_the_enabled_list_then_closed_after_the_delay():
    connection = Connection()
    connection.send(17, 1, {"mechanism": "DIGEST-MD5"})
    assert connection.frames() == [] and not connection.closed
    connection.clock.advance(0.1)
    [payload] = connection.frames()
    assert decode_response(17, 1, payload)[1] == {
        "error_code": Errors.UNSUPPORTED_SASL_MECHANISM,
        "mechanisms": ["PLAIN", "SCRAM-SHA-256", "GSSAPI"],
    }
    assert connection.closed


def test_gssapi_is_enabled_but_not_served():
    connection = Connection()
    connection.send(17, 1, {"mechanism": "GSSAPI"})
    connection.clock.advance(0.1)
    assert decode_response(17, 1, connection.frames()[0])[1]["error_code"] == Errors.UNSUPPORTED_SASL_MECHANISM


def test_a_wrong_password_answers_58_and_closes_after_the_delay():
    connection = Connection(delay_ms=250)
    assert connection.call(17, 1, {"mechanism": "PLAIN"})["error_code"] == Errors.NONE
    connection.send(36, 1, {"auth_bytes": plain.client_token("alice", "nope")})
    connection.clock.advance(0.2)
    assert connection.frames() == [] and not connection.closed
    connection.send(18, 0, {})  # read nothing more while failing
    connection.clock.advance(0.05)
    [payload] = connection.frames()
    _, response = decode_response(36, 1, payload)
    assert response["error_code"] == Errors.SASL_AUTHENTICATION_FAILED
    assert response["error_message"] == "Authentication failed: Invalid username or password"
    assert connection.closed


def test_scram_failure_message_does_not_tell_whether_the_user_exists():
    connection = Connection(delay_ms=0)
    assert connection.call(17, 1, {"mechanism": "SCRAM-SHA-256"})["error_code"] == Errors.NONE
    connection.send(36, 1, {"auth_bytes": scram.ScramClient(SHA256, "mallory", "x").first_message()})
    connection.clock.advance(0)
    _, response = decode_response(36, 1, connection.frames()[0])
    assert response["error_message"] == (
        "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"
    )


@pytest.mark.parametrize(
    "request_args",
    [
        (
            3,
            9,
            {
                "topics": None,
                "allow_auto_topic_creation": False,
                "include_cluster_authorized_operations": False,
                "include_topic_authorized_operations": False,
            },
        ),
        (36, 1, {"auth_bytes": b"x"}),
    ],
)
def test_anything_but_api_versions_or_handshake_first_closes(request_args):
    connection = Connection()
    connection.send(*request_args)
    assert connection.closed and connection.seen == []


def test_second_api_versions_and_garbage_close():
    connection = Connection()
    connection.call(18, 0, {})
    connection.send(18, 0, {})
    assert connection.closed
    connection = Connection()
    connection.send_raw(b"\x00")
    assert connection.closed
    connection = Connection()
    connection.protocol.dataReceived(struct.pack(">i", 10 * 1024 * 1024))  # oversized before authentication
    assert connection.closed


@pytest.mark.parametrize(
    "api_key,version,body,errors_of",
    [
        (18, 0, {}, lambda response: [response["error_code"]]),
        (18, 3, {"client_software_name": "x", "client_software_version": "1"}, lambda r: [r["error_code"]]),
        (
            0,
            8,
            {"acks": -1, "timeout_ms": 100, "topics": [{"name": "t1", "partitions": [{"partition_index": 2}]}]},
            lambda response: [p["error_code"] for t in response["responses"] for p in t["partitions"]],
        ),
        (15, 5, {"groups": ["g1", "g2"]}, lambda response: [group["error_code"] for group in response["groups"]]),
        (10, 3, {"key": "g1"}, lambda response: [response["error_code"]]),
    ],
)
def test_other_requests_during_the_exchange_get_their_own_illegal_sasl_state_answer_then_close(
    api_key, version, body, errors_of
):
    connection = Connection(delay_ms=0)
    connection.call(17, 1, {"mechanism": "PLAIN"})
    correlation = connection.send(api_key, version, body)
    connection.clock.advance(0)
    [payload] = connection.frames()
    received, response = decode_response(api_key, version, payload)
    assert received == correlation
    assert errors_of(response) == [Errors.ILLEGAL_SASL_STATE] * (2 if api_key == 15 else 1)
    assert connection.closed and connection.seen == []


def test_the_illegal_sasl_state_answer_carries_kafkas_message():
    connection = Connection(delay_ms=0)
    connection.call(17, 1, {"mechanism": "PLAIN"})
    connection.send(19, 5, {"topics": [{"name": "t1", "num_partitions": 1, "replication_factor": 1}]})
    connection.clock.advance(0)
    [payload] = connection.frames()
    [topic] = decode_response(19, 5, payload)[1]["topics"]
    assert (topic["name"], topic["error_code"]) == ("t1", Errors.ILLEGAL_SASL_STATE)
    assert topic["error_message"] == "Unexpected Kafka request of type CREATE_TOPICS during SASL authentication."
    assert connection.closed


def test_metadata_during_the_exchange_is_answered_illegal_sasl_state_then_closed_after_the_delay():
    # Kafka 2.5.1's answer, read from its broker: Metadata's own error response, each topic asked for carrying 34
    expected = {
        1: "0000000800000000ffffffff0000000200220002743100000000000022000274320000000000",
        5: "000000080000000000000000ffffffffffff0000000200220002743100000000000022000274320000000000",
    }
    for version, answer in expected.items():
        connection = Connection(delay_ms=300)
        connection.call(17, 1, {"mechanism": "PLAIN"})
        connection.correlation = 7
        connection.send(3, version, {"topics": [{"name": "t1"}, {"name": "t2"}], "allow_auto_topic_creation": True})
        assert connection.frames() == [] and not connection.closed
        connection.clock.advance(0.3)
        assert [frame.hex() for frame in connection.frames()] == [answer]
        assert connection.closed
        assert connection.seen == []


def test_reauthentication_gives_a_session_lifetime_and_expired_sessions_are_closed():
    connection = Connection(max_reauth_ms=5000)
    assert connection.login_plain()["session_lifetime_ms"] == 5000
    connection.clock.advance(4)
    response = connection.login_plain()  # re-authenticate on the live connection
    assert response["error_code"] == Errors.NONE and response["session_lifetime_ms"] == 5000
    assert connection.protocol.principal == user("alice")
    connection.clock.advance(5.001)
    connection.send(18, 0, {})
    assert connection.closed


def test_reauthentication_must_keep_the_principal():
    connection = Connection(max_reauth_ms=5000, delay_ms=0)
    connection.login_plain()
    connection.clock.advance(2)
    assert connection.call(17, 1, {"mechanism": "PLAIN"})["error_code"] == Errors.NONE
    connection.send(36, 1, {"auth_bytes": plain.client_token("bob", "bob-secret")})
    connection.clock.advance(0)
    _, response = decode_response(36, 1, connection.frames()[0])
    assert response["error_code"] == Errors.SASL_AUTHENTICATION_FAILED
    assert response["error_message"] == "Cannot change principals during re-authentication from User.alice: User.bob"
    assert connection.closed


def test_reauthentication_must_keep_the_mechanism():
    connection = Connection(max_reauth_ms=5000, delay_ms=0)
    connection.login_plain()
    connection.clock.advance(2)
    assert connection.call(17, 1, {"mechanism": "SCRAM-SHA-256"})["error_code"] == Errors.NONE
    connection.send(36, 1, {"auth_bytes": b"n,,n=alice,r=abc"})
    connection.clock.advance(0)
    assert connection.closed
