"""What Kafka 2.5's perf tools compute and how they fail: java.util.Random, Java number and date formatting,
the throughput throttler, the producer's stats, and the JVM's one-line death."""

import datetime
import math
import re
from decimal import ROUND_HALF_UP, Decimal

_RANDOM_MULTIPLIER = 0x5DEECE66D
_RANDOM_MASK = (1 << 48) - 1


def _int32(value):
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class JavaRandom:
    """java.util.Random's documented 48-bit linear congruential generator (same seed, same sequence)."""

    def __init__(self, seed):
        self._seed = (seed ^ _RANDOM_MULTIPLIER) & _RANDOM_MASK

    def _next(self, bits):
        self._seed = (self._seed * _RANDOM_MULTIPLIER + 0xB) & _RANDOM_MASK
        return _int32(self._seed >> (48 - bits))

    def next_int(self, bound):
        """A value in [0, bound), as Random.nextInt(bound) draws it."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if _int32(u - r + m) >= 0:
                return r
            u = self._next(31)


def uppercase_payload(size, seed=0):
    """The --record-size payload of Kafka 2.5: ``size`` letters 'A'-'Z' from Random(seed), drawn once."""
    random = JavaRandom(seed)
    return bytes(random.next_int(26) + 65 for _ in range(size))


def java_fixed(value, places):
    """Java's %.Nf: half-up rounding of the shortest decimal form; NaN and Infinity spelled as Java does."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = str(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    return text


def java_divide(numerator, denominator):
    """Floating division as Java's doubles do it: x/0 is +-Infinity, 0/0 is NaN."""
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        return math.inf if (numerator > 0) == (math.copysign(1.0, denominator) > 0) else -math.inf
    return numerator / denominator


def java_split(text, regex):
    """String.split(regex): a regex delimiter, trailing empty strings removed."""
    if text == "":
        return [""]
    parts = []
    position = 0
    for match in re.finditer(regex, text):
        if match.end() == 0:
            continue
        if match.start() == match.end() and match.start() >= len(text):
            continue
        parts.append(text[position : match.start()])
        position = match.end()
    parts.append(text[position:])
    while parts and parts[-1] == "":
        parts.pop()
    return parts


# -- java.text.SimpleDateFormat ------------------------------------------------------------------

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_PATTERN_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"


class DateFormatError(ValueError):
    """A SimpleDateFormat pattern Java rejects (the message is Java's)."""


def _zone_offset(moment):
    offset = moment.utcoffset() or datetime.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return sign, abs(minutes) // 60, abs(minutes) % 60


