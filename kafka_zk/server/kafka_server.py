"""KafkaServer: one broker's service tree (ZooKeeper session, logs, replica manager, controller, listener)."""

import logging
import os


from kazoo.exceptions import NodeExistsError
from twisted.application import service
from twisted.internet import defer, task, threads
from twisted.python.failure import Failure

from kafka_zk.controller.controller import KafkaController
from kafka_zk.coordinator.group.decisions import group_config_from
from kafka_zk.coordinator.transaction.records import TRANSACTION_STATE_TOPIC
from kafka_zk.log.checkpoints import OffsetCheckpointFile
from kafka_zk.log.dir_failure import LogDirFailureChannel
from kafka_zk.log.leader_epoch_cache import DeferredCheckpoints
from kafka_zk.log.log_manager import LogManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.server import apis
from kafka_zk.server.admin_manager import AdminManager
from kafka_zk.net.broker_client import BrokerConnection
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.config.config_changes import ConfigChangeListener
from kafka_zk.server.config.dynamic_broker_config import DYNAMIC_LOG_CONFIGS, DynamicBrokerConfig
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from kafka_zk.coordinator.group.group_coordinator import GroupCoordinator
from kafka_zk.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka_zk.coordinator.group.records import OFFSETS_TOPIC
from kafka_zk.server.log_cleaner_service import LogCleanerService
from kafka_zk.server.metadata_cache import MetadataCache
from kafka_zk.coordinator.transaction.producer_ids import ProducerIdManager
from kafka_zk.server.replication.replica_fetcher import ReplicaFetcherManager
from kafka_zk.server.replication.replica_alter_log_dirs import ReplicaAlterLogDirsManager
from kafka_zk.server.replication.replica_manager import ReplicaManager
from kafka_zk.server.replication.replica_selector import selector_for
from kafka_zk.server.quota.replication_quota import BROKER_CONFIG_NAMES, ReplicationQuotas
from kafka_zk.net.socket_server import KafkaServerFactory
from kafka_zk.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka_zk.coordinator.transaction.transaction_marker_channel import TransactionMarkerChannel
from kafka_zk.coordinator.transaction.transaction_state_manager import TransactionStateManager
from kafka_zk.server.config.topic_config import effective_topic_config, to_log_config
from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.reactor_client import ReactorZkClient
from kafka_zk.zk.znodes import BrokerInfo, EndPoint, LeaderIsrAndControllerEpoch

log = logging.getLogger(__name__)

HIGH_WATERMARK_CHECKPOINT = "replication-offset-checkpoint"
# How often rolled segments are flushed and flush.ms is checked, at most (Kafka flushes a rolled segment at once
# on its scheduler; walking 10,000 logs every second costs more than the rare roll is worth).
FLUSH_CHECK_MS = 10000
ISR_CHANGE_PROPAGATION_MS = 500
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600000  # Kafka 2.5's Defaults.ProducerIdExpirationCheckIntervalMs


