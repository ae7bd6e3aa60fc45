"""A new controller's first read of ZooKeeper: live brokers, topic assignments and configs, partition states."""

from twisted.internet import defer

from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.leadership_writer import leader_isr


@defer.inlineCallbacks
def load_cluster_state(zk, context, add_live_broker):
    """Fill the (reset) context and initialize the state machines; ``add_live_broker(broker_info)`` is called for
    each registered broker as soon as it is read. Returns the topics' full assignments (with moves in progress)."""
    brokers = yield zk.get_all_brokers()
    for broker in brokers:
        add_live_broker(broker)
    topics = yield zk.get_topics()
    full_assignments = yield zk.get_full_topic_assignments(topics)
    for topic, full in full_assignments.items():
        context.add_topic(topic, full.partitions)
    context.topic_configs.update((yield zk.get_entity_configs("topics", topics)))
    states = yield zk.get_partition_states(list(context.assignments))
    for tp, state in states.items():
        if state is not None:
            context.leadership[tp] = leader_isr(state)
    sm.initialize_states(context)
    return full_assignments
