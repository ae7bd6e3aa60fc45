"""Kafka's state-change log: the `state.change.logger` logger and the wording of its lines (controller and broker).

Kafka prefixes each line with who decided: "[Controller id=0 epoch=3] " on the controller, "[Broker id=1] " on a
broker, and prints partition states as its generated request classes print them. Per-partition lines are TRACE:
callers test ``tracing()`` once before a loop, so that nothing is formatted when TRACE is off.
"""

import logging

from kafka_zk.common.log4j import STATE_CHANGE_LOGGER, TRACE

logger = logging.getLogger(STATE_CHANGE_LOGGER)


def tracing():
    return logger.isEnabledFor(TRACE)


def controller_prefix(controller_id, epoch):
    return "[Controller id=%d epoch=%d] " % (controller_id, epoch)


def broker_prefix(broker_id):
    return "[Broker id=%d] " % broker_id


def trace(prefix, message, *args):
    logger.log(TRACE, prefix + message, *args)


def info(prefix, message, *args):
    logger.info(prefix + message, *args)


def warn(prefix, message, *args):
    logger.warning(prefix + message, *args)


def partition_name(tp):
    return "%s-%d" % (tp[0], tp[1])


def _java_list(values):
    return "[" + ", ".join(str(value) for value in values) + "]"


def scala_list(values):
    return "List(" + ", ".join(str(value) for value in values) + ")"


def scala_set(values):
    return "Set(" + ", ".join(str(value) for value in sorted(values)) + ")"


def leader_and_isr_text(leader, leader_epoch, isr, zk_version):
    """kafka.api.LeaderAndIsr's toString: LeaderAndIsr(leader=1, leaderEpoch=2, isr=List(1, 2), zkVersion=3)."""
    return "LeaderAndIsr(leader=%d, leaderEpoch=%d, isr=%s, zkVersion=%d)" % (
        leader,
        leader_epoch,
        scala_list(isr),
        zk_version,
    )


def leader_and_isr_partition_text(topic, state):
    """A LeaderAndIsr request's partition state as Kafka's LeaderAndIsrPartitionState prints it."""
    return (
        "LeaderAndIsrPartitionState(topicName='%s', partitionIndex=%d, controllerEpoch=%d, leader=%d, "
        "leaderEpoch=%d, isr=%s, zkVersion=%d, replicas=%s, addingReplicas=%s, removingReplicas=%s, isNew=%s)"
        % (
            topic,
            state["partition_index"],
            state["controller_epoch"],
            state["leader"],
            state["leader_epoch"],
            _java_list(state["isr"]),
            state["zk_version"],
            _java_list(state["replicas"]),
            _java_list(state.get("adding_replicas") or ()),
            _java_list(state.get("removing_replicas") or ()),
            "true" if state.get("is_new") else "false",
        )
    )


def update_metadata_partition_text(topic, state):
    """An UpdateMetadata request's partition state as Kafka's UpdateMetadataPartitionState prints it."""
    return (
        "UpdateMetadataPartitionState(topicName='%s', partitionIndex=%d, controllerEpoch=%d, leader=%d, "
        "leaderEpoch=%d, isr=%s, zkVersion=%d, replicas=%s, offlineReplicas=%s)"
        % (
            topic,
            state["partition_index"],
            state["controller_epoch"],
            state["leader"],
            state["leader_epoch"],
            _java_list(state["isr"]),
            state["zk_version"],
            _java_list(state["replicas"]),
            _java_list(state.get("offline_replicas") or ()),
        )
    )


def log_controller_requests(controller_id, epoch, requests):
    """The controller's lines for one batch: ``requests`` [(broker, (api key, version), body)] as
    ControllerRequestBatch.requests() gives them (LeaderAndIsr 4, StopReplica 5, UpdateMetadata 6)."""
    if not logger.isEnabledFor(logging.INFO):
        return
    prefix = controller_prefix(controller_id, epoch)
    detailed = tracing()
    update_metadata_brokers = [broker for broker, api, _ in requests if api[0] == 6]
    traced_metadata = False
    for broker, api, body in requests:
        if api[0] == 4:
            leaders = 0
            count = 0
            for topic in body["topic_states"]:
                for state in topic["partition_states"]:
                    count += 1
                    kind = "become-leader" if state["leader"] == broker else "become-follower"
                    leaders += kind == "become-leader"
                    if detailed:
                        trace(
                            prefix,
                            "Sending %s LeaderAndIsr request %s to broker %d for partition %s-%d",
                            kind,
                            leader_and_isr_partition_text(topic["topic_name"], state),
                            broker,
                            topic["topic_name"],
                            state["partition_index"],
                        )
            info(
                prefix,
                "Sending LeaderAndIsr request to broker %d with %d become-leader and %d become-follower partitions",
                broker,
                leaders,
                count - leaders,
            )
        elif api[0] == 6 and detailed and not traced_metadata:
            traced_metadata = True  # one body for every broker: Kafka traces each partition once, naming them all
            brokers = scala_set(update_metadata_brokers)
            for topic in body["topic_states"]:
                for state in topic["partition_states"]:
                    trace(
                        prefix,
                        "Sending UpdateMetadata request %s to brokers %s for partition %s-%d",
                        update_metadata_partition_text(topic["topic_name"], state),
                        brokers,
                        topic["topic_name"],
                        state["partition_index"],
                    )
        elif api[0] == 5:
            replicas = sum(len(topic["partition_indexes"]) for topic in body["topics"])
            info(
                prefix,
                "Sending a stop replica request (delete = %s) for %d replicas to broker %d",
                "true" if body["delete_partitions"] else "false",
                replicas,
                broker,
            )


