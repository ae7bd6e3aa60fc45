"""ReactorZkClient: KafkaZkClient's methods called from the reactor; each runs on the reactor's thread pool
(kazoo blocks) and answers a Deferred. The methods mirror KafkaZkClient's one for one, with their names and
parameters, so a reader (and a linter) sees what is called, and a test fake implements the same methods."""

from twisted.internet import threads

from kafka_zk.zk.zk_metrics import ZooKeeperClientMetrics


class ReactorZkClient:
    def __init__(self, client, reactor, metrics=None):
        """``metrics``: the MetricsRegistry that gets the ZooKeeper client metrics (zk_metrics); their session
        events are followed from now on, so call this before ``start``."""
        self.client = client
        self.reactor = reactor
        self.metrics = None
        if metrics is not None:
            self.metrics = ZooKeeperClientMetrics(metrics)
            kazoo = client.kazoo  # a KafkaZkClient's
            # on kazoo's thread: read the state kazoo is in now, hand both to the reactor
            client.add_session_listener(
                lambda state: reactor.callFromThread(self.metrics.on_state, state, kazoo.client_state)
            )

    def _on_thread(self, method, *args):
        started = self.reactor.seconds()
        answer = threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), method, *args)
        if self.metrics is not None:

            def answered(result):
                self.metrics.record_latency(started, self.reactor.seconds())
                return result

            answer.addBoth(answered)
        return answer

    def on_reactor(self, handler):
        """Wrap handler so that, called on a kazoo thread, it runs on the reactor thread instead."""

        def post(*args, **kwargs):
            self.reactor.callFromThread(handler, *args, **kwargs)

        return post

    def add_session_listener(self, listener):
        """listener(state) is called on the reactor thread for every session state change."""
        self.client.add_session_listener(self.on_reactor(listener))

    def allocate_producer_id_block(self, broker_id):
        return self._on_thread(self.client.allocate_producer_id_block, broker_id)

    def close(self):
        return self._on_thread(self.client.close)

    def conditional_update_partition_states(self, states):
        return self._on_thread(self.client.conditional_update_partition_states, states)

    def create_acl_change_notification(self, pattern_type, resource_type, name):
        return self._on_thread(self.client.create_acl_change_notification, pattern_type, resource_type, name)

    def create_acl_paths(self):
        return self._on_thread(self.client.create_acl_paths)

    def create_delegation_token_paths(self):
        return self._on_thread(self.client.create_delegation_token_paths)

    def create_isr_change_notification(self, partitions):
        return self._on_thread(self.client.create_isr_change_notification, partitions)

    def create_log_dir_event_notification(self, broker_id):
        return self._on_thread(self.client.create_log_dir_event_notification, broker_id)

    def create_notification(self, path_prefix, data):
        return self._on_thread(self.client.create_notification, path_prefix, data)

    def create_partition_states(self, states, controller_epoch, epoch_zk_version):
        return self._on_thread(self.client.create_partition_states, states, controller_epoch, epoch_zk_version)

    def create_persistent_paths(self):
        return self._on_thread(self.client.create_persistent_paths)

    def create_topic_assignment(self, topic, assignment, config=None):
        return self._on_thread(self.client.create_topic_assignment, topic, assignment, config)

    def create_token_change_notification(self, token_id):
        return self._on_thread(self.client.create_token_change_notification, token_id)

    def delete_delegation_token(self, token_id):
        return self._on_thread(self.client.delete_delegation_token, token_id)

    def delete_notifications(self, parent, names, epoch_zk_version=None):
        return self._on_thread(self.client.delete_notifications, parent, names, epoch_zk_version)

    def delete_partition_reassignment(self, epoch_zk_version):
        return self._on_thread(self.client.delete_partition_reassignment, epoch_zk_version)

    def delete_preferred_replica_election(self, epoch_zk_version):
        return self._on_thread(self.client.delete_preferred_replica_election, epoch_zk_version)

    def delete_topic_deletions(self, topics, epoch_zk_version):
        return self._on_thread(self.client.delete_topic_deletions, topics, epoch_zk_version)

    def delete_topic_znodes(self, topic, epoch_zk_version):
        return self._on_thread(self.client.delete_topic_znodes, topic, epoch_zk_version)

    def generate_broker_id(self, reserved_max=1000):
        return self._on_thread(self.client.generate_broker_id, reserved_max)

    def get_acl_patterns(self):
        return self._on_thread(self.client.get_acl_patterns)

    def get_all_acls(self):
        return self._on_thread(self.client.get_all_acls)

    def get_all_brokers(self):
        return self._on_thread(self.client.get_all_brokers)

    def get_children(self, path):
        return self._on_thread(self.client.get_children, path)

    def get_consumer_offsets(self, group, partitions):
        return self._on_thread(self.client.get_consumer_offsets, group, partitions)

    def get_controller_id(self):
        return self._on_thread(self.client.get_controller_id)

    def get_delegation_token_ids(self):
        return self._on_thread(self.client.get_delegation_token_ids)

    def get_delegation_tokens(self, token_ids):
        return self._on_thread(self.client.get_delegation_tokens, token_ids)

    def get_entity_config(self, entity_type, name):
        return self._on_thread(self.client.get_entity_config, entity_type, name)

    def get_entity_configs(self, entity_type, names):
        return self._on_thread(self.client.get_entity_configs, entity_type, names)

    def get_full_topic_assignments(self, topics):
        return self._on_thread(self.client.get_full_topic_assignments, topics)

    def get_isr_change_notifications(self):
        return self._on_thread(self.client.get_isr_change_notifications)

    def get_log_dir_event_notifications(self):
        return self._on_thread(self.client.get_log_dir_event_notifications)

    def get_notifications(self, parent):
        return self._on_thread(self.client.get_notifications, parent)

    def get_or_create_cluster_id(self, proposed=None):
        return self._on_thread(self.client.get_or_create_cluster_id, proposed)

    def get_partition_reassignment(self):
        return self._on_thread(self.client.get_partition_reassignment)

    def get_partition_states(self, partitions):
        return self._on_thread(self.client.get_partition_states, partitions)

    def get_preferred_replica_election(self):
        return self._on_thread(self.client.get_preferred_replica_election)

    def get_resource_acls(self, patterns):
        return self._on_thread(self.client.get_resource_acls, patterns)

    def get_topic_assignment(self, topic):
        return self._on_thread(self.client.get_topic_assignment, topic)

    def get_topic_assignments(self, topics):
        return self._on_thread(self.client.get_topic_assignments, topics)

    def get_topic_deletions(self):
        return self._on_thread(self.client.get_topic_deletions)

    def get_topics(self):
        return self._on_thread(self.client.get_topics)

    def mark_topic_for_deletion(self, topics):
        return self._on_thread(self.client.mark_topic_for_deletion, topics)

    def read_isr_change_notifications(self, names):
        return self._on_thread(self.client.read_isr_change_notifications, names)

    def read_log_dir_event_notifications(self, names):
        return self._on_thread(self.client.read_log_dir_event_notifications, names)

    def register_broker(self, info, timestamp_ms, jmx_port=-1):
        return self._on_thread(self.client.register_broker, info, timestamp_ms, jmx_port)

    def set_entity_config(self, entity_type, name, config, notify=True):
        return self._on_thread(self.client.set_entity_config, entity_type, name, config, notify)

    def set_or_create_delegation_token(self, token):
        return self._on_thread(self.client.set_or_create_delegation_token, token)

    def set_or_create_consumer_offset(self, group, topic, partition, offset):
        return self._on_thread(self.client.set_or_create_consumer_offset, group, topic, partition, offset)

    def set_topic_assignment(
        self, topic, assignment, adding_replicas=None, removing_replicas=None, epoch_zk_version=None
    ):
        return self._on_thread(
            self.client.set_topic_assignment, topic, assignment, adding_replicas, removing_replicas, epoch_zk_version
        )

    def start(self, timeout=None):
        return self._on_thread(self.client.start, timeout)

    def try_elect_controller(self, broker_id, timestamp_ms):
        return self._on_thread(self.client.try_elect_controller, broker_id, timestamp_ms)

    def update_resource_acls(self, pattern_type, resource_type, name, update):
        return self._on_thread(self.client.update_resource_acls, pattern_type, resource_type, name, update)

    def update_partition_states(self, states, controller_epoch, epoch_zk_version):
        return self._on_thread(self.client.update_partition_states, states, controller_epoch, epoch_zk_version)

    def watch_children(self, path, callback):
        return self._on_thread(self.client.watch_children, path, callback)

    def watch_data(self, path, callback):
        return self._on_thread(self.client.watch_data, path, callback)

    def watch_exists(self, path, callback):
        return self._on_thread(self.client.watch_exists, path, callback)
