"""Topic configs altered at runtime (AlterConfigs, IncrementalAlterConfigs) reach every broker's logs."""

import pytest
from confluent_kafka.admin import (
    AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType)

from kafka_zk.protocol.errors import Errors
from kafka_zk.record.records import encode_batch
from tests.cluster_support import wait_for
from tests.raw_wire import create_topic, partition_leaders, produce, request


def describe(bootstrap, topic, name):
    response = request(bootstrap, 32, 1, {"resources": [
        {"resource_type": 2, "resource_name": topic, "configuration_keys": [name]}], "include_synonyms": False})
    entry = response["results"][0]["configs"][0]
    return entry["value"], entry["config_source"]


@pytest.mark.timeout(90)
@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
def test_incremental_and_full_alter_configs_take_effect(cluster):
    bootstrap = cluster.brokers[0].bootstrap
    assert create_topic(bootstrap, "tunable", assignments={0: [1]}) == Errors.NONE
    wait_for(lambda: partition_leaders(bootstrap, "tunable") == {0: 1}, message="leader")
    leader = cluster.broker(1).bootstrap
    big = encode_batch([(None, b"x" * 3000)])
    # Other brokers may learn of the leader before it has applied its LeaderAndIsr.
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.NONE, message="the leader to accept")

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    resource = ConfigResource(ResourceType.TOPIC, "tunable", incremental_configs=[
        ConfigEntry("max.message.bytes", "1000", incremental_operation=AlterConfigOpType.SET)])
    admin.incremental_alter_configs([resource])[resource].result(30)
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.MESSAGE_TOO_LARGE, message="new limit")
    assert describe(bootstrap, "tunable", "max.message.bytes") == ("1000", 1)  # DYNAMIC_TOPIC_CONFIG

    full = ConfigResource(ResourceType.TOPIC, "tunable", set_config={"retention.ms": "123456"})
    admin.alter_configs([full])[full].result(30)  # replaces every override: the size limit is gone
    wait_for(lambda: produce(leader, "tunable", 0, big)[0] == Errors.NONE, message="limit removed")
    assert describe(bootstrap, "tunable", "retention.ms") == ("123456", 1)
    assert describe(bootstrap, "tunable", "max.message.bytes")[1] == 5  # DEFAULT_CONFIG

    bad = ConfigResource(ResourceType.TOPIC, "tunable", set_config={"cleanup.policy": "shred"})
    with pytest.raises(Exception) as error:
        admin.alter_configs([bad])[bad].result(30)
    assert "cleanup.policy" in str(error.value)
    unknown = ConfigResource(ResourceType.TOPIC, "no-such-topic", set_config={"retention.ms": "1"})
    with pytest.raises(Exception):
        admin.alter_configs([unknown])[unknown].result(30)
