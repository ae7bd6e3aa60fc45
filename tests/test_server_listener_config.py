"""Several named listeners: listener.security.protocol.map, advertised.listeners, the inter-broker and
control plane listeners, validated with Kafka 2.5's KafkaConfig messages."""

import pytest

from kafka_zk.server.config.kafka_config import ConfigError, KafkaConfig

MAP = "INTERNAL:PLAINTEXT,EXTERNAL:SSL,CONTROL:SSL"
LISTENERS = "INTERNAL://127.0.0.1:9092,EXTERNAL://127.0.0.1:9093,CONTROL://127.0.0.1:9094"


def config(**props):
    return KafkaConfig(
        dict({"zookeeper.connect": "z"}, **{key.replace("_", "."): value for key, value in props.items()})
    )


def test_named_listeners_with_inter_broker_and_control_plane():
    cfg = config(
        listeners=LISTENERS,
        listener_security_protocol_map=MAP,
        inter_broker_listener_name="internal",
        control_plane_listener_name="CONTROL",
    )
    assert [(e.listener_name, e.port, e.security_protocol) for e in cfg.listeners] == [
        ("INTERNAL", 9092, "PLAINTEXT"),
        ("EXTERNAL", 9093, "SSL"),
        ("CONTROL", 9094, "SSL"),
    ]
    assert cfg.inter_broker_listener_name == "INTERNAL" and cfg.inter_broker_security_protocol == "PLAINTEXT"
    assert cfg.controller_listener_name == "CONTROL"


def test_security_inter_broker_protocol_names_the_listener():
    cfg = config(listeners="PLAINTEXT://:9092,SSL://:9093", security_inter_broker_protocol="SSL")
    assert cfg.inter_broker_listener_name == "SSL" and cfg.inter_broker_security_protocol == "SSL"
    assert cfg.controller_listener_name == "SSL"
    assert config().inter_broker_listener_name == "PLAINTEXT"


@pytest.mark.parametrize(
    "props, message",
    [
        (
            {
                "listeners": LISTENERS,
                "listener.security.protocol.map": MAP,
                "inter.broker.listener.name": "INTERNAL",
                "security.inter.broker.protocol": "PLAINTEXT",
            },
            "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.",
        ),
        (
            {"listeners": LISTENERS, "listener.security.protocol.map": MAP, "inter.broker.listener.name": "OTHER"},
            "Listener with name OTHER defined in inter.broker.listener.name not found in "
            "listener.security.protocol.map.",
        ),
        (
            {"listeners": LISTENERS, "listener.security.protocol.map": MAP},
            "requirement failed: inter.broker.listener.name must be a listener name defined in advertised.listeners. "
            "The valid options based on currently configured listeners are INTERNAL,EXTERNAL,CONTROL",
        ),
        (
            {"listeners": "SSL://:9093", "security.inter.broker.protocol": "TLS"},
            "Invalid security protocol `TLS` defined in security.inter.broker.protocol",
        ),
        (
            {"listeners": "PLAINTEXT://:9092", "listener.security.protocol.map": "PLAINTEXT:SECURE"},
            "Invalid security protocol `SECURE` defined in listener.security.protocol.map",
        ),
        (
            {"listeners": "PLAINTEXT://:9092,SSL://:9092"},
            "requirement failed: Each listener must have a different port, listeners: PLAINTEXT://:9092,SSL://:9092",
        ),
        ({"listeners": "PLAINTEXT://:9092,plaintext://:9093"}, "Each listener must have a different name"),
        (
            {"listeners": "PLAINTEXT://:9092", "advertised.listeners": "PLAINTEXT://:9092,SSL://h:9093"},
            "requirement failed: advertised.listeners listener names must be equal to or a subset of the ones "
            "defined in listeners. Found PLAINTEXT,SSL. The valid options based on the current configuration "
            "are PLAINTEXT",
        ),
        (
            {"listeners": "PLAINTEXT://:9092", "advertised.listeners": "PLAINTEXT://0.0.0.0:9092"},
            "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0",
        ),
        (
            {
                "listeners": LISTENERS,
                "listener.security.protocol.map": MAP,
                "inter.broker.listener.name": "INTERNAL",
                "control.plane.listener.name": "INTERNAL",
            },
            "requirement failed: control.plane.listener.name, when defined, should have a different value from the "
            "inter broker listener name. Currently they both have the value INTERNAL",
        ),
        (
            {
                "listeners": LISTENERS,
                "listener.security.protocol.map": MAP,
                "inter.broker.listener.name": "INTERNAL",
                "control.plane.listener.name": "NOPE",
            },
            "Listener with NOPE defined in control.plane.listener.name not found in listener.security.protocol.map.",
        ),
    ],
)
def test_listener_configs_are_checked_as_kafka_does(props, message):
    with pytest.raises(ConfigError) as error:
        KafkaConfig(dict({"zookeeper.connect": "z"}, **props))
    assert message in str(error.value)
