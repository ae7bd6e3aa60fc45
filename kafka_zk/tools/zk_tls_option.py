"""The tools' --zk-tls-config-file option (Kafka 2.5's ZooKeeper client TLS properties file) and what it yields."""

from kafka_zk.security.zk_tls import AUTHORIZER_PREFIX, ZK_TLS_CONFIG_NAMES, read_zk_tls_config_file

OPTION = "--zk-tls-config-file"


def add_zk_tls_config_file_option(parser, purpose=""):
    parser.add_argument(
        OPTION,
        dest="zk_tls_config_file",
        metavar="ZooKeeper TLS configuration",
        help="Identifies the file where ZooKeeper client TLS connectivity properties %sare defined. Any properties "
        "other than %s are ignored." % (purpose, ", ".join(sorted(ZK_TLS_CONFIG_NAMES))),
    )


def zk_tls_settings(args):
    """The zookeeper.ssl.* settings of the file --zk-tls-config-file names ({} without the option); an unreadable
    file raises ZkTlsError."""
    path = getattr(args, "zk_tls_config_file", None)
    return read_zk_tls_config_file(path) if path else {}


def authorizer_zk_tls_settings(args, authorizer_properties):
    """kafka-acls: the file's settings, overlaid by the same names (with or without "authorizer.") given in
    --authorizer-properties, as Kafka's AclAuthorizer reads them."""
    settings = zk_tls_settings(args)
    for name, value in authorizer_properties.items():
        bare = name[len(AUTHORIZER_PREFIX) :] if name.startswith(AUTHORIZER_PREFIX) else name
        if bare in ZK_TLS_CONFIG_NAMES:
            settings[bare] = value
    return settings