class KafkaServer(service.Service):
    """Starts its parts in order and stops them in reverse; see start() and stop()."""

    def __init__(self, config, reactor, zk_client_factory=KafkaZkClient):
        self.config = config
        self.reactor = reactor
        self.zk_client_factory = zk_client_factory
        self.broker_id = config.broker_id
        self.broker_epoch = -1
        self.cluster_id = None
        self.listener_name = config.listeners[0].listener_name
        self.control_requests = defer.DeferredLock()  # LeaderAndIsr, UpdateMetadata, StopReplica: one at a time
        self.topic_overrides = {}
        self._topic_configs = {}  # topic -> effective config, for the dynamic configs as of _topic_configs_of
        self._topic_configs_of = (None, None)
        self.dynamic_config = DynamicBrokerConfig(config, config.broker_id)  # static until start() reads ZooKeeper
        window = (config["quota.window.num"], config["quota.window.size.seconds"] * 1000)
        self.produce_quotas = ClientQuotaManager("producer_byte_rate", *window)
        self.fetch_quotas = ClientQuotaManager("consumer_byte_rate", *window)
        self.fetch_manager = FetchManager(FetchSessionCache(config["max.incremental.fetch.session.cache.slots"]))
        self._port = None
        self._tasks = []
        self._epoch_checkpoint_batch = None  # the Deferred of the epoch checkpoint batch being written
        self._last_high_watermark_checkpoints = None
        self.log_dir_failures = LogDirFailureChannel()
        self.exit_code = 0  # what the process exits with once stopped: 1 after every log dir failed
        self.started = defer.Deferred()

    def now_ms(self):
        return int(self.reactor.seconds() * 1000)

    # -- request dispatch --------------------------------------------------------------------------

    def request_dispatcher(self):
        """The API handlers bound to this broker's collaborators, for the listener: called once they all exist.
        What changes after the listener opens is given as a function that reads it when a request needs it: the
        broker epoch (set on each registration), the cluster id, and the controller (created once registered)."""
        return apis.Dispatcher(apis.bind_handlers(
            self, clock=self.reactor, broker_epoch=lambda: self.broker_epoch, cluster_id=lambda: self.cluster_id,
            controller=lambda: self.controller))

    # -- lifecycle ---------------------------------------------------------------------------------

    def startService(self):
        super().startService()
        self.start().addCallbacks(self.started.callback, self._start_failed)

    def _start_failed(self, failure):
        log.error("broker failed to start: %s", failure.getTraceback())
        self.started.errback(failure)

    @defer.inlineCallbacks
    def start(self):
        config = self.config
        zk_client = self.zk_client_factory(config["zookeeper.connect"],
                                           session_timeout_ms=config.zookeeper_session_timeout_ms)
        self.zk = ReactorZkClient(zk_client, self.reactor)
        yield self.zk.start(config.zookeeper_connection_timeout_ms / 1000.0)
        yield self.zk.create_persistent_paths()
        self.cluster_id = yield self.zk.get_or_create_cluster_id()
        self._epoch_checkpoints = DeferredCheckpoints()
        self._epoch_checkpoints.on_pending = self._schedule_epoch_checkpoints
        self.log_manager = LogManager(config.log_dirs, to_log_config(self.topic_config(None)), self.reactor,
                                      self._epoch_checkpoints, self.log_dir_failures)
        self.broker_id = yield self._resolve_broker_id()
        self.log_manager.check_meta(self.broker_id, self.cluster_id)
        self.log_manager.load_logs()
        self.metadata_cache = MetadataCache(self.broker_id)
        self.dynamic_config = DynamicBrokerConfig(config, self.broker_id)
        yield self.reload_broker_configs()
        self.dynamic_config.add_listener(sorted(DYNAMIC_LOG_CONFIGS), self._on_log_defaults_changed)
        yield self._load_quota_configs()
        self.replication_quotas = ReplicationQuotas(self.broker_id, self.reactor)
        self.dynamic_config.add_listener(BROKER_CONFIG_NAMES, self.replication_quotas.on_broker_config)
        self.replica_manager = ReplicaManager(
            self.broker_id, self.log_manager, self.topic_config, self.reactor, self._read_high_watermarks(),
            replica_lag_time_max_ms=config["replica.lag.time.max.ms"], isr_writer=self.write_isr,
            knows_partition=lambda tp: self.metadata_cache.partition_info(*tp) is not None,
            replica_selector=selector_for(config["replica.selector.class"]), broker_rack=self._rack_of)
        self.replica_manager.replication_quotas = self.replication_quotas
        self.replica_manager.fetch_sessions = self.fetch_manager.cache
        self.replica_manager.is_broker_alive = lambda broker_id: broker_id in self.metadata_cache.brokers
        self.replica_manager.fetchers = ReplicaFetcherManager(config, self.reactor, self.broker_id,
                                                              self.log_dir_failures,
                                                              self.replica_manager.fetchable_changed)
        self.replica_manager.fetchers.quota = self.replication_quotas.follower
        self.replica_manager.log_dir_mover = ReplicaAlterLogDirsManager(
            self.reactor, self.replica_manager, self.log_manager, chunk_bytes=config["replica.fetch.max.bytes"],
            bytes_per_second=config["replica.alter.log.dirs.io.max.bytes.per.second"])
        self._isr_changes = set()
        self._pending_isr_writes = {}
        self.admin = AdminManager(self)
        self.group_coordinator = GroupCoordinator(
            self.broker_id, group_config_from(config),
            GroupMetadataManager(self.broker_id, config, self.replica_manager, self.reactor), self.reactor)
        self.producer_ids = ProducerIdManager(self.zk, self.broker_id)
        txn_state = TransactionStateManager(self.broker_id, config, self.replica_manager, self.reactor)
        self.txn_coordinator = TransactionCoordinator(
            txn_state, TransactionMarkerChannel(self.reactor, self.broker_id, self.metadata_cache, self.listener_name,
                                                txn_state, config["request.timeout.ms"]),
            self.producer_ids, self.reactor)
        self.log_dir_failures.add_listener(lambda log_dir: self.reactor.callFromThread(self._on_log_dir_offline, log_dir))
        endpoint = config.listeners[0]
        factory = KafkaServerFactory(self.request_dispatcher(), self.reactor, config["socket.request.max.bytes"])
        self._port = self.reactor.listenTCP(endpoint.port, factory, interface=endpoint.host or "0.0.0.0")
        self.bound_port = self._port.getHost().port
        self.broker_epoch = yield self._register()
        log.info("[KafkaServer id=%d] registered at epoch %d, serving on port %d",
                 self.broker_id, self.broker_epoch, self.bound_port)
        self.controller = KafkaController(self.broker_id, config, self.zk, self.reactor, self.listener_name,
                                          self.dynamic_config)
        yield self.controller.startup()
        self.dynamic_config.add_listener(["unclean.leader.election.enable"], self._on_unclean_default_changed)
        yield ConfigChangeListener(self).start()
        self._session_lost = False
        self.zk.add_session_listener(self._on_session_state)
        self._schedule(config["log.retention.check.interval.ms"], self._retention)
        self._schedule(config["replica.lag.time.max.ms"] / 2, self.replica_manager.shrink_isrs)
        self._schedule(ISR_CHANGE_PROPAGATION_MS, self._propagate_isr_changes)
        self._schedule(config["replica.high.watermark.checkpoint.interval.ms"], self.checkpoint_high_watermarks)
        self._schedule(config["log.flush.offset.checkpoint.interval.ms"], self.log_manager.checkpoint_recovery_points)
        self._schedule(config["log.flush.start.offset.checkpoint.interval.ms"],
                       self.log_manager.checkpoint_log_start_offsets)
        self._schedule(min(config["log.flush.scheduler.interval.ms"], FLUSH_CHECK_MS),
                       lambda: self.log_manager.flush_dirty_logs(self.now_ms()))
        self._schedule(config["offsets.retention.check.interval.ms"], self.group_coordinator.manager.expire_offsets)
        self._schedule(config["transaction.abort.timed.out.transaction.cleanup.interval.ms"],
                       lambda: self.txn_coordinator.abort_timed_out_transactions() and None)
        self._schedule(config["transaction.remove.expired.transaction.cleanup.interval.ms"],
                       lambda: self.txn_coordinator.remove_expired_transactional_ids() and None)
        self._schedule(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, lambda: self.log_manager.remove_expired_producers(
            self.now_ms(), config["transactional.id.expiration.ms"]))
        self.log_cleaner = LogCleanerService(self.reactor, self.log_manager, self.replica_manager, config,
                                             self.reactor)
        self.log_cleaner.start()
        log.info("[KafkaServer id=%d] started", self.broker_id)
        return self

    @defer.inlineCallbacks
    def _load_quota_configs(self):
        """Every client and user quota stored under /config/clients and /config/users."""
        entities = ["clients/" + name for name in (yield self.zk.get_children("/config/clients"))]
        for user in (yield self.zk.get_children("/config/users")):
            entities.append("users/" + user)
            entities.extend("users/%s/clients/%s" % (user, client) for client in
                            (yield self.zk.get_children("/config/users/%s/clients" % user)))
        yield self.reload_quota_configs(entities)

    @defer.inlineCallbacks
    def reload_quota_configs(self, entity_paths):
        """Re-read the quota configs of entity paths such as "clients/c" or "users/u/clients/c"."""
        for entity_path in entity_paths:
            entity_type, _, name = entity_path.partition("/")
            config = yield self.zk.get_entity_config(entity_type, name)
            parts = entity_path.split("/")
            user = parts[1] if parts[0] == "users" else None
            client = parts[1] if parts[0] == "clients" else (parts[3] if len(parts) == 4 else None)
            for manager in (self.produce_quotas, self.fetch_quotas):
                raw = config.get(manager.config_name)
                try:
                    manager.update_quota(user, client, None if raw is None else float(raw))
                except ValueError:
                    log.warning("ignoring invalid quota %s=%s of %s", manager.config_name, raw, entity_path)

    def _on_unclean_default_changed(self, values):
        """As Kafka's DynamicLogConfig: enabling unclean election lets the controller elect offline partitions."""
        if values["unclean.leader.election.enable"] and getattr(self, "controller", None) is not None:
            self.controller.enable_default_unclean_election()

    def _on_log_defaults_changed(self, _values):
        """Dynamic log.* defaults changed: every log without its own override follows them."""
        if getattr(self, "log_manager", None) is None:
            return
        self.log_manager.default_config = to_log_config(self.topic_config(None))
        for log_ in self.log_manager.all_logs():
            log_.config = to_log_config(self.topic_config(log_.topic))

    @defer.inlineCallbacks
    def _register(self):
        """Create /brokers/ids/<id>. A previous incarnation killed without closing its session leaves
        its ephemeral znode until that session times out: wait for it rather than fail."""
        deadline = self.reactor.seconds() + self.config.zookeeper_session_timeout_ms * 1.5 / 1000 + 5
        while True:
            try:
                epoch = yield self.zk.register_broker(self._broker_info(), self.now_ms())
                return epoch
            except NodeExistsError as error:
                if self.reactor.seconds() > deadline:
                    raise
                log.info("[KafkaServer id=%d] %s; waiting for that session to expire", self.broker_id, error)
                yield task.deferLater(self.reactor, 0.5, lambda: None)

    @defer.inlineCallbacks
    def _resolve_broker_id(self):
        stored = self.log_manager.stored_broker_id()
        configured = self.config.broker_id
        if configured >= 0:
            return configured
        if stored is not None:
            return stored
        generated = yield self.zk.generate_broker_id(self.config["reserved.broker.max.id"])
        return generated

    def _broker_info(self):
        endpoints = []
        for listener, advertised in zip(self.config.listeners, self.config.advertised_listeners):
            host = advertised.host or "localhost"
            port = self.bound_port if advertised.port == 0 else advertised.port
            endpoints.append(EndPoint(advertised.listener_name, host, port, advertised.security_protocol))
        return BrokerInfo(self.broker_id, endpoints, self.config["broker.rack"])

    def _rack_of(self, broker_id):
        """A live broker's broker.rack, as the controller's UpdateMetadata told it; None if unknown."""
        broker = self.metadata_cache.brokers.get(broker_id)
        return broker.rack if broker is not None else None

    def _on_session_state(self, state):
        """After an expired session, kazoo opens a new one: register again and rejoin the election."""
        if not self.running:
            return
        if state == "LOST":
            log.warning("[KafkaServer id=%d] ZooKeeper session expired", self.broker_id)
            self._session_lost = True
            self.controller.on_session_expired()
        elif state == "CONNECTED" and self._session_lost and self.running:
            self._session_lost = False
            self._reregister().addErrback(
                lambda failure: log.error("re-registration failed: %s", failure.getTraceback()))

    @defer.inlineCallbacks
    def _reregister(self):
        self.broker_epoch = yield self._register()
        log.info("[KafkaServer id=%d] re-registered at epoch %d after session expiry",
                 self.broker_id, self.broker_epoch)
        self.controller.on_new_session()

    def _on_log_dir_offline(self, log_dir):
        """Kafka's LogDirFailureHandler: stop the replicas of the dir, tell the controller through
        /log_dir_event_notification, and shut down when no log dir is left."""
        offline = self.replica_manager.handle_log_dir_failure(log_dir)
        for topic, partition in offline:
            if topic == OFFSETS_TOPIC:
                self.group_coordinator.on_resignation(partition)
            elif topic == TRANSACTION_STATE_TOPIC:
                self.txn_coordinator.on_resignation(partition)
        if not self.log_manager.live_log_dirs:
            log.error("[KafkaServer id=%d] Shutdown broker because all log dirs in %s have failed", self.broker_id,
                      ", ".join(self.log_manager.log_dirs))
            self.exit_code = 1
            if self.reactor.running:
                self.reactor.stop()
            return
        self.zk.create_log_dir_event_notification(self.broker_id).addCallbacks(
            lambda name: log.info("[KafkaServer id=%d] log dir %s is offline: %d replicas stopped; controller told "
                                  "through %s", self.broker_id, log_dir, len(offline), name),
            lambda failure: log.error("[KafkaServer id=%d] could not write the log dir event notification: %s",
                                      self.broker_id, failure.getErrorMessage()))

    def _schedule(self, interval_ms, function):
        loop = task.LoopingCall(function)
        loop.clock = self.reactor
        loop.start(interval_ms / 1000.0, now=False).addErrback(
            lambda failure: log.error("periodic task failed: %s", failure.getTraceback()))
        self._tasks.append(loop)

    def _retention(self):
        started_later = []
        self.log_manager.cleanup_logs(self.now_ms(), self.replica_manager.high_watermark_snapshot(), started_later)
        if started_later:  # fetch sessions report log start offsets only of partitions said to have changed
            self.replica_manager.fetchable_changed(started_later)
            self.replica_manager.fetchers.log_starts_moved(started_later)

    def _read_high_watermarks(self):
        marks = {}
        for directory in self.log_manager.live_log_dirs:
            path = os.path.join(directory, HIGH_WATERMARK_CHECKPOINT)
            try:
                if os.path.exists(path):
                    marks.update(OffsetCheckpointFile(path).read())
            except OSError as error:
                self.log_dir_failures.report(directory, "Error while reading %s" % path, error)
        return marks

    def _high_watermark_checkpoints(self):
        """[(checkpoint path, {tp: high watermark})] for every live log dir, from the reactor's view now."""
        by_dir = {directory: {} for directory in self.log_manager.live_log_dirs}
        for tp, mark in self.replica_manager.high_watermark_snapshot().items():
            directory = self.log_manager.log_dir_of(*tp)
            if directory in by_dir:
                by_dir[directory][tp] = mark
        return [(os.path.join(directory, HIGH_WATERMARK_CHECKPOINT), marks) for directory, marks in by_dir.items()]

    def _schedule_epoch_checkpoints(self):
        if self._epoch_checkpoint_batch is None:
            self._epoch_checkpoint_batch = task.deferLater(self.reactor, 0, self._write_epoch_checkpoints)

    @defer.inlineCallbacks
    def _write_epoch_checkpoints(self):
        """Leader epoch checkpoints changed since the last batch, written together on a pool thread; one
        batch at a time, so a file's newest entries are always written last."""
        try:
            while True:
                items = self._epoch_checkpoints.drain()
                if not items:
                    break
                yield threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(),
                                                DeferredCheckpoints.write, items, self.log_dir_failures)
        except Exception:
            log.exception("[KafkaServer id=%d] writing leader epoch checkpoints failed", self.broker_id)
        finally:
            self._epoch_checkpoint_batch = None

    def checkpoint_high_watermarks(self):
        """Periodic: snapshot on the reactor, write and fsync on a pool thread (an fsync stalls requests);
        nothing to write when no high watermark moved since the last checkpoint."""
        checkpoints = self._high_watermark_checkpoints()
        if checkpoints == self._last_high_watermark_checkpoints:
            return defer.succeed(None)

        def written(_):
            self._last_high_watermark_checkpoints = checkpoints
        return threads.deferToThreadPool(self.reactor, self.reactor.getThreadPool(), _write_checkpoints,
                                         checkpoints, self.log_dir_failures).addCallback(written)

    # -- ISR changes by this broker as a partition leader ----------------------------------------

    def write_isr(self, partition, new_isr):
        """Conditionally update the partition's state znode: a Deferred of the new zk version, or None when
        the write lost a race. The writes asked for in one reactor turn go to ZooKeeper together, pipelined
        (a broker coming back makes its leaders expand thousands of ISRs at once)."""
        state = LeaderIsrAndControllerEpoch(partition.leader_id, partition.leader_epoch, list(new_isr),
                                            partition.controller_epoch, partition.zk_version)
        if not self._pending_isr_writes:
            self.reactor.callLater(0, self._write_pending_isrs)
        replaced = self._pending_isr_writes.pop(partition.tp, None)
        if replaced is not None:
            replaced[1].callback(None)
        done = defer.Deferred()
        self._pending_isr_writes[partition.tp] = (state, done)
        return done

    @defer.inlineCallbacks
    def _write_pending_isrs(self):
        pending, self._pending_isr_writes = self._pending_isr_writes, {}
        try:
            results = yield self.zk.conditional_update_partition_states({tp: state for tp, (state, _) in pending.items()})
        except Exception:
            failure = Failure()
            for _, done in pending.values():
                done.errback(failure)
            return
        for tp, (_, done) in pending.items():
            written, zk_version = results[tp]
            if written:
                self._isr_changes.add(tp)
            done.callback(zk_version if written else None)

    @defer.inlineCallbacks
    def _propagate_isr_changes(self):
        """Tell the controller, through one /isr_change_notification entry, which ISRs changed."""
        if not self._isr_changes:
            return
        changed, self._isr_changes = sorted(self._isr_changes), set()
        yield self.zk.create_isr_change_notification(changed)

    # -- topic configs -----------------------------------------------------------------------------

    def topic_config(self, topic):
        """The topic's effective config (broker defaults, dynamic ones included, under its own overrides), kept
        until either changes: every append and every partition of a LeaderAndIsr asks for it. Read-only."""
        dynamic = self.dynamic_config
        if self._topic_configs_of[0] is not dynamic or self._topic_configs_of[1] != dynamic.generation:
            self._topic_configs = {}
            self._topic_configs_of = (dynamic, dynamic.generation)
        config = self._topic_configs.get(topic)
        if config is None:
            config = self._topic_configs[topic] = effective_topic_config(
                dynamic.log_config_defaults(), self.topic_overrides.get(topic, {}))
        return config

    @defer.inlineCallbacks
    def prepare_topic_configs(self, topics):
        """Read the /config/topics overrides of topics we have not seen yet (before creating logs)."""
        for topic in topics:
            if topic not in self.topic_overrides:
                self.topic_overrides[topic] = yield self.zk.get_entity_config("topics", topic)
                self._topic_configs.pop(topic, None)
                self.replication_quotas.on_topic_config(topic, self.topic_overrides[topic])

    def apply_topic_overrides(self, topic, overrides):
        """New /config/topics overrides for a topic: later appends and this broker's logs use them."""
        self.topic_overrides[topic] = dict(overrides)
        self._topic_configs.pop(topic, None)
        self.replication_quotas.on_topic_config(topic, self.topic_overrides[topic])
        log_config = to_log_config(self.topic_config(topic))
        for (name, _), partition in self.replica_manager.partitions.items():
            if name == topic and partition.log is not None:
                partition.log.config = log_config

    @defer.inlineCallbacks
    def reload_broker_configs(self):
        """Read /config/brokers/<default> and /config/brokers/<id> into the dynamic config."""
        default_name, own_name = self.dynamic_config.entity_names()
        overrides = yield self.zk.get_entity_configs("brokers", [default_name, own_name])
        self.dynamic_config.update(overrides.get(default_name, {}), overrides.get(own_name, {}))

    def on_metadata_updated(self):
        self.admin.on_metadata_updated()

    # -- shutdown ----------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def _controlled_shutdown(self):
        """Ask the controller to move our leaderships away before we leave (Kafka's controlled shutdown)."""
        config = self.config
        for attempt in range(1, config["controlled.shutdown.max.retries"] + 1):
            controller_id = self.metadata_cache.controller_id
            endpoint = self.metadata_cache.endpoint(controller_id, config.inter_broker_listener_name) \
                if controller_id is not None else None
            if endpoint is not None:
                connection = BrokerConnection(self.reactor, endpoint[0], endpoint[1],
                                              "controlled-shutdown-%d" % self.broker_id)
                try:
                    response = yield connection.request(*CONTROLLED_SHUTDOWN, {
                        "broker_id": self.broker_id, "broker_epoch": self.broker_epoch}).addTimeout(
                        config["controller.socket.timeout.ms"] / 1000.0, self.reactor)
                    if response["error_code"] == Errors.NONE and not response["remaining_partitions"]:
                        log.info("[KafkaServer id=%d] controlled shutdown succeeded", self.broker_id)
                        return
                    log.info("[KafkaServer id=%d] controlled shutdown attempt %d: error %s, %d partitions "
                             "still led here", self.broker_id, attempt, Errors.from_code(response["error_code"]).name,
                             len(response["remaining_partitions"]))
                except Exception as error:
                    log.info("[KafkaServer id=%d] controlled shutdown attempt %d failed: %r",
                             self.broker_id, attempt, error)
                finally:
                    connection.close()
            if attempt < config["controlled.shutdown.max.retries"]:
                yield task.deferLater(self.reactor, config["controlled.shutdown.retry.backoff.ms"] / 1000.0,
                                      lambda: None)
        log.warning("[KafkaServer id=%d] proceeding to do an unclean shutdown as all the controlled shutdown "
                    "attempts failed", self.broker_id)

    @defer.inlineCallbacks
    def stopService(self):
        super().stopService()
        log.info("[KafkaServer id=%d] shutting down", self.broker_id)
        phases = _PhaseTimer(self.reactor.seconds)
        for loop in self._tasks:
            if loop.running:
                loop.stop()
        if getattr(self, "controller", None) is not None and self.config["controlled.shutdown.enable"]:
            yield self._controlled_shutdown()
            phases.done("controlled shutdown")
        if getattr(self, "controller", None) is not None:
            yield self.controller.shutdown()
        if self._port is not None:
            yield self._port.stopListening()
        if getattr(self, "admin", None) is not None:
            self.admin.shutdown()
        if getattr(self, "group_coordinator", None) is not None:
            self.group_coordinator.shutdown()
        if getattr(self, "txn_coordinator", None) is not None:
            self.txn_coordinator.shutdown()
        if getattr(self, "log_cleaner", None) is not None:
            self.log_cleaner.stop()
        phases.done("controller, listener and coordinators")
        if getattr(self, "replica_manager", None) is not None:
            self.replica_manager.shutdown()
            _write_checkpoints(self._high_watermark_checkpoints(), self.log_dir_failures)
            phases.done("replicas")
        if getattr(self, "log_manager", None) is not None:
            if self._epoch_checkpoint_batch is not None:
                yield self._epoch_checkpoint_batch  # older entries must not land after the final ones
            self.log_manager.shutdown()
            phases.done("logs")
        if getattr(self, "zk", None) is not None:
            yield self.zk.close()
            phases.done("ZooKeeper session")
        log.info("[KafkaServer id=%d] shut down completed in %s", self.broker_id, phases)




CONTROLLED_SHUTDOWN = (7, 3)


class _PhaseTimer:
    """Seconds spent in each named phase, for one log line: "2.10s (a 1.50s, b 0.60s)"."""

    def __init__(self, clock):
        self._clock = clock
        self._start = self._last = clock()
        self._phases = []

    def done(self, name):
        now = self._clock()
        self._phases.append((name, now - self._last))
        self._last = now

    def __str__(self):
        return "%.2fs (%s)" % (self._last - self._start,
                               ", ".join("%s %.2fs" % (name, seconds) for name, seconds in self._phases))


def _write_checkpoints(checkpoints, failures):
    """Write each dir's high watermark checkpoint; an I/O error takes that dir offline (any thread)."""
    for path, marks in checkpoints:
        log_dir = os.path.dirname(path)
        if failures.is_offline(log_dir):
            continue
        try:
            OffsetCheckpointFile(path).write(marks)
        except OSError as error:
            failures.report(log_dir, "Error while writing %s" % path, error)
