"""kafka-dump-log: print segment files (.log, .index, .timeindex, .txnindex) and producer `.snapshot` files the way
Kafka 2.5's DumpLogSegments does."""

import bisect
import mmap
import os
import struct
import sys

from kafka_zk.log.producer_snapshot import CorruptSnapshotError, read_snapshot
from kafka_zk.record.batch_header import (
    BATCH_HEADER_SIZE,
    LOG_OVERHEAD,
    NO_SEQUENCE,
    InvalidRecordError,
    compute_crc,
    read_batch_header,
)
from kafka_zk.record.compression import CODEC_NAMES
from kafka_zk.record.records import (
    CONTROL_ABORT,
    CONTROL_COMMIT,
    batch_records_data,
    decode_records,
    parse_control_key,
    parse_end_txn_marker,
)
from kafka_zk.tools.command_line import ToolArgumentParser, UsageError, run_tool
from kafka_zk.tools.dump_log_decoders import (
    STRING_DECODER,
    offsets_decoder,
    parse_record,
    string_parser,
    transaction_log_decoder,
)

# Bytes needed to see a batch's baseOffset, length and magic (the magic byte is at 16 in every format).
_HEADER_UP_TO_MAGIC = LOG_OVERHEAD + 5
# The smallest size field Kafka accepts before calling the file corrupt (a magic 0 message).
_MIN_SIZE_FIELD = 14
_OFFSET_AND_SIZE = struct.Struct(">qi")
_INDEX_ENTRY = struct.Struct(">ii")
_TIME_INDEX_ENTRY = struct.Struct(">qi")
_TXN_INDEX_ENTRY = struct.Struct(">hqqqq")
_CONTROL_NAMES = {CONTROL_ABORT: "ABORT", CONTROL_COMMIT: "COMMIT"}


def _bool(value):
    return "true" if value else "false"


def _start_offset(path):
    name = os.path.basename(path)
    try:
        return int(name.split(".")[0])
    except ValueError:
        raise UsageError("File name %s does not start with a base offset" % name) from None


def _sibling(path, suffix):
    return os.path.join(os.path.dirname(path), os.path.basename(path).split(".")[0] + suffix)


class _MappedFile:
    """Read-only view of a whole file (empty files give b"")."""

    def __init__(self, path):
        self._file = open(path, "rb")
        size = os.fstat(self._file.fileno()).st_size
        self.data = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""

    def close(self):
        if isinstance(self.data, mmap.mmap):
            self.data.close()
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def iter_file_batches(data, start=0):
    """Yield (position, BatchHeader or None, magic) per complete batch from ``start``; stops at a partial one.

    The header is None for magic 0/1 entries, which this tool only reports. Raises InvalidRecordError
    for a size field too small to be a batch.
    """
    pos = start
    end = len(data)
    while pos + _HEADER_UP_TO_MAGIC <= end:
        _, size = _OFFSET_AND_SIZE.unpack_from(data, pos)
        if size < _MIN_SIZE_FIELD:
            raise InvalidRecordError(
                "Record size %d is less than the minimum record overhead (%d)" % (size, _MIN_SIZE_FIELD)
            )
        if pos + LOG_OVERHEAD + size > end:
            return
        magic = data[pos + 16]
        if magic == 2 and LOG_OVERHEAD + size < BATCH_HEADER_SIZE:
            raise InvalidRecordError("Record batch size %d is below the v2 header size" % (LOG_OVERHEAD + size))
        yield pos, (read_batch_header(data, pos) if magic == 2 else None), magic
        pos += LOG_OVERHEAD + size


def _timestamp_type(header):
    return "LogAppendTime" if header.is_log_append_time else "CreateTime"


def _batch_line(header, position, valid):
    return (
        "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d "
        "producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s isControl: %s position: %d "
        "%s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %s"
        % (
            header.base_offset,
            header.last_offset,
            header.record_count,
            header.base_sequence,
            header.last_sequence,
            header.producer_id,
            header.producer_epoch,
            header.partition_leader_epoch,
            _bool(header.is_transactional),
            _bool(header.is_control),
            position,
            _timestamp_type(header),
            header.max_timestamp,
            header.size,
            header.magic,
            CODEC_NAMES.get(header.compression, "unknown").upper(),
            header.crc,
            _bool(valid),
        )
    )


