"""The one clock helper: milliseconds from an injected clock (any object with seconds(), e.g. the reactor or
twisted's task.Clock), as Kafka's Time.milliseconds."""


def milliseconds(clock):
    return int(clock.seconds() * 1000)
