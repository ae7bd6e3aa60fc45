"""Topic and config administration on behalf of clients: CreateTopics, DeleteTopics, auto-creation, and the config
changes of AlterConfigs and IncrementalAlterConfigs."""

import logging
from collections import namedtuple

from twisted.internet import defer

from kafka_zk.common.topic_names import InvalidTopicName, collides, validate_topic_name
from kafka_zk.controller.assignment import (
    IncompleteRackInformationError,
    InvalidPartitionsError,
    InvalidReplicationFactorError,
    RackAwareMode,
    assign_replicas,
    check_assignment_fits,
    growth_start_index,
    racks_under,
)
from kafka_zk.protocol.errors import Errors
from kafka_zk.server.config.dynamic_broker_config import DEFAULT_ENTITY, config_type
from kafka_zk.server.config.kafka_config import ConfigError
from kafka_zk.server.config.topic_config import (
    UnknownConfigError,
    format_config_value,
    is_list_config,
    validate_topic_configs,
)

log = logging.getLogger(__name__)

TOPIC_RESOURCE = 2
BROKER_RESOURCE = 4
BROKER_LOGGER_RESOURCE = 8
CreateOutcome = namedtuple("CreateOutcome", "name error message num_partitions replication_factor configs")


class TopicExists(Exception):
    pass


class ConfigRequestError(Exception):
    """A config change refused as a malformed request (INVALID_REQUEST, with no resource named in the message)."""


class ConfigLevel:
    """One config resource's stored overrides, and the value in force of a config that it does not set."""

    def __init__(self, overrides, inherited_text, is_list):
        """``inherited_text(name)``: the text in force below this level (None if nothing sets it);
        ``is_list(name)``: whether the config is a list (raises UnknownConfigError for a topic config that is none)."""
        self.overrides = overrides
        self.inherited_text = inherited_text
        self.is_list = is_list


class _Waiter:
    def __init__(self, names, condition, done):
        self.names = names
        self.condition = condition
        self.done = done
        self.timer = None


