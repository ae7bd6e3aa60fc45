"""KIP-368: when a SASL client logs in again on its connection, from the session lifetime the broker granted."""

import random
from collections.abc import Callable

# At 85 to 95 % of the lifetime: the margin covers network latency and clock drift; the spread keeps many
# connections from logging in at once.
REAUTHENTICATE_AT = (0.85, 0.95)


def reauthenticate_after(lifetime_ms: int, uniform: Callable[[float, float], float] = random.uniform) -> float | None:
    """Seconds from the end of a login to the next one on the same connection; None when the session never ends
    (a lifetime of 0: the broker does not ask for it)."""
    if lifetime_ms <= 0:
        return None
    return lifetime_ms / 1000 * uniform(*REAUTHENTICATE_AT)
