"""zookeeper-security-migration: set the ACLs of Kafka's znodes to secure (the SASL or x509 identity ALL, world READ
but on sensitive paths) or unsecure (world ALL), as Kafka 2.5's ZkSecurityMigrator. It logs in to ZooKeeper with the
JAAS file named in KAFKA_OPTS (-Djava.security.auth.login.config), or with the TLS client certificate of its
--zk-tls-config-file: it requires one of them.

Moving a cluster to secure ZooKeeper access: restart the brokers with the JAAS file and zookeeper.set.acl=false,
again with zookeeper.set.acl=true, then run this tool with --zookeeper.acl=secure. Back: restart with
zookeeper.set.acl=false, run --zookeeper.acl=unsecure, then restart without the JAAS file.
"""

import dataclasses
import os
import sys

from kafka_zk.security.jaas import LOGIN_CONFIG_PROPERTY, login_config_path
from kafka_zk.security.zk_login import ZkSecurityError, tool_zk_security, zk_sasl_options
from kafka_zk.security.zk_tls import client_auth_enabled
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool
from kafka_zk.tools.zk_tls_option import add_zk_tls_config_file_option, zk_tls_settings
from kafka_zk.zk.acl_migration import AclMigrationError, migrate_acls
from kafka_zk.zk.client import KafkaZkClient

USAGE_MESSAGE = (
    "ZooKeeper Migration Tool Help. This tool updates the ACLs of znodes as part of the process of "
    "setting up ZooKeeper authentication."
)
TLS_CONFIG_FILE_OPTION = "zk-tls-config-file"
NO_JAAS_FILE = (
    "No JAAS configuration file has been specified and no TLS client certificate has been specified. Please make "
    "sure that you set the system property %s or provide a ZooKeeper client TLS configuration via --%s <filename> "
    "identifying at least zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location"
    % (LOGIN_CONFIG_PROPERTY, TLS_CONFIG_FILE_OPTION)
)


class IncorrectConfiguration(Exception):
    """Kafka's IllegalArgumentException("Incorrect configuration"): the tool prints its trace and exits 1."""


def build_parser():
    parser = ToolArgumentParser(prog="zookeeper-security-migration", description=USAGE_MESSAGE)
    parser.add_argument(
        "--zookeeper.acl",
        dest="zookeeper_acl",
        metavar="secure|unsecure",
        help="Indicates whether to make the Kafka znodes in ZooKeeper secure or unsecure. The options "
        "are 'secure' and 'unsecure'",
    )
    parser.add_argument(
        "--zookeeper.connect",
        dest="zookeeper_connect",
        default="localhost:2181",
        help="Sets the ZooKeeper connect string (ensemble). This parameter takes a comma-separated "
        "list of host:port pairs. (default: localhost:2181)",
    )
    parser.add_argument(
        "--zookeeper.session.timeout",
        dest="session_timeout",
        type=int,
        default=30000,
        help="Sets the ZooKeeper session timeout. (default: 30000)",
    )
    parser.add_argument(
        "--zookeeper.connection.timeout",
        dest="connection_timeout",
        type=int,
        default=30000,
        help="Sets the ZooKeeper connection timeout. (default: 30000)",
    )
    add_zk_tls_config_file_option(parser)
    return parser


def secure_option(value):
    """True for secure, False for unsecure; anything else is a usage error, as Kafka's printUsageAndDie."""
    if value == "secure":
        return True
    if value == "unsecure":
        return False
    raise UsageError(USAGE_MESSAGE)


def run(args, out, err, environ=None, client_factory=KafkaZkClient):
    environ = os.environ if environ is None else environ
    jaas_file = login_config_path(environ)
    try:
        tls_settings = zk_tls_settings(args)
        if jaas_file is None and not client_auth_enabled(tls_settings):
            print("ERROR: %s" % NO_JAAS_FILE, file=err)
            raise IncorrectConfiguration("Incorrect configuration")
        try:
            sasl = zk_sasl_options(environ)
            security = tool_zk_security(environ, tls_settings)
        except ZkSecurityError as error:
            raise IncorrectConfiguration(str(error)) from None
        if jaas_file is not None and sasl is None:
            print("ERROR: Security isn't enabled, most likely the file isn't set properly: %s" % jaas_file, file=out)
            raise IncorrectConfiguration("Incorrect configuration")
        secure = secure_option(args.zookeeper_acl)
        client = client_factory(
            args.zookeeper_connect,
            session_timeout_ms=args.session_timeout,
            connection_timeout_ms=args.connection_timeout,
            security=dataclasses.replace(security, secure_acls=secure),
        )
        client.start(timeout=args.connection_timeout / 1000.0)
        try:
            migrate_acls(client, lambda line: print("WARN %s (kafka.admin.ZkSecurityMigrator)" % line, file=err))
        except AclMigrationError as error:
            print(str(error), file=out)
            raise error.cause from None
        finally:
            client.close()
    except IncorrectConfiguration as failure:
        out.flush()
        print("java.lang.IllegalArgumentException: %s" % failure, file=err)
        return 1
    except UsageError:
        raise
    except Exception as error:  # noqa: BLE001  Kafka's main prints any exception's trace and exits 1
        out.flush()
        print("%s: %s" % (type(error).__name__, error), file=err)
        return 1
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
