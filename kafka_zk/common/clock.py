"""The one clock helper: milliseconds from an injected clock (any object with seconds(), e.g. the reactor or
twisted's task.Clock), as Kafka's Time.milliseconds."""

from typing import Protocol


class Clock(Protocol):
    """What the broker's code asks of a clock: the time in seconds (twisted's IReactorTime.seconds)."""

    def seconds(self) -> float: ...


def milliseconds(clock: Clock) -> int:
    return int(clock.seconds() * 1000)
