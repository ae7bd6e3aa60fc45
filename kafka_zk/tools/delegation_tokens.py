"""kafka-delegation-tokens: create, renew, expire and describe delegation tokens, as Kafka 2.5's
DelegationTokenCommand (its options, checks and output)."""

import base64
import binascii
import datetime
import sys

from kafka_zk.client.admin import AdminClient
from kafka_zk.client.errors import KafkaClientError, KafkaResponseError
from kafka_zk.protocol.errors import Errors
from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool

ACTIONS = ("create", "renew", "expire", "describe")
ROW = "%-15s %-30s %-15s %-25s %-15s %-15s %-15s"
HEADERS = ("TOKENID", "HMAC", "OWNER", "RENEWERS", "ISSUEDATE", "EXPIRYDATE", "MAXDATE")

# Kafka's exception for each token error (what ExecutionException.getMessage prints: class and message).
KAFKA_EXCEPTIONS = {
    Errors.DELEGATION_TOKEN_AUTH_DISABLED: (
        "DelegationTokenDisabledException",
        "Delegation Token feature is not enabled.",
    ),
    Errors.DELEGATION_TOKEN_NOT_FOUND: ("DelegationTokenNotFoundException", "Delegation Token is not found on server."),
    Errors.DELEGATION_TOKEN_OWNER_MISMATCH: (
        "DelegationTokenOwnerMismatchException",
        "Specified Principal is not valid Owner/Renewer.",
    ),
    Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: (
        "UnsupportedByAuthenticationException",
        "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token "
        "authenticated channels.",
    ),
    Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED: (
        "DelegationTokenAuthorizationException",
        "Delegation Token authorization failed.",
    ),
    Errors.DELEGATION_TOKEN_EXPIRED: ("DelegationTokenExpiredException", "Delegation Token is expired."),
    Errors.INVALID_PRINCIPAL_TYPE: ("InvalidPrincipalTypeException", "Supplied principalType is not supported."),
}


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-delegation-tokens",
        description="This tool helps to create, renew, expire, or describe delegation tokens.",
    )
    parser.add_argument("--bootstrap-server", help="REQUIRED: server(s) to use for bootstrapping.")
    parser.add_argument(
        "--command-config",
        help="REQUIRED: A property file containing configs to be passed to Admin Client. Token "
        "management operations are allowed in secure mode only. This config file is used to "
        "pass security related configs.",
    )
    parser.add_argument(
        "--create",
        action="store_true",
        help="Create a new delegation token. Use --renewer-principal option to pass renewers principals.",
    )
    parser.add_argument(
        "--renew",
        action="store_true",
        help="Renew delegation token. Use --renew-time-period option to set renew time period.",
    )
    parser.add_argument(
        "--expire",
        action="store_true",
        help="Expire delegation token. Use --expiry-time-period option to expire the token.",
    )
    parser.add_argument(
        "--describe",
        action="store_true",
        help="Describe delegation tokens for the given principals. Use --owner-principal to pass "
        "owner/renewer principals. If --owner-principal option is not supplied, all the user "
        "owned tokens and tokens where user have Describe permission will be returned.",
    )
    parser.add_argument(
        "--owner-principal",
        action="append",
        help="owner is a kafka principal. It is should be in principalType:name format.",
    )
    parser.add_argument(
        "--renewer-principal",
        action="append",
        help="renewer is a kafka principal. It is should be in principalType:name format.",
    )
    parser.add_argument(
        "--max-life-time-period",
        type=int,
        help="Max life period for the token in milliseconds. If the value is -1, then token max "
        "life time will default to a server side config value (delegation.token.max.lifetime.ms).",
    )
    parser.add_argument(
        "--renew-time-period",
        type=int,
        help="Renew time period in milliseconds. If the value is -1, then the renew time period will "
        "default to a server side config value (delegation.token.expiry.time.ms).",
    )
    parser.add_argument(
        "--expiry-time-period",
        type=int,
        help="Expiry time period in milliseconds. If the value is -1, then the token will get invalidated immediately.",
    )
    parser.add_argument("--hmac", help="HMAC of the delegation token")
    return parser


_OPTION_DESTS = {
    "hmac": "hmac",
    "renew-time-period": "renew_time_period",
    "expiry-time-period": "expiry_time_period",
    "owner-principal": "owner_principal",
    "renewer-principal": "renewer_principal",
    "max-life-time-period": "max_life_time_period",
    "renew": "renew",
}
# Options an action may not be given with, in the order Kafka checks them.
_INVALID_WITH = {
    "create": ("hmac", "renew-time-period", "expiry-time-period", "owner-principal"),
    "renew": ("renewer-principal", "max-life-time-period", "expiry-time-period", "owner-principal"),
    "expire": ("renew", "max-life-time-period", "renew-time-period", "owner-principal"),
    "describe": ("renew-time-period", "max-life-time-period", "hmac", "expiry-time-period"),
}
_REQUIRED_FOR = {
    "create": ("max-life-time-period",),
    "renew": ("hmac", "renew-time-period"),
    "expire": ("hmac", "expiry-time-period"),
}


