"""A test clock set in milliseconds for components that take a clock (anything with seconds())."""

from fractions import Fraction


class MillisecondClock:
    """``now`` is the time in ms; tests set and advance it directly.

    seconds() is an exact fraction so that kafka_zk.common.clock.milliseconds(clock) == now for every
    value (a float now / 1000 turns some, e.g. 1001, into 1000.999...).
    """

    def __init__(self, now=1_000_000):
        self.now = now

    def seconds(self):
        return Fraction(self.now, 1000)
