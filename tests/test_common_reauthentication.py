"""KIP-368's rule for when a SASL client logs in again, shared by the blocking client and the brokers' connections."""

from kafka_zk.common.reauthentication import REAUTHENTICATE_AT, reauthenticate_after


def test_a_session_without_a_lifetime_is_never_renewed():
    assert reauthenticate_after(0) is None
    assert reauthenticate_after(-1) is None


def test_a_login_again_falls_between_85_and_95_percent_of_the_lifetime():
    asked = []

    def uniform(low, high):
        asked.append((low, high))
        return high

    assert reauthenticate_after(10_000, uniform) == 9.5
    assert asked == [REAUTHENTICATE_AT] == [(0.85, 0.95)]
    for _ in range(200):
        assert 8.5 <= reauthenticate_after(10_000) <= 9.5