def _record_line(header, record, print_contents):
    sequence = NO_SEQUENCE
    if header.base_sequence != NO_SEQUENCE:
        sequence = (header.base_sequence + record.offset - header.base_offset) & 0x7FFFFFFF
    parts = [
        "| offset: %d %s: %d keysize: %d valuesize: %d sequence: %d headerKeys: [%s]"
        % (
            record.offset,
            _timestamp_type(header),
            record.timestamp,
            -1 if record.key is None else len(record.key),
            -1 if record.value is None else len(record.value),
            sequence,
            ",".join(name for name, _ in record.headers),
        )
    ]
    if header.is_control:
        _, control_type = parse_control_key(record.key)
        if control_type in _CONTROL_NAMES:
            _, coordinator_epoch = parse_end_txn_marker(record.value)
            parts.append(" endTxnMarker: %s coordinatorEpoch: %d" % (_CONTROL_NAMES[control_type], coordinator_epoch))
        else:
            parts.append(" controlType: UNKNOWN(%d)" % control_type)
    elif print_contents:
        key, payload = parse_record(print_contents, record.key, record.value)
        if key is not None:
            parts.append(" key: " + key)
        if payload is not None:
            parts.append(" payload: " + payload)
    return "".join(parts)


class DumpReport:
    """Problems found while dumping, printed to stderr after all files like Kafka does."""

    def __init__(self):
        self.index_mismatches = {}
        self.non_consecutive = {}
        self.time_mismatches = {}
        self.out_of_order = {}
        self.not_found = {}

    def print_to(self, err):
        for path, pairs in self.index_mismatches.items():
            print("Mismatches in :%s" % path, file=err)
            for index_offset, log_offset in pairs:
                print("  Index offset: %d, log offset: %d" % (index_offset, log_offset), file=err)
        for path, pairs in self.time_mismatches.items():
            print("Found timestamp mismatch in :%s" % path, file=err)
            for index_ts, log_ts in pairs:
                print("  Index timestamp: %d, log timestamp: %d" % (index_ts, log_ts), file=err)
        for path, pairs in self.out_of_order.items():
            print("Found out of order timestamp in :%s" % path, file=err)
            for index_ts, previous in pairs:
                print("  Index timestamp: %d, Previously indexed timestamp: %d" % (index_ts, previous), file=err)
        for pairs in self.not_found.values():
            print("The following indexed offsets are not found in the log.", file=err)
            for index_offset, log_offset in pairs:
                print("Indexed offset: %d, found log offset: %d" % (index_offset, log_offset), file=err)
        for path, pairs in self.non_consecutive.items():
            print("Non-consecutive offsets in %s" % path, file=err)
            for first, second in pairs:
                print("  %d is followed by %d" % (first, second), file=err)


def dump_log(path, out, err, report, deep, print_contents):
    """Print a .log file's batches (and records when ``deep``); ``print_contents`` is the record parser
    ((key, value) -> (key text, value text)) when contents are printed, else None."""
    print("Starting offset: %d" % _start_offset(path), file=out)
    with _MappedFile(path) as mapped:
        data = mapped.data
        valid_bytes = 0
        last_offset = -1
        try:
            for pos, header, magic in iter_file_batches(data):
                if header is None:
                    print("Unsupported message format magic %d at position %d; stopping." % (magic, pos), file=err)
                    return
                valid = compute_crc(data, pos, header.size) == header.crc
                print(_batch_line(header, pos, valid), file=out)
                if deep:
                    for record in decode_records(header, batch_records_data(data, pos, header)):
                        if last_offset != -1 and record.offset != last_offset + 1:
                            report.non_consecutive.setdefault(os.path.abspath(path), []).append(
                                (last_offset, record.offset)
                            )
                        last_offset = record.offset
                        print(_record_line(header, record, print_contents), file=out)
                valid_bytes = pos + header.size
        except InvalidRecordError as exc:
            print("Corrupt data in %s after position %d: %s" % (path, valid_bytes, exc), file=err)
            return
        trailing = len(data) - valid_bytes
        if trailing > 0:
            print("Found %d invalid bytes at the end of %s" % (trailing, os.path.basename(path)), file=out)