# ---------------------------------------------------------------------------------------------------- broker side


def log_leader_and_isr_received(broker_id, correlation_id, controller_id, controller_epoch, topic_states):
    """``topic_states`` [(topic, LeaderAndIsr partition state)] of a request this broker is about to apply."""
    if not tracing():
        return
    prefix = broker_prefix(broker_id)
    for topic, state in topic_states:
        trace(
            prefix,
            "Received LeaderAndIsr request %s correlation id %d from controller %d epoch %d",
            leader_and_isr_partition_text(topic, state),
            correlation_id,
            controller_id,
            controller_epoch,
        )


def log_leader_and_isr_applied(broker_id, correlation_id, controller_id, controller_epoch, topic_states, errors):
    """The become-leader and become-follower transitions of the partitions applied without error (``errors``
    {(topic, partition): error code})."""
    if not tracing():
        return
    prefix = broker_prefix(broker_id)
    lines = []
    for topic, state in topic_states:
        if errors.get((topic, state["partition_index"]), 0):
            continue
        name = "%s-%d" % (topic, state["partition_index"])
        if state["leader"] == broker_id:
            lines.append(
                (
                    "become-leader transition for partition %s" % name,
                    "Stopped fetchers as part of become-leader request from controller %d epoch %d with "
                    "correlation id %d for partition %s (last update controller epoch %d)"
                    % (controller_id, controller_epoch, correlation_id, name, state["controller_epoch"]),
                )
            )
        else:
            lines.append(
                (
                    "become-follower transition for partition %s with leader %d" % (name, state["leader"]),
                    "Started fetcher to new leader as part of become-follower request from controller %d "
                    "epoch %d with correlation id %d for partition %s with leader %d"
                    % (controller_id, controller_epoch, correlation_id, name, state["leader"]),
                )
            )
    for transition, _ in lines:
        trace(
            prefix,
            "Handling LeaderAndIsr request correlationId %d from controller %d epoch %d starting the %s",
            correlation_id,
            controller_id,
            controller_epoch,
            transition,
        )
    for _, done in lines:
        trace(prefix, "%s", done)
    for transition, _ in lines:
        trace(
            prefix,
            "Completed LeaderAndIsr request correlationId %d from controller %d epoch %d for the %s",
            correlation_id,
            controller_id,
            controller_epoch,
            transition,
        )


def log_stale_controller(broker_id, request_name, correlation_id, controller_id, controller_epoch, known_epoch):
    warn(
        broker_prefix(broker_id),
        "Ignoring %s request from controller %d with correlation id %d since its "
        "controller epoch %d is old. Latest known controller epoch is %d",
        request_name,
        controller_id,
        correlation_id,
        controller_epoch,
        known_epoch,
    )


def log_update_metadata(broker_id, correlation_id, controller_id, controller_epoch, topic_states):
    """The metadata cache's lines for one UpdateMetadata: each partition cached or deleted (TRACE), and the
    counts (INFO)."""
    if not logger.isEnabledFor(logging.INFO):
        return
    prefix = broker_prefix(broker_id)
    detailed = tracing()
    deleted = 0
    for topic, state in topic_states:
        if state["leader"] == -2:
            deleted += 1
            if detailed:
                trace(
                    prefix,
                    "Deleted partition %s-%d from metadata cache in response to UpdateMetadata request "
                    "sent by controller %d epoch %d with correlation id %d",
                    topic,
                    state["partition_index"],
                    controller_id,
                    controller_epoch,
                    correlation_id,
                )
        elif detailed:
            trace(
                prefix,
                "Cached leader info %s for partition %s-%d in response to UpdateMetadata request sent by "
                "controller %d epoch %d with correlation id %d",
                update_metadata_partition_text(topic, state),
                topic,
                state["partition_index"],
                controller_id,
                controller_epoch,
                correlation_id,
            )
    info(
        prefix,
        "Add %d partitions and deleted %d partitions from metadata cache in response to UpdateMetadata "
        "request sent by controller %d epoch %d with correlation id %d",
        len(topic_states) - deleted,
        deleted,
        controller_id,
        controller_epoch,
        correlation_id,
    )


def log_stop_replica(broker_id, partitions, delete, errors):
    """``partitions`` [(topic, partition)] stopped (and deleted) by one StopReplica; ``errors`` their codes."""
    if not tracing():
        return
    prefix = broker_prefix(broker_id)
    flag = "true" if delete else "false"
    for (topic, partition), code in zip(partitions, errors):
        trace(prefix, "Handling stop replica (delete=%s) for partition %s-%d", flag, topic, partition)
        if not code:
            trace(prefix, "Finished handling stop replica (delete=%s) for partition %s-%d", flag, topic, partition)
