"""Batch and micro-batch readers of the kafka_zk source: plan offset ranges on the driver, fetch them on executors."""

import math
from dataclasses import dataclass

from pyspark.sql.datasource import DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, SupportsTriggerAvailableNow

from kafka_zk.spark.fetch import KafkaZkDataLossError, OffsetRangeFetcher, data_loss_message
from kafka_zk.spark.offsets import KafkaZkSourceError, PartitionOffsets, offsets_from_json, offsets_to_json


@dataclass
class OffsetRangePartition(InputPartition):
    """One Spark task: offsets [start, end) of one Kafka partition (the whole range or a piece of it)."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self):
        return self.end - self.start


def split_ranges(ranges, min_partitions):
    """Ranges cut so there are at least ``min_partitions`` tasks, big ranges cut most (as Spark's Kafka source)."""
    ranges = [r for r in ranges if r.size > 0]
    if not min_partitions or len(ranges) >= min_partitions:
        return ranges
    total = sum(r.size for r in ranges)
    per_task = total / min_partitions
    result = []
    for r in ranges:
        pieces = max(1, min(r.size, math.ceil(r.size / per_task))) if per_task > 0 else 1
        bounds = [r.start + (r.size * i) // pieces for i in range(pieces + 1)]
        result.extend(OffsetRangePartition(r.topic, r.partition, lo, hi) for lo, hi in zip(bounds, bounds[1:]))
    return result


def rate_limited(start, latest, max_rows):
    """End offsets reading at most ``max_rows`` records in all, shared in proportion to each partition's backlog."""
    backlog = {tp: latest[tp] - start.get(tp, latest[tp]) for tp in latest}
    total = sum(n for n in backlog.values() if n > 0)
    if total <= max_rows:
        return dict(latest)
    result = {}
    budget = max_rows
    for tp in sorted(latest):
        begin = start.get(tp, latest[tp])
        if backlog[tp] <= 0:
            result[tp] = latest[tp]
            continue
        share = max_rows * backlog[tp] // total
        share = max(1, min(share, budget)) if budget > 0 else 0
        budget -= share
        result[tp] = min(latest[tp], begin + share)
    return result


class _OffsetRangeReading:
    """The executor half shared by both readers; the driver's client is never pickled to executors."""

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_offsets"] = None
        return state

    def _new_offsets(self):
        o = self.opts
        return PartitionOffsets(o.bootstrap_servers, o.subscription, o.client_settings)

    @property
    def offsets(self):
        if self.__dict__.get("_offsets") is None:
            self._offsets = self._new_offsets()
        return self._offsets

    def read(self, partition):
        o = self.opts
        fetcher = OffsetRangeFetcher(
            o.bootstrap_servers,
            o.client_settings,
            partition.topic,
            partition.partition,
            partition.start,
            partition.end,
            o.include_headers,
            o.fail_on_data_loss,
            o.poll_timeout_ms,
        )
        return fetcher.batches()

    def _ranges(self, start, end):
        """OffsetRangePartitions for {tp: start} .. {tp: end}; a start past its end is data loss (or skipped)."""
        ranges = []
        for tp in sorted(end):
            begin = start[tp]
            if end[tp] < begin:
                message = (
                    "Partition %s-%d's offset went back from %d to %d: the topic was deleted and recreated "
                    "or its log truncated" % (tp[0], tp[1], begin, end[tp])
                )
                if self.opts.fail_on_data_loss:
                    raise KafkaZkDataLossError(message + "; set failOnDataLoss to false to go on")
                continue
            ranges.append(OffsetRangePartition(tp[0], tp[1], begin, end[tp]))
        return split_ranges(ranges, self.opts.min_partitions)


class KafkaZkBatchReader(_OffsetRangeReading, DataSourceReader):
    """spark.read: startingOffsets (default earliest) .. endingOffsets (default latest) of every partition."""

    def __init__(self, opts):
        self.opts = opts
        self._offsets = None

    def partitions(self):
        try:
            tps = self.offsets.topic_partitions()
            start = self.offsets.resolve(self.opts.starting, tps, "earliest")
            end = self.offsets.resolve(self.opts.ending, tps, "latest")
            earliest = self.offsets.earliest(tps)
        finally:
            self.offsets.close()
        for tp in tps:
            if start[tp] < earliest[tp]:
                if self.opts.fail_on_data_loss:
                    raise KafkaZkDataLossError(data_loss_message(tp[0], tp[1], start[tp], earliest[tp]))
                start[tp] = earliest[tp]
            if end[tp] < start[tp]:
                raise KafkaZkSourceError(
                    "Ending offset %d of %s-%d is before its starting offset %d" % (end[tp], tp[0], tp[1], start[tp])
                )
        return self._ranges(start, end)


class KafkaZkStreamReader(_OffsetRangeReading, DataSourceStreamReader, SupportsTriggerAvailableNow):
    """readStream: offsets {"topic": {"partition": next offset}} that Spark checkpoints per micro-batch."""

    def __init__(self, opts):
        self.opts = opts
        self._offsets = None
        self._target = None  # end offsets of a Trigger.AvailableNow run

    def initialOffset(self):
        tps = self.offsets.topic_partitions()
        return offsets_to_json(self.offsets.resolve(self.opts.starting, tps, "latest"))

    def getDefaultReadLimit(self):
        if self.opts.max_offsets_per_trigger:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self):
        self._target = self._latest()

    def _latest(self):
        """{tp: latest offset} of every partition subscribed now (partitions added since the last call included)."""
        return self.offsets.latest(self.offsets.topic_partitions())

    def latestOffset(self, start, limit):
        start = offsets_from_json(start)
        if self._target is not None:
            latest = dict(self._target)
        else:
            latest = self._latest()
        new = [tp for tp in latest if tp not in start]
        begin = dict(start)
        begin.update(self.offsets.earliest(new))
        for tp, offset in start.items():
            latest.setdefault(tp, offset)  # a partition the target does not know, or a deleted topic: hold
        if isinstance(limit, ReadMaxRows):
            latest = rate_limited(begin, latest, limit.max_rows)
        return offsets_to_json(latest)

    def reportLatestOffset(self):
        return None

    def partitions(self, start, end):
        start = offsets_from_json(start)
        end = offsets_from_json(end)
        new = [tp for tp in end if tp not in start]
        begin = dict(start)
        begin.update(self.offsets.earliest(new))
        return self._ranges(begin, end)

    def commit(self, end):
        pass

    def stop(self):
        if self.__dict__.get("_offsets") is not None:
            self._offsets.close()