def _field(letter, count, moment, millis):
    if letter == "G":
        return "AD"
    if letter in "yY":
        return "%02d" % (moment.year % 100) if count == 2 else str(moment.year).zfill(count)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[moment.month - 1]
        if count == 3:
            return _MONTHS[moment.month - 1][:3]
        return str(moment.month).zfill(count)
    if letter == "w":
        return str(moment.isocalendar()[1]).zfill(count)
    if letter == "W":
        return str((moment.day - 1) // 7 + 1).zfill(count)
    if letter == "D":
        return str(moment.timetuple().tm_yday).zfill(count)
    if letter == "d":
        return str(moment.day).zfill(count)
    if letter == "F":
        return str((moment.day - 1) // 7 + 1).zfill(count)
    if letter == "E":
        name = _DAYS[moment.weekday()]
        return name if count >= 4 else name[:3]
    if letter == "u":
        return str(moment.isoweekday()).zfill(count)
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    if letter == "H":
        return str(moment.hour).zfill(count)
    if letter == "k":
        return str(moment.hour or 24).zfill(count)
    if letter == "K":
        return str(moment.hour % 12).zfill(count)
    if letter == "h":
        return str(moment.hour % 12 or 12).zfill(count)
    if letter == "m":
        return str(moment.minute).zfill(count)
    if letter == "s":
        return str(moment.second).zfill(count)
    if letter == "S":
        return str(millis).zfill(count)
    if letter == "z":
        return moment.tzname() or "GMT"
    sign, hours, minutes = _zone_offset(moment)
    if letter == "Z":
        return "%s%02d%02d" % (sign, hours, minutes)
    if hours == 0 and minutes == 0:  # X
        return "Z"
    if count == 1:
        return "%s%02d" % (sign, hours)
    return "%s%02d%s%02d" % (sign, hours, ":" if count >= 3 else "", minutes)


class SimpleDateFormat:
    """java.text.SimpleDateFormat's formatting of epoch milliseconds in the local time zone."""

    def __init__(self, pattern):
        self.pattern = pattern
        self._tokens = self._compile(pattern)

    @staticmethod
    def _compile(pattern):
        tokens = []
        index = 0
        while index < len(pattern):
            char = pattern[index]
            if char == "'":
                end = pattern.find("'", index + 1)
                if end < 0:
                    raise DateFormatError("Unterminated quote")
                tokens.append(("text", "'" if end == index + 1 else pattern[index + 1 : end]))
                index = end + 1
            elif char.isascii() and char.isalpha():
                if char not in _PATTERN_LETTERS:
                    raise DateFormatError("Illegal pattern character '%s'" % char)
                end = index
                while end < len(pattern) and pattern[end] == char:
                    end += 1
                tokens.append((char, end - index))
                index = end
            else:
                tokens.append(("text", char))
                index += 1
        return tokens

    def format(self, epoch_ms):
        moment = datetime.datetime.fromtimestamp(epoch_ms / 1000.0).astimezone()
        millis = int(epoch_ms) % 1000
        return "".join(value if kind == "text" else _field(kind, value, moment, millis) for kind, value in self._tokens)


# -- the producer side -----------------------------------------------------------------------------

NS_PER_MS = 1000000
NS_PER_SEC = 1000 * NS_PER_MS
MIN_SLEEP_NS = 2 * NS_PER_MS


class ThroughputThrottler:
    """Kafka's ThroughputThrottler: after each send, sleep off a deficit of 1/target seconds per record once it
    reaches 2 ms; a negative target never throttles. ``wait(seconds)`` may return early (it then waits again)."""

    def __init__(self, target_throughput, start_ms, nanotime, wait):
        self.target_throughput = target_throughput
        self.start_ms = start_ms
        self.sleep_time_ns = NS_PER_SEC // target_throughput if target_throughput > 0 else None
        self.sleep_deficit_ns = 0
        self._nanotime = nanotime
        self._wait = wait

    def should_throttle(self, amount_so_far, send_start_ms):
        if self.target_throughput < 0:
            return False
        elapsed_sec = (send_start_ms - self.start_ms) / 1000.0
        return elapsed_sec > 0 and (amount_so_far / elapsed_sec) > self.target_throughput

    def throttle(self):
        if self.target_throughput == 0:
            while True:  # Kafka's throttler waits for a wakeup that never comes
                self._wait(3600.0)
        self.sleep_deficit_ns += self.sleep_time_ns
        if self.sleep_deficit_ns < MIN_SLEEP_NS:
            return
        started = self._nanotime()
        remaining = self.sleep_deficit_ns
        while remaining > 0:
            self._wait(remaining / NS_PER_SEC)
            remaining = self.sleep_deficit_ns - (self._nanotime() - started)
        self.sleep_deficit_ns = 0


class ProducerStats:
    """ProducerPerformance's Stats: totals, a 5 s reporting window, and every ``sampling``-th latency kept for the
    percentiles (sampling = numRecords / min(numRecords, 500000))."""

    def __init__(self, num_records, reporting_interval_ms, now_ms, out):
        self.start = now_ms()
        self.window_start = self.start
        self._now_ms = now_ms
        self._out = out
        self.sampling = num_records // min(num_records, 500000)
        self.latencies = [0] * (num_records // self.sampling + 1)
        self.index = 0
        self.count = 0
        self.bytes = 0
        self.max_latency = 0
        self.total_latency = 0
        self.reporting_interval = reporting_interval_ms
        self._new_window()

    def _new_window(self):
        self.window_start = self._now_ms()
        self.window_count = 0
        self.window_max_latency = 0
        self.window_total_latency = 0
        self.window_bytes = 0

    def record(self, iteration, latency, size, time_ms):
        self.count += 1
        self.bytes += size
        self.total_latency += latency
        self.max_latency = max(self.max_latency, latency)
        self.window_count += 1
        self.window_bytes += size
        self.window_total_latency += latency
        self.window_max_latency = max(self.window_max_latency, latency)
        if iteration % self.sampling == 0:
            self.latencies[self.index] = latency
            self.index += 1
        if time_ms - self.window_start >= self.reporting_interval:
            self.print_window()
            self._new_window()

    def window_line(self):
        elapsed = self._now_ms() - self.window_start
        records_per_sec = java_divide(1000.0 * self.window_count, elapsed)
        mb_per_sec = java_divide(1000.0 * self.window_bytes, elapsed) / (1024.0 * 1024.0)
        return "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency." % (
            self.window_count,
            java_fixed(records_per_sec, 1),
            java_fixed(mb_per_sec, 2),
            java_fixed(java_divide(self.window_total_latency, self.window_count), 1),
            java_fixed(float(self.window_max_latency), 1),
        )

    def print_window(self):
        print(self.window_line(), file=self._out, flush=True)

    def percentiles(self, *fractions):
        size = min(self.index, len(self.latencies))
        ordered = sorted(self.latencies[:size]) + self.latencies[size:]
        return [ordered[int(fraction * size)] for fraction in fractions]

    def total_line(self):
        elapsed = self._now_ms() - self.start
        records_per_sec = java_divide(1000.0 * self.count, elapsed)
        mb_per_sec = java_divide(1000.0 * self.bytes, elapsed) / (1024.0 * 1024.0)
        p50, p95, p99, p999 = self.percentiles(0.5, 0.95, 0.99, 0.999)
        return (
            "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency, "
            "%d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th."
            % (
                self.count,
                java_fixed(records_per_sec, 6),
                java_fixed(mb_per_sec, 2),
                java_fixed(java_divide(self.total_latency, self.count), 2),
                java_fixed(float(self.max_latency), 2),
                p50,
                p95,
                p99,
                p999,
            )
        )

    def print_total(self):
        print(self.total_line(), file=self._out, flush=True)
