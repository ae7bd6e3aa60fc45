"""kafka-delegation-tokens against a fake admin client: Kafka 2.5's option checks, its printed lines and table,
and its error line."""

import base64
import datetime
import io

import pytest

from kafka_zk.client.admin import DelegationToken
from kafka_zk.client.errors import KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools import delegation_tokens as tool
from kafka_zk.tools.command_line import UsageError

ISSUE = int(datetime.datetime(2023, 11, 14, 22, 13).timestamp() * 1000)
DAY = 86_400_000
TOKEN = DelegationToken(
    "tok-1", b"secret-hmac-value", "User:alice", ("User:bob", "User:carol"), ISSUE, ISSUE + DAY, ISSUE + 7 * DAY
)
HMAC = base64.b64encode(b"secret-hmac-value").decode()


class FakeAdmin:
    def __init__(self, bootstrap, failure=None, **options):
        self.bootstrap, self.options, self.failure = bootstrap, options, failure
        self.calls = []
        self.closed = False

    def _answer(self, call, value):
        self.calls.append(call)
        if self.failure is not None:
            raise self.failure
        return value

    def create_delegation_token(self, renewers, max_lifetime_ms):
        return self._answer(("create", tuple(renewers), max_lifetime_ms), TOKEN)

    def renew_delegation_token(self, hmac, period):
        return self._answer(("renew", hmac, period), ISSUE + 2 * DAY)

    def expire_delegation_token(self, hmac, period):
        return self._answer(("expire", hmac, period), ISSUE)

    def describe_delegation_tokens(self, owners):
        return self._answer(("describe", owners), [TOKEN, TOKEN._replace(token_id="tok-2", renewers=())])

    def close(self):
        self.closed = True


def _run(tmp_path, *argv, failure=None):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\nrequest.timeout.ms=5000\n")
    admins = []

    def factory(bootstrap, **options):
        admins.append(FakeAdmin(bootstrap, failure, **options))
        return admins[-1]

    out = io.StringIO()
    args = tool.build_parser().parse_args(["--bootstrap-server", "b:9092", "--command-config", str(config), *argv])
    code = tool.run(args, out, io.StringIO(), admin_factory=factory)
    return code, out.getvalue(), admins[0] if admins else None


ROW_1 = (
    "tok-1           c2VjcmV0LWhtYWMtdmFsdWU=       User:alice      [User:bob, User:carol]    "
    "2023-11-14T22:13 2023-11-15T22:13 2023-11-21T22:13"
)
HEADER = (
    "TOKENID         HMAC                           OWNER           RENEWERS                  ISSUEDATE       "
    "EXPIRYDATE      MAXDATE        "
)


def test_create_prints_the_calling_line_and_the_new_token(tmp_path):
    code, out, admin = _run(tmp_path, "--create", "--max-life-time-period", "-1", "--renewer-principal", "User:bob")
    assert code == 0 and admin.calls == [("create", ("User:bob",), -1)] and admin.closed
    assert admin.options == {"timeout": 5.0, "security": {"security.protocol": "SASL_PLAINTEXT"}}
    assert out.split("\n") == [
        "Calling create token operation with renewers :[User:bob] , max-life-time-period :-1",
        "Created delegation token with tokenId : tok-1",
        "",
        HEADER,
        ROW_1,
        "",
    ]


def test_describe_prints_every_token_as_kafka_does(tmp_path):
    code, out, admin = _run(tmp_path, "--describe")
    assert code == 0 and admin.calls == [("describe", None)]
    row_2 = ROW_1.replace("tok-1", "tok-2").replace("[User:bob, User:carol]", "[]                    ")
    assert out.split("\n") == [
        "Calling describe token operation for current user.",
        "Total number of tokens : 2",
        "",
        HEADER,
        ROW_1,
        "",
        row_2,
        "",
    ]
    code, out, admin = _run(tmp_path, "--describe", "--owner-principal", " User:alice ")
    assert admin.calls == [("describe", ["User:alice"])]
    assert out.startswith("Calling describe token operation for owners :[User:alice]\n")


def test_renew_and_expire_send_the_decoded_hmac_and_print_the_new_expiry(tmp_path):
    code, out, admin = _run(tmp_path, "--renew", "--renew-time-period", "-1", "--hmac", HMAC)
    assert code == 0 and admin.calls == [("renew", b"secret-hmac-value", -1)]
    assert out.split("\n") == [
        "Calling renew token operation with hmac :%s , renew-time-period :-1" % HMAC,
        "Completed renew operation. New expiry date : 2023-11-16T22:13",
        "",
    ]
    code, out, admin = _run(tmp_path, "--expire", "--expiry-time-period", "-1", "--hmac", HMAC)
    assert code == 0 and admin.calls == [("expire", b"secret-hmac-value", -1)]
    assert out.split("\n") == [
        "Calling expire token operation with hmac :%s , expire-time-period : -1" % HMAC,
        "Completed expire operation. New expiry date : 2023-11-14T22:13",
        "",
    ]


def test_a_broker_error_prints_kafkas_exception_and_exits_1(tmp_path):
    code, out, admin = _run(
        tmp_path, "--describe", failure=KafkaResponseError(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
    )
    assert code == 1 and admin.closed
    assert out.split("\n")[-2] == (
        "Error while executing delegation token command : org.apache.kafka.common.errors."
        "UnsupportedByAuthenticationException: Delegation Token requests are not allowed on PLAINTEXT/1-way SSL "
        "channels and on delegation token authenticated channels."
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        ((), "Command must include exactly one action: --create, --renew, --expire or --describe"),
        (
            ("--create", "--describe"),
            "Command must include exactly one action: --create, --renew, --expire or --describe",
        ),
        (("--create",), 'Missing required argument "[max-life-time-period]"'),
        (("--renew", "--hmac", "x"), 'Missing required argument "[renew-time-period]"'),
        (("--expire", "--expiry-time-period", "1"), 'Missing required argument "[hmac]"'),
        (
            ("--create", "--max-life-time-period", "1", "--hmac", "x"),
            'Option "[create]" can\'t be used with option "[hmac]"',
        ),
        (("--describe", "--hmac", "x"), 'Option "[describe]" can\'t be used with option "[hmac]"'),
    ],
)
def test_kafkas_option_checks(tmp_path, argv, message):
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _run(tmp_path, *argv)


def test_bootstrap_server_and_command_config_are_required():
    args = tool.build_parser().parse_args(["--describe", "--bootstrap-server", "b:9092"])
    with pytest.raises(UsageError, match=r'Missing required argument "\[command-config\]"'):
        tool.run(args, io.StringIO(), io.StringIO())
