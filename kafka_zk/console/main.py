"""kafka-zk-console: the web console's process (arguments, wiring, the reactor)."""

import logging
import sys

from kafka_zk.tools.command_config import read_admin_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError
from kafka_zk.tools.zk_tls_option import add_zk_tls_config_file_option, zk_tls_settings

DEFAULT_PORT = 9000
STARTED_MARK = "kafka-zk console serving on"


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-zk-console", description="A web console for a kafka-zk (ZooKeeper-mode Kafka) cluster."
    )
    parser.add_argument("--zookeeper", required=True, help="ZooKeeper connect string host:port[/chroot]")
    parser.add_argument("--bootstrap-server", required=True, help="brokers to bootstrap from, host:port[,...]")
    parser.add_argument(
        "--metrics", default="", help="the brokers' Prometheus endpoints to chart, comma-separated URLs"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port (default 9000)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--command-config", help="admin client properties (security.protocol, ssl.*, sasl.*) for the brokers"
    )
    add_zk_tls_config_file_option(parser)
    return parser


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        print(error, file=sys.stderr)
        parser.print_usage(sys.stderr)
        return 1
    logging.basicConfig(
        level=logging.INFO, stream=sys.stdout, format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)"
    )
    logging.getLogger("kazoo").setLevel(logging.WARNING)

    from twisted.internet import reactor
    from twisted.python import log as twisted_log

    from kafka_zk.console.actions import ConsoleActions
    from kafka_zk.console.reader import ClusterReader
    from kafka_zk.console.service import ConsoleService
    from kafka_zk.console.web import site

    twisted_log.PythonLoggingObserver("kafka_zk.console").start()
    admin_options = read_admin_options(args.command_config, client_id="kafka-zk-console")
    reader = ClusterReader(args.zookeeper, args.bootstrap_server, admin_options, zk_tls_settings=zk_tls_settings(args))
    actions = ConsoleActions(args.bootstrap_server, admin_options, args.command_config)
    service = ConsoleService(reactor, reader, actions, [u.strip() for u in args.metrics.split(",") if u.strip()])
    port = reactor.listenTCP(args.port, site(service), interface=args.host)
    service.start()

    def shut_down():
        service.stop()
        reader.close()

    reactor.addSystemEventTrigger("before", "shutdown", shut_down)
    logging.getLogger(__name__).info("%s http://%s:%d/", STARTED_MARK, args.host, port.getHost().port)
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