def check_args(args):
    """The action; UsageError with Kafka's text for a missing or misplaced option."""
    actions = [action for action in ACTIONS if getattr(args, action)]
    if len(actions) != 1:
        raise UsageError("Command must include exactly one action: --create, --renew, --expire or --describe")
    action = actions[0]
    for name in ("bootstrap-server", "command-config") + _REQUIRED_FOR.get(action, ()):
        if getattr(args, name.replace("-", "_")) is None:
            raise UsageError('Missing required argument "[%s]"' % name)
    for name in _INVALID_WITH[action]:
        value = getattr(args, _OPTION_DESTS[name])
        if value is not None and value is not False:
            raise UsageError('Option "[%s]" can\'t be used with option "[%s]"' % (action, name))
    return action


def parse_principals(values):
    """Kafka's SecurityUtils.parseKafkaPrincipal of each trimmed value, kept as "Type:name" text."""
    principals = []
    for value in values:
        value = value.strip()
        principal_type, separator, name = value.partition(":")
        if not separator or not principal_type:
            raise ValueError("expected a string in format principalType:principalName but got %s" % value)
        principals.append("%s:%s" % (principal_type, name))
    return principals


def java_list(items):
    return "[%s]" % ", ".join(items)


def format_date(timestamp_ms):
    """SimpleDateFormat("yyyy-MM-dd'T'HH:mm") in the local time zone."""
    return datetime.datetime.fromtimestamp(timestamp_ms / 1000.0).strftime("%Y-%m-%dT%H:%M")


def print_tokens(tokens, out):
    out.write("\n" + ROW % HEADERS)
    for token in tokens:
        out.write(
            "\n"
            + ROW
            % (
                token.token_id,
                base64.b64encode(token.hmac).decode("ascii"),
                token.owner,
                java_list(token.renewers),
                format_date(token.issue_timestamp),
                format_date(token.expiry_timestamp),
                format_date(token.max_timestamp),
            )
        )
        out.write("\n")


def describe_failure(failure):
    """What Kafka prints after "Error while executing delegation token command : "."""
    if isinstance(failure, KafkaResponseError) and failure.error in KAFKA_EXCEPTIONS:
        java_class, message = KAFKA_EXCEPTIONS[failure.error]
        return "org.apache.kafka.common.errors.%s: %s" % (java_class, message)
    return str(failure)


def _decode_hmac(text):
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("Illegal base64 character in HMAC %s" % text) from None


def _execute(action, args, admin, out):
    if action == "create":
        renewers = parse_principals(args.renewer_principal or [])
        print(
            "Calling create token operation with renewers :%s , max-life-time-period :%d"
            % (java_list(renewers), args.max_life_time_period),
            file=out,
        )
        token = admin.create_delegation_token(renewers, args.max_life_time_period)
        print("Created delegation token with tokenId : %s" % token.token_id, file=out)
        print_tokens([token], out)
    elif action == "renew":
        print(
            "Calling renew token operation with hmac :%s , renew-time-period :%d" % (args.hmac, args.renew_time_period),
            file=out,
        )
        expiry = admin.renew_delegation_token(_decode_hmac(args.hmac), args.renew_time_period)
        print("Completed renew operation. New expiry date : %s" % format_date(expiry), file=out)
    elif action == "expire":
        print(
            "Calling expire token operation with hmac :%s , expire-time-period : %d"
            % (args.hmac, args.expiry_time_period),
            file=out,
        )
        expiry = admin.expire_delegation_token(_decode_hmac(args.hmac), args.expiry_time_period)
        print("Completed expire operation. New expiry date : %s" % format_date(expiry), file=out)
    else:
        owners = None if args.owner_principal is None else parse_principals(args.owner_principal)
        if owners is None:
            print("Calling describe token operation for current user.", file=out)
        else:
            print("Calling describe token operation for owners :%s" % java_list(owners), file=out)
        tokens = admin.describe_delegation_tokens(owners)
        print("Total number of tokens : %d" % len(tokens), file=out)
        print_tokens(tokens, out)


def run(args, out, err, admin_factory=AdminClient):
    action = check_args(args)
    options = read_admin_options(args.command_config)
    try:
        admin = admin_factory(args.bootstrap_server, **options)
    except (KafkaClientError, ValueError) as failure:
        print("Error while executing delegation token command : %s" % describe_failure(failure), file=out)
        return 1
    try:
        _execute(action, args, admin, out)
    except (KafkaClientError, ValueError) as failure:
        print("Error while executing delegation token command : %s" % describe_failure(failure), file=out)
        return 1
    finally:
        admin.close()
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
