"""kafka-console-producer: one record per stdin line, optionally 'key<separator>value', like Kafka's ConsoleProducer."""

import io
import os
import sys

from kafka_zk.client.errors import KafkaClientError
from kafka_zk.client.producer import Producer
from kafka_zk.common.properties import read_properties
from kafka_zk.tools.command_config import security_options
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, parse_key_value_args, run_tool

_CHUNK = 64 * 1024
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


class LineParseError(Exception):
    """A line the line reader cannot turn into a record (no key separator with parse.key=true)."""


class LineReader:
    """Kafka's LineMessageReader: parse.key, key.separator (default tab) and ignore.error."""

    def __init__(self, properties):
        self.parse_key = properties.get("parse.key", "false").strip().lower() == "true"
        self.key_separator = properties.get("key.separator", "\t").encode("utf-8")
        self.ignore_error = properties.get("ignore.error", "false").strip().lower() == "true"
        self.line_number = 0

    def record(self, line):
        """(key or None, value) for one line without its terminator."""
        self.line_number += 1
        if not self.parse_key:
            return None, line
        index = line.find(self.key_separator)
        if index < 0:
            if self.ignore_error:
                return None, line
            raise LineParseError("No key found on line %d: %s" % (self.line_number, line.decode("utf-8", "replace")))
        return line[:index], line[index + len(self.key_separator) :]


def iter_chunks(stream):
    """Bytes from ``stream`` as they become available (os.read on real files, read() otherwise)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None
    while True:
        if fd is not None:
            chunk = os.read(fd, _CHUNK)
        else:
            chunk = stream.read(_CHUNK)
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8")
        if not chunk:
            return
        yield chunk


def iter_line_batches(stream):
    """Lists of complete lines (terminators stripped), one list per chunk read; a last unterminated line too."""
    pending = b""
    for chunk in iter_chunks(stream):
        parts = (pending + chunk).split(b"\n")
        pending = parts.pop()
        if parts:
            yield [p[:-1] if p.endswith(b"\r") else p for p in parts]
    if pending:
        yield [pending[:-1] if pending.endswith(b"\r") else pending]


def producer_settings(args):
    """Producer keyword arguments from the options, --producer.config and --producer-property (Kafka's precedence)."""
    props = read_properties(args.producer_config) if args.producer_config else {}
    props.update(parse_key_value_args(args.producer_property))
    acks = args.request_required_acks if args.request_required_acks is not None else props.get("acks", "1")
    linger = args.timeout if args.timeout is not None else int(props.get("linger.ms", 1000))
    return {
        "acks": acks,
        "compression": args.compression_codec,
        "linger_ms": linger,
        "batch_size": args.max_partition_memory_bytes or int(props.get("batch.size", 16384)),
        "enable_idempotence": props.get("enable.idempotence", "false").lower() == "true",
        "retries": args.message_send_max_retries
        if args.message_send_max_retries is not None
        else int(props.get("retries", 3)),
        "retry_backoff_ms": args.retry_backoff_ms
        if args.retry_backoff_ms is not None
        else int(props.get("retry.backoff.ms", 100)),
        "request_timeout_ms": args.request_timeout_ms
        if args.request_timeout_ms is not None
        else int(props.get("request.timeout.ms", 1500)),
        "client_id": props.get("client.id", "console-producer"),
        **security_options(props),
    }


def _describe(data):
    return "null" if data is None else "%d bytes" % len(data)


def _report_failures(futures, err):
    for future in futures:
        if future.exception is not None:
            print(
                "ERROR Error when sending message to topic %s with key: %s, value: %s with error: %s"
                % (future.topic, _describe(future.key), _describe(future.value), future.exception),
                file=err,
            )


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-console-producer", description="Read data from standard input and publish it to Kafka."
    )
    parser.add_argument("--bootstrap-server", help="The server(s) to connect to.")
    parser.add_argument("--broker-list", help="DEPRECATED, use --bootstrap-server instead.")
    parser.add_argument("--topic", help="REQUIRED: The topic id to produce messages to.")
    parser.add_argument("--sync", action="store_true", help="Send each message synchronously.")
    parser.add_argument(
        "--compression-codec",
        nargs="?",
        const="gzip",
        default="none",
        choices=CODECS,
        help="none, gzip, snappy, lz4 or zstd; without a value gzip.",
    )
    parser.add_argument("--batch-size", type=int, help="Accepted for compatibility.")
    parser.add_argument("--message-send-max-retries", type=int)
    parser.add_argument("--retry-backoff-ms", type=int)
    parser.add_argument("--timeout", type=int, help="linger.ms: how long a batch may wait for more records.")
    parser.add_argument("--request-required-acks", help="acks: 0, 1, -1 or all (default 1).")
    parser.add_argument("--request-timeout-ms", type=int)
    parser.add_argument("--max-partition-memory-bytes", type=int, help="batch.size in bytes.")
    parser.add_argument(
        "--property",
        action="append",
        default=[],
        help="Line reader properties: parse.key, key.separator, ignore.error.",
    )
    parser.add_argument("--producer-property", action="append", default=[], help="key=value producer properties.")
    parser.add_argument("--producer.config", dest="producer_config", help="Producer config properties file.")
    return parser


def run(args, out, err, stdin=None, producer_factory=Producer):
    """Produce every line of ``stdin``; exits 1 on a line the reader rejects or a failed --sync send."""
    if not args.topic:
        raise UsageError('Missing required argument "[topic]"')
    servers = args.bootstrap_server or args.broker_list
    if not servers:
        raise UsageError('Missing required argument "[bootstrap-server]"')
    reader = LineReader(parse_key_value_args(args.property))
    stdin = stdin if stdin is not None else sys.stdin.buffer
    try:
        producer = producer_factory(servers, **producer_settings(args))
    except (ValueError, KafkaClientError) as exc:
        print("ERROR %s" % exc, file=err)
        return 1
    try:
        for lines in iter_line_batches(stdin):
            futures = []
            for line in lines:
                key, value = reader.record(line)
                futures.append(producer.send(args.topic, value, key=key))
                if args.sync:
                    futures[-1].get()
            producer.flush(raise_errors=False)
            _report_failures(futures, err)
    except (LineParseError, KafkaClientError) as exc:
        print("ERROR %s" % exc, file=err)
        producer.flush(raise_errors=False)
        return 1
    finally:
        producer.close()
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
