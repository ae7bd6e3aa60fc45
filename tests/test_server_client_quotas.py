"""ClientQuotaManager: Kafka's quota lookup order, sampled rate and throttle time, on an injected clock."""

import pytest

from kafka_zk.common.sampled_stats import SampledRate
from kafka_zk.server.config.kafka_config import ConfigError
from kafka_zk.server.quota.client_quotas import DEFAULT, ClientQuotaManager
from kafka_zk.server.quota.quota_configs import scram_credential, validate_quota_configs
from kafka_zk.zk.znodes import sanitize


def test_rate_is_measured_over_at_least_ten_full_windows():
    rate = SampledRate(samples=11, window_ms=1000)
    rate.record(5000, 0)
    assert rate.window_size_ms(0) == 10000
    assert rate.measure(0) == 500.0
    rate.record(5000, 10500)
    assert rate.window_size_ms(10500) == 10500
    assert rate.measure(10500) == pytest.approx(10000 / 10.5)
    assert rate.measure(11001) == pytest.approx(5000 / 10.501)  # the first window expired


def test_most_specific_quota_wins_and_defaults_are_per_client():
    manager = ClientQuotaManager("producer_byte_rate")
    manager.update_quota(None, DEFAULT, 100)
    assert manager.quota_for("ANONYMOUS", "a") == (100.0, ("", "a"))
    manager.update_quota(None, "a", 200)
    assert manager.quota_for("ANONYMOUS", "a") == (200.0, ("", "a"))
    manager.update_quota(DEFAULT, None, 300)
    assert manager.quota_for("ANONYMOUS", "a") == (300.0, ("ANONYMOUS", ""))
    manager.update_quota("ANONYMOUS", DEFAULT, 400)
    assert manager.quota_for("ANONYMOUS", "b") == (400.0, ("ANONYMOUS", "b"))
    manager.update_quota("ANONYMOUS", "b", 500)
    assert manager.quota_for("ANONYMOUS", "b") == (500.0, ("ANONYMOUS", "b"))
    manager.update_quota("ANONYMOUS", "b", None)
    assert manager.quota_for("ANONYMOUS", "b")[0] == 400.0


def test_throttle_time_brings_the_rate_back_to_the_quota():
    manager = ClientQuotaManager("producer_byte_rate")
    assert manager.record("ANONYMOUS", "c", 10**6, 0) == 0  # no quota: never throttled
    manager.update_quota(None, "c", 1000)
    assert manager.record("ANONYMOUS", "c", 5000, 0) == 0  # 500 B/s over 10 s
    throttle = manager.record("ANONYMOUS", "c", 10000, 100)
    # 15000 B over 10.1 s (10 full windows + 100 ms): (15000/10.1 - 1000) / 1000 * 10100 ms
    assert throttle == 4900
    manager.unrecord("ANONYMOUS", "c", 10000, 100)
    assert manager.record("ANONYMOUS", "c", 0, 200) == 0


def test_a_large_burst_is_throttled_until_its_average_meets_the_quota():
    manager = ClientQuotaManager("consumer_byte_rate", samples=11, window_ms=1000)
    manager.update_quota(None, DEFAULT, 1000)
    assert manager.record("ANONYMOUS", "x", 100000, 0) == 90000  # (10000 - 1000) / 1000 * 10 s


def test_quota_config_validation_and_sanitizing():
    assert validate_quota_configs("clients", {"producer_byte_rate": "10", "request_percentage": "2.5"}) == {
        "producer_byte_rate": 10,
        "request_percentage": 2.5,
    }
    with pytest.raises(ValueError, match=r"requirement failed: Unknown Dynamic Configuration: Set\(SCRAM-SHA-256\)."):
        validate_quota_configs("clients", {"SCRAM-SHA-256": "x"})
    with pytest.raises(ConfigError, match="Not a number of type DOUBLE"):
        validate_quota_configs("users", {"request_percentage": "lots"})
    assert sanitize("CN=a b,O=*~") == "CN%3Da%20b%2CO%3D%2A%7E"


def test_scram_credential_is_rfc5802_for_a_known_salt():
    stored = scram_credential("SCRAM-SHA-256", "iterations=4096,password=pencil", salt=b"0123456789")
    fields = dict(item.split("=", 1) for item in stored.split(","))
    assert fields["iterations"] == "4096" and fields["salt"] == "MDEyMzQ1Njc4OQ=="
    with pytest.raises(ValueError, match="Iterations 10 is less than the minimum 4096 required for SCRAM-SHA-256"):
        scram_credential("SCRAM-SHA-256", "iterations=10,password=x")