class AdminManager:
    def __init__(self, config, metadata_cache, zk, broker_id, dynamic_config, clock):
        """``config``: the broker's KafkaConfig; ``metadata_cache``: what the topics, partitions and live brokers
        are; ``dynamic_config``: the DynamicBrokerConfig that validates broker config changes; ``clock``: times
        out the waits for topics to get leaders or go away (anything with callLater)."""
        self.config = config
        self.cache = metadata_cache
        self.zk = zk
        self.broker_id = broker_id
        self.dynamic_config = dynamic_config
        self.clock = clock
        self._waiters = []

    def _validate(self, name, num_partitions, replication_factor, assignment, configs, racks):
        """Returns (assignment, typed configs) or raises (error code, message); racks: {live broker: rack}."""
        config = self.config
        try:
            validate_topic_name(name)
        except InvalidTopicName as error:
            raise _Refused(Errors.INVALID_TOPIC_EXCEPTION, str(error))
        if self.cache.contains_topic(name):
            raise _Refused(Errors.TOPIC_ALREADY_EXISTS, "Topic '%s' already exists." % name)
        other = collides(name, self.cache.topics())
        if other is not None:
            raise _Refused(
                Errors.INVALID_TOPIC_EXCEPTION, "Topic '%s' collides with existing topics: %s" % (name, other)
            )
        if assignment and (num_partitions != -1 or replication_factor != -1):
            raise _Refused(
                Errors.INVALID_REQUEST,
                "Both numPartitions or replicationFactor and "
                "replicasAssignments were set. Both cannot be used at the same time.",
            )
        try:
            typed_configs = validate_topic_configs(configs)
        except ConfigError as error:
            raise _Refused(Errors.INVALID_CONFIG, str(error))
        live = sorted(racks)
        if assignment:
            if sorted(assignment) != list(range(len(assignment))):
                raise _Refused(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Unexpected existing replica assignment: partitions must be consecutive from 0",
                )
            unknown = sorted({b for replicas in assignment.values() for b in replicas} - set(live))
            if unknown:
                raise _Refused(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Unknown broker(s) in replica assignment: %s." % ", ".join(map(str, unknown)),
                )
            for replicas in assignment.values():
                if len(set(replicas)) != len(replicas) or not replicas:
                    raise _Refused(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "Duplicate or empty replica list in assignment: %s" % replicas,
                    )
        else:
            partitions = config["num.partitions"] if num_partitions == -1 else num_partitions
            factor = config["default.replication.factor"] if replication_factor == -1 else replication_factor
            try:
                assignment = assign_replicas(partitions, factor, racks)
            except IncompleteRackInformationError:  # Kafka answers an unexpected error, without its message
                raise _Refused(Errors.UNKNOWN_SERVER_ERROR, None)
            except InvalidPartitionsError as error:
                raise _Refused(Errors.INVALID_PARTITIONS, str(error))
            except InvalidReplicationFactorError as error:
                raise _Refused(Errors.INVALID_REPLICATION_FACTOR, str(error))
        return assignment, typed_configs

    @defer.inlineCallbacks
    def create_topics(self, specs, timeout_ms, validate_only, rack_aware_mode=None):
        """specs: [(name, num_partitions, replication_factor, {partition: replicas}, {config: value})].

        The live brokers' racks go to the assignment as they are (a CreateTopics request, as Kafka's
        AdminManager), or under ``rack_aware_mode`` (the broker's own creations use SAFE, as Kafka's KafkaApis)."""
        outcomes = []
        created = []
        racks = self.cache.alive_broker_racks()
        if rack_aware_mode is not None:
            racks = racks_under(rack_aware_mode, racks)
        for name, num_partitions, replication_factor, assignment, configs in specs:
            try:
                final, typed = self._validate(name, num_partitions, replication_factor, assignment, configs, racks)
                if not validate_only:
                    yield self._write_topic(name, final, configs)
                    created.append(name)
            except _Refused as refused:
                outcomes.append(CreateOutcome(name, refused.code, refused.message, -1, -1, {}))
                continue
            effective = dict(self.config.log_config_defaults())
            sources = {key: (value, 5) for key, value in effective.items()}  # 5 = DEFAULT_CONFIG
            sources.update({key: (value, 1) for key, value in typed.items()})  # 1 = DYNAMIC_TOPIC_CONFIG
            outcomes.append(CreateOutcome(name, Errors.NONE, None, len(final), len(final[0]), sources))
        if created and timeout_ms > 0:
            timed_out = yield self._wait(set(created), self._topics_have_leaders, timeout_ms)
            outcomes = [
                outcome._replace(
                    error=Errors.REQUEST_TIMED_OUT, message="Timed out waiting for the topic to have leaders"
                )
                if outcome.name in timed_out
                else outcome
                for outcome in outcomes
            ]
        return outcomes

    @defer.inlineCallbacks
    def _write_topic(self, name, assignment, configs):
        try:
            yield self.zk.create_topic_assignment(name, assignment, configs)
        except Exception as error:
            if type(error).__name__ in ("TopicExistsError", "NodeExistsError"):
                raise _Refused(Errors.TOPIC_ALREADY_EXISTS, "Topic '%s' already exists." % name)
            raise

    @defer.inlineCallbacks
    def auto_create_topic(self, name):
        """Create a topic with broker defaults for Metadata; returns the error code to report."""
        try:
            yield self.create_topics([(name, -1, -1, {}, {})], 0, False, rack_aware_mode=RackAwareMode.SAFE)
        except Exception:
            log.exception("auto-creation of topic %s failed", name)
            return Errors.UNKNOWN_SERVER_ERROR
        return Errors.LEADER_NOT_AVAILABLE

    @defer.inlineCallbacks
    def delete_topics(self, names, timeout_ms):
        outcomes = []
        marked = []
        for name in names:
            if not self.config["delete.topic.enable"]:
                outcomes.append((name, Errors.TOPIC_DELETION_DISABLED))
            elif not self.cache.contains_topic(name):
                outcomes.append((name, Errors.UNKNOWN_TOPIC_OR_PARTITION))
            else:
                marked.append(name)
        if marked:
            yield self.zk.mark_topic_for_deletion(marked)
        timed_out = set()
        if marked and timeout_ms > 0:
            timed_out = yield self._wait(set(marked), self._topics_gone, timeout_ms)
        outcomes.extend((name, Errors.REQUEST_TIMED_OUT if name in timed_out else Errors.NONE) for name in marked)
        return outcomes

    @defer.inlineCallbacks
    def create_partitions(self, requests, timeout_ms, validate_only):
        """requests: [(topic, total count, [[broker ids] per new partition] or None)] -> [(topic, code, msg)].

        As Kafka's AdminManager, the brokers' racks are taken under ENFORCED for the whole request: some brokers
        without a rack fail every topic with an unexpected error (and no message)."""
        try:
            racks = racks_under(RackAwareMode.ENFORCED, self.cache.alive_broker_racks())
        except IncompleteRackInformationError:
            return [(topic, Errors.UNKNOWN_SERVER_ERROR, None) for topic, _, _ in requests]
        outcomes = []
        waiting = {}
        for topic, count, new_assignment in requests:
            try:
                current = yield self._added_assignment(topic, count, new_assignment, racks)
            except _Refused as refused:
                outcomes.append((topic, refused.code, refused.message))
                continue
            if not validate_only:
                yield self.zk.set_topic_assignment(topic, current)
                waiting[topic] = count
            outcomes.append((topic, Errors.NONE, None))
        if waiting and timeout_ms > 0:
            timed_out = yield self._wait(
                set(waiting),
                lambda names: {
                    name
                    for name in names
                    if self.cache.partition_count(name) >= waiting[name] and name in self._topics_have_leaders({name})
                },
                timeout_ms,
            )
            outcomes = [
                (topic, Errors.REQUEST_TIMED_OUT, "Timed out waiting for the new partitions")
                if topic in timed_out
                else (topic, code, message)
                for topic, code, message in outcomes
            ]
        return outcomes

    @defer.inlineCallbacks
    def _added_assignment(self, topic, count, new_assignment, racks):
        """The topic's full assignment with count partitions, or raises _Refused; racks: {live broker: rack}."""
        if not self.cache.contains_topic(topic):
            raise _Refused(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '%s' does not exist." % topic)
        existing = yield self.zk.get_topic_assignment(topic)
        if not existing:
            raise _Refused(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '%s' does not exist." % topic)
        if count < len(existing):
            raise _Refused(
                Errors.INVALID_PARTITIONS,
                "Topic currently has %d partitions, which is higher than the requested %d." % (len(existing), count),
            )
        if count == len(existing):
            raise _Refused(Errors.INVALID_PARTITIONS, "Topic already has %d partitions." % count)
        factor = len(existing[0])
        live = sorted(racks)
        added = count - len(existing)
        try:
            check_assignment_fits(count, factor)
        except InvalidPartitionsError as error:
            raise _Refused(Errors.INVALID_PARTITIONS, str(error))
        if new_assignment is not None:
            if len(new_assignment) != added:
                raise _Refused(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Increasing the number of partitions by %d "
                    "but %d assignments provided." % (added, len(new_assignment)),
                )
            unknown = sorted({b for replicas in new_assignment for b in replicas} - set(live))
            if unknown:
                raise _Refused(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Unknown broker(s) in replica assignment: %s." % ", ".join(map(str, unknown)),
                )
            if any(len(replicas) != factor or len(set(replicas)) != factor for replicas in new_assignment):
                raise _Refused(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Inconsistent replication factor between partitions, partition 0 has %d." % factor,
                )
            additions = {len(existing) + index: list(replicas) for index, replicas in enumerate(new_assignment)}
        else:
            try:
                additions = assign_replicas(
                    added,
                    factor,
                    racks,
                    start_index=growth_start_index(live, existing[0][0]),
                    start_partition=len(existing),
                )
            except InvalidReplicationFactorError as error:
                raise _Refused(Errors.INVALID_REPLICATION_FACTOR, str(error))
        full = dict(existing)
        full.update(additions)
        return full

    @defer.inlineCallbacks
    def alter_configs(self, resources, validate_only):
        """resources: [(resource type, name, changes)] with changes(level) returning the resource's new overrides
        from its ConfigLevel, or raising ConfigError, UnknownConfigError or ConfigRequestError. Topics (type 2)
        and brokers (type 4). Returns [(code, message)] as Kafka 2.5 answers."""
        outcomes = []
        for resource_type, name, changes in resources:
            if resource_type == TOPIC_RESOURCE:
                outcome = yield self._alter_topic_configs(name, changes, validate_only)
            elif resource_type == BROKER_RESOURCE:
                outcome = yield self._alter_broker_configs(name, changes, validate_only)
            elif resource_type == BROKER_LOGGER_RESOURCE:
                outcome = (
                    Errors.INVALID_REQUEST,
                    "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER",
                )
            else:
                outcome = (Errors.INVALID_REQUEST, "Unsupported resource type %d" % resource_type)
            outcomes.append(outcome)
        return outcomes

    @defer.inlineCallbacks
    def _alter_topic_configs(self, name, changes, validate_only):
        try:
            validate_topic_name(name)
        except InvalidTopicName as error:
            return (Errors.INVALID_TOPIC_EXCEPTION, str(error))
        if not (yield self.zk.get_topic_assignment(name)):
            # Kafka 2.5's AdminOperationException: no ApiException, so an unexpected error with its message
            return (Errors.UNKNOWN_SERVER_ERROR, 'Topic "%s" does not exist.' % name)
        defaults = self.dynamic_config.log_config_defaults()
        level = ConfigLevel(
            (yield self.zk.get_entity_config("topics", name)),
            lambda config: format_config_value(defaults[config]),
            _topic_config_is_list,
        )
        try:
            updated = _changed(changes, level, validate_topic_configs, "ConfigResource(type=TOPIC, name='%s')" % name)
        except _Refused as refusal:
            return (refusal.code, refusal.message)
        if not validate_only:
            yield self.zk.set_entity_config("topics", name, updated, True)
        return (Errors.NONE, None)

    @defer.inlineCallbacks
    def _alter_broker_configs(self, name, changes, validate_only):
        """Dynamic configs of this broker (name = its id) or of every broker (name = ""), as Kafka's AdminManager."""
        description = "ConfigResource(type=BROKER, name='%s')" % name
        if name != "":
            try:
                broker_id = int(name)
            except ValueError:
                return (
                    Errors.INVALID_REQUEST,
                    'Invalid config value for resource %s: For input string: "%s"' % (description, name),
                )
            if broker_id != self.broker_id:
                return (
                    Errors.INVALID_REQUEST,
                    "Unexpected broker id, expected %d, but received %s" % (self.broker_id, name),
                )
        per_broker = name != ""
        level = ConfigLevel(
            (yield self.zk.get_entity_config("brokers", name if per_broker else DEFAULT_ENTITY)),
            lambda config: self.dynamic_config.inherited_text(config, per_broker),
            lambda config: config_type(config) == "list",
        )
        try:
            updated = _changed(
                changes, level, lambda props: self.dynamic_config.validate(props, per_broker), description
            )
        except _Refused as refusal:
            return (refusal.code, refusal.message)
        if not validate_only:
            yield self.zk.set_entity_config("brokers", name if per_broker else DEFAULT_ENTITY, updated, True)
        return (Errors.NONE, None)

    def wait_for_leaders(self, leaders, timeout_ms):
        """ElectLeaders' wait (Kafka's DelayedElectLeader): a Deferred of the partitions of {tp: elected leader}
        whose leader this broker's metadata does not show yet when timeout_ms has passed (empty if all do)."""

        def shown(partitions):
            return {
                tp
                for tp in partitions
                if (info := self.cache.partition_info(*tp)) is not None and info.leader == leaders[tp]
            }

        return self._wait(set(leaders), shown, timeout_ms)

    def _topics_have_leaders(self, names):
        live = set(self.cache.alive_broker_ids())
        return {
            name
            for name in names
            if self.cache.contains_topic(name)
            and all(info.leader in live for info in self.cache.partitions[name].values())
        }

    def _topics_gone(self, names):
        return {name for name in names if not self.cache.contains_topic(name)}

    def _wait(self, names, condition, timeout_ms):
        """A Deferred firing with the names not satisfied when the timeout passed (empty if all were)."""
        done = defer.Deferred()
        waiter = _Waiter(set(names), condition, done)
        waiter.names -= condition(waiter.names)
        if not waiter.names:
            done.callback(set())
            return done
        self._waiters.append(waiter)
        waiter.timer = self.clock.callLater(timeout_ms / 1000.0, self._expire, waiter)
        return done

    def _expire(self, waiter):
        if waiter in self._waiters:
            self._waiters.remove(waiter)
            waiter.done.callback(set(waiter.names))

    def on_metadata_updated(self):
        for waiter in list(self._waiters):
            waiter.names -= waiter.condition(waiter.names)
            if not waiter.names:
                self._waiters.remove(waiter)
                if waiter.timer.active():
                    waiter.timer.cancel()
                waiter.done.callback(set())

    def shutdown(self):
        for waiter in self._waiters:
            if waiter.timer is not None and waiter.timer.active():
                waiter.timer.cancel()
        self._waiters = []


def _topic_config_is_list(name):
    try:
        return is_list_config(name)
    except KeyError:
        raise UnknownConfigError("Unknown topic config name: %s" % name) from None


def _changed(changes, level, validate, description):
    """The resource's new overrides, validated; else _Refused with Kafka 2.5's answer (a bad value is an invalid
    request naming the resource)."""
    try:
        updated = changes(level)
        validate(updated)
    except UnknownConfigError as error:
        raise _Refused(Errors.INVALID_CONFIG, str(error))
    except ConfigRequestError as error:
        raise _Refused(Errors.INVALID_REQUEST, str(error))
    except (ConfigError, ValueError) as error:
        message = "Invalid config value for resource %s: %s" % (description, error)
        log.info(message)
        raise _Refused(Errors.INVALID_REQUEST, message)
    return updated


class _Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
