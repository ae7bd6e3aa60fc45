"""Kafka's sampled statistics (its metrics library's SampledStat): a rate and an average over recent windows.

Pure: the caller passes the time in milliseconds.
"""


class SampledRate:
    """Kafka's Rate over a SampledStat: `samples` windows of `window_ms`, the oldest purged as time passes."""

    def __init__(self, samples=11, window_ms=1000):
        self.num_samples = samples
        self.window_ms = window_ms
        self._samples = []  # [window start ms, total], oldest first

    def _purge(self, now_ms):
        expire_before = now_ms - self.num_samples * self.window_ms
        self._samples = [sample for sample in self._samples if sample[0] > expire_before]

    def record(self, value, now_ms):
        self._purge(now_ms)
        if not self._samples or now_ms >= self._samples[-1][0] + self.window_ms:
            self._samples.append([now_ms, 0.0])
            del self._samples[: -self.num_samples]
        self._samples[-1][1] += value

    def window_size_ms(self, now_ms):
        """The time the rate is measured over: at least num_samples - 1 full windows (Kafka's Rate.windowSize)."""
        self._purge(now_ms)
        oldest = self._samples[0][0] if self._samples else now_ms
        elapsed = now_ms - oldest
        full_windows = elapsed // self.window_ms
        minimum = self.num_samples - 1
        if full_windows < minimum:
            elapsed += (minimum - full_windows) * self.window_ms
        return elapsed

    def measure(self, now_ms):
        """Units per second."""
        self._purge(now_ms)
        total = sum(sample[1] for sample in self._samples)
        return total / (self.window_size_ms(now_ms) / 1000.0)


class SampledAvg(SampledRate):
    """Kafka's Avg over the same windows: the mean of the values recorded recently (0.0 when none were)."""

    def record(self, value, now_ms):
        self._purge(now_ms)
        if not self._samples or now_ms >= self._samples[-1][0] + self.window_ms:
            self._samples.append([now_ms, 0.0, 0])
            del self._samples[: -self.num_samples]
        self._samples[-1][1] += value
        self._samples[-1][2] += 1

    def measure(self, now_ms):
        self._purge(now_ms)
        count = sum(sample[2] for sample in self._samples)
        return sum(sample[1] for sample in self._samples) / count if count else 0.0