def _iter_index_entries(data, entry, key):
    """Entries in order, stopping at the zero-filled tail of a preallocated index."""
    for i in range(len(data) // entry.size):
        values = entry.unpack_from(data, i * entry.size)
        if i > 0 and values[key] == 0:
            return
        yield values


def _batch_at(log_data, position):
    if position + BATCH_HEADER_SIZE > len(log_data) or log_data[position + 16] != 2:
        return None
    return read_batch_header(log_data, position)


def _index_sanity(path, data, entry_size, base_offset, last_relative):
    if len(data) % entry_size:
        raise UsageError(
            "Index file %s is corrupt, found %d bytes which is neither positive nor a multiple of %d."
            % (path, len(data), entry_size)
        )
    if last_relative < 0:
        raise UsageError(
            "Corrupt index found, index file (%s) has non-zero size but the last offset is %d which "
            "is less than the base offset %d." % (path, base_offset + last_relative, base_offset)
        )


def dump_index(path, out, report, sanity_only, verify_only):
    base_offset = _start_offset(path)
    with _MappedFile(path) as index, _MappedFile(_sibling(path, ".log")) as log:
        if sanity_only:
            entries = len(index.data) // _INDEX_ENTRY.size
            last = _INDEX_ENTRY.unpack_from(index.data, (entries - 1) * 8)[0] if entries else 0
            _index_sanity(path, index.data, _INDEX_ENTRY.size, base_offset, last)
            print("%s passed sanity check." % path, file=out)
            return
        for relative, position in _iter_index_entries(index.data, _INDEX_ENTRY, 0):
            offset = base_offset + relative
            header = _batch_at(log.data, position)
            log_offset = header.last_offset if header is not None else -1
            if log_offset != offset:
                report.index_mismatches.setdefault(os.path.abspath(path), []).append((offset, log_offset))
            if not verify_only:
                print("offset: %d position: %d" % (offset, position), file=out)


def _offset_index_lookup(offsets, positions, target):
    """Position of the largest offset index entry <= target (0 if none)."""
    slot = bisect.bisect_right(offsets, target) - 1
    return positions[slot] if slot >= 0 else 0


def dump_time_index(path, out, report, sanity_only, verify_only):
    base_offset = _start_offset(path)
    abs_path = os.path.abspath(path)
    with (
        _MappedFile(path) as time_index,
        _MappedFile(_sibling(path, ".index")) as index,
        _MappedFile(_sibling(path, ".log")) as log,
    ):
        if sanity_only:
            entries = len(time_index.data) // _TIME_INDEX_ENTRY.size
            last = _TIME_INDEX_ENTRY.unpack_from(time_index.data, (entries - 1) * 12)[1] if entries else 0
            _index_sanity(path, time_index.data, _TIME_INDEX_ENTRY.size, base_offset, last)
            print("%s passed sanity check." % path, file=out)
            return
        entries = list(_iter_index_entries(index.data, _INDEX_ENTRY, 0))
        offsets = [base_offset + relative for relative, _ in entries]
        positions = [position for _, position in entries]
        previous = -1
        for timestamp, relative in _iter_index_entries(time_index.data, _TIME_INDEX_ENTRY, 1):
            offset = base_offset + relative
            found = None
            start = _offset_index_lookup(offsets, positions, offset)
            for pos, header, _ in iter_file_batches(log.data, start):
                if header is not None and header.last_offset >= offset:
                    found = header, pos
                    break
            if found is None:
                report.not_found.setdefault(abs_path, []).append((offset, -1))
            elif found[0].last_offset != offset:
                report.not_found.setdefault(abs_path, []).append((offset, found[0].last_offset))
            else:
                if found[0].max_timestamp != timestamp:
                    report.time_mismatches.setdefault(abs_path, []).append((timestamp, found[0].max_timestamp))
                if previous >= timestamp:
                    report.out_of_order.setdefault(abs_path, []).append((timestamp, previous))
            if not verify_only:
                print("timestamp: %d offset: %d" % (timestamp, offset), file=out)
            previous = timestamp


def dump_txn_index(path, out):
    with _MappedFile(path) as txn_index:
        data = txn_index.data
        for pos in range(0, len(data) - len(data) % _TXN_INDEX_ENTRY.size, _TXN_INDEX_ENTRY.size):
            version, producer_id, first, last, last_stable = _TXN_INDEX_ENTRY.unpack_from(data, pos)
            print(
                "version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d"
                % (version, producer_id, first, last, last_stable),
                file=out,
            )


def dump_producer_snapshot(path, out, err):
    """One line per producer, as Kafka 2.5 prints a ProducerStateEntry (Scala Option for the open transaction)."""
    try:
        entries = read_snapshot(path)
    except CorruptSnapshotError as error:
        print(str(error), file=err)
        return
    for entry in entries:
        first = entry.current_txn_first_offset
        line = "producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s " % (
            entry.producer_id,
            entry.producer_epoch,
            entry.coordinator_epoch,
            "None" if first is None else "Some(%d)" % first,
        )
        if entry.batches:
            batch = entry.batches[0]
            line += "firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d" % (
                batch.first_seq,
                batch.last_seq,
                batch.last_offset,
                batch.last_offset - batch.first_offset,
                batch.timestamp,
            )
        print(line, file=out)


def build_parser():
    parser = ToolArgumentParser(
        prog="kafka-dump-log",
        description="This tool helps to parse a log file and dump its contents to the console, "
        "useful for debugging a seemingly corrupt log segment.",
    )
    parser.add_argument(
        "--files",
        required=True,
        metavar="file1, file2, ...",
        help="REQUIRED: The comma separated list of data and index log files to be dumped.",
    )
    parser.add_argument(
        "--print-data-log",
        action="store_true",
        help="if set, printing the messages content when dumping data logs. "
        "Automatically set if any decoder option is specified.",
    )
    parser.add_argument(
        "--deep-iteration",
        action="store_true",
        help="if set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.",
    )
    parser.add_argument(
        "--verify-index-only",
        action="store_true",
        help="if set, just verify the index log without printing its content.",
    )
    parser.add_argument(
        "--index-sanity-check",
        action="store_true",
        help="if set, just checks the index sanity without printing its content.",
    )
    parser.add_argument(
        "--max-message-size",
        type=int,
        default=5 * 1024 * 1024,
        help="Size of largest message (accepted for compatibility).",
    )
    parser.add_argument(
        "--key-decoder-class",
        metavar="class",
        help="if set, used to deserialize the keys. This class should implement "
        "kafka.serializer.Decoder trait. Custom jar should be available in kafka/libs "
        "directory. (default: kafka.serializer.StringDecoder)",
    )
    parser.add_argument(
        "--value-decoder-class",
        metavar="class",
        help="if set, used to deserialize the messages. This class should implement "
        "kafka.serializer.Decoder trait. Custom jar should be available in kafka/libs "
        "directory. (default: kafka.serializer.StringDecoder)",
    )
    parser.add_argument(
        "--offsets-decoder",
        action="store_true",
        help="if set, log data will be parsed as offset data from the __consumer_offsets topic.",
    )
    parser.add_argument(
        "--transaction-log-decoder",
        action="store_true",
        help="if set, log data will be parsed as transaction metadata from the __transaction_state topic.",
    )
    return parser


class ClassNotFound(Exception):
    """A decoder class we do not have (the JVM's ClassNotFoundException)."""


def record_parser(args):
    """The record parser the options select, or None when contents are not printed (as Kafka 2.5: any decoder
    option turns printing on; the offsets decoder wins over the transaction log decoder)."""
    if not (
        args.print_data_log
        or args.offsets_decoder
        or args.transaction_log_decoder
        or args.key_decoder_class
        or args.value_decoder_class
    ):
        return None
    if args.offsets_decoder:
        return offsets_decoder
    if args.transaction_log_decoder:
        return transaction_log_decoder
    for name in (args.key_decoder_class, args.value_decoder_class):
        if name not in (None, STRING_DECODER):
            raise ClassNotFound(name)
    return string_parser


def run(args, out, err):
    """Dump every file of ``args.files``; problems found are reported on ``err`` at the end."""
    report = DumpReport()
    try:
        parser = record_parser(args)
    except ClassNotFound as missing:
        print('Exception in thread "main" java.lang.ClassNotFoundException: %s' % missing, file=err)
        return 1
    deep = args.deep_iteration or parser is not None
    for path in args.files.split(","):
        print("Dumping %s" % path, file=out)
        suffix = os.path.splitext(path)[1]
        try:
            if suffix == ".log":
                dump_log(path, out, err, report, deep, parser)
            elif suffix == ".index":
                dump_index(path, out, report, args.index_sanity_check, args.verify_index_only)
            elif suffix == ".timeindex":
                dump_time_index(path, out, report, args.index_sanity_check, args.verify_index_only)
            elif suffix == ".txnindex":
                dump_txn_index(path, out)
            elif suffix == ".snapshot":
                dump_producer_snapshot(path, out, err)
            else:
                print("Ignoring unknown file %s" % path, file=err)
        except BrokenPipeError:
            raise
        except OSError as exc:
            print("Error while dumping %s: %s" % (path, exc), file=err)
            return 1
    report.print_to(err)
    return 0


def main(argv=None):
    return run_tool(build_parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
