"""KafkaServer: one broker's service tree (ZooKeeper session, logs, replica manager, controller, listener)."""

import logging

from kazoo.exceptions import NodeExistsError
from twisted.application import service
from twisted.internet import defer, task

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.controller.controller import KafkaController
from kafka_zk.coordinator.group.decisions import group_config_from
from kafka_zk.coordinator.group.group_coordinator import GroupCoordinator
from kafka_zk.coordinator.group.group_metadata_manager import GroupMetadataManager
from kafka_zk.coordinator.transaction.producer_ids import ProducerIdManager
from kafka_zk.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka_zk.coordinator.transaction.transaction_marker_channel import TransactionMarkerChannel
from kafka_zk.coordinator.transaction.transaction_state_manager import TransactionStateManager
from kafka_zk.log.dir_failure import LogDirFailureChannel
from kafka_zk.log.log_manager import LogManager
from kafka_zk.net.broker_client import ListenerSecurity
from kafka_zk.security.acl_authorizer import authorizer_from_config
from kafka_zk.server import apis
from kafka_zk.server.admin_manager import AdminManager
from kafka_zk.server.config.config_changes import ConfigChangeListener
from kafka_zk.server.config.dynamic_broker_config import DYNAMIC_LOG_CONFIGS, DynamicBrokerConfig
from kafka_zk.server.config.topic_config import to_log_config
from kafka_zk.server.config.topic_config_cache import TopicConfigCache
from kafka_zk.server.controlled_shutdown import ControlledShutdown
from kafka_zk.server.delegation_token_manager import DelegationTokenManager
from kafka_zk.server.listeners import BrokerListeners, client_tls
from kafka_zk.server.log_cleaner_service import LogCleanerService
from kafka_zk.server.log_dir_failure_handler import LogDirFailureHandler
from kafka_zk.server.metadata_cache import MetadataCache
from kafka_zk.server.metrics.broker_metrics import HotPathMetrics
from kafka_zk.server.quota.client_quota_configs import ClientQuotaConfigs
from kafka_zk.server.quota.client_quotas import ClientQuotaManager
from kafka_zk.server.quota.replication_quota import BROKER_CONFIG_NAMES, ReplicationQuotas
from kafka_zk.server.replication.checkpoints import HighWatermarkCheckpoints, LeaderEpochCheckpointWriter
from kafka_zk.server.replication.fetch_session import FetchManager, FetchSessionCache
from kafka_zk.server.replication.isr_change_propagation import ISR_CHANGE_PROPAGATION_MS, IsrChangePropagation
from kafka_zk.server.replication.replica_alter_log_dirs import ReplicaAlterLogDirsManager
from kafka_zk.server.replication.replica_fetcher import ReplicaFetcherManager
from kafka_zk.server.replication.replica_manager import ReplicaManager
from kafka_zk.server.replication.replica_selector import selector_for
from kafka_zk.server.sasl_setup import BrokerSaslSetup, ScramCredentialConfigs
from kafka_zk.server.services import Lifecycle, PeriodicTask, PhaseTimer
from kafka_zk.zk.client import KafkaZkClient
from kafka_zk.zk.reactor_client import ReactorZkClient
from kafka_zk.zk.znodes import BrokerInfo, EndPoint

log = logging.getLogger(__name__)

# How often rolled segments are flushed and flush.ms is checked, at most (Kafka flushes a rolled segment at once
# on its scheduler; walking 10,000 logs every second costs more than the rare roll is worth).
FLUSH_CHECK_MS = 10000
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600000  # Kafka 2.5's Defaults.ProducerIdExpirationCheckIntervalMs
# Kafka's BrokerState values (kafka.server:type=KafkaServer,name=BrokerState)
NOT_RUNNING, STARTING, RUNNING_AS_BROKER, PENDING_CONTROLLED_SHUTDOWN, BROKER_SHUTTING_DOWN = 0, 1, 3, 6, 7

# The children whose stop ends a phase of the shutdown's timing line, and the phase's name.
_SHUTDOWN_PHASES = {
    "controlled shutdown": "controlled shutdown",
    "log cleaner": "controller, listener and coordinators",
    "replicas": "replicas",
    "logs": "logs",
    "ZooKeeper session": "ZooKeeper session",
}


class KafkaServer(service.MultiService):
    """The broker as a tree of child services, added in start() in order as each part is ready, stopped in
    reverse, one after another (see stopService):

    ZooKeeper session, logs, leader epoch checkpoints, replicas, log cleaner, transaction coordinator,
    group coordinator, admin, listener, controller, controlled shutdown, periodic tasks."""

    def __init__(self, config, reactor, zk_client_factory=KafkaZkClient):
        super().__init__()
        self.config = config
        self.reactor = reactor
        self.zk_client_factory = zk_client_factory
        self.broker_id = config.broker_id
        self.broker_epoch = -1
        self.cluster_id = None
        # every component records into this; metrics.prometheus.listener serves it
        self.metrics = MetricsRegistry(clock=reactor.seconds, enabled=config["metrics.enabled"])
        self.broker_state = NOT_RUNNING
        self.metrics.gauge("kafka.server", "KafkaServer", "BrokerState", lambda: self.broker_state)
        self.hot_path_metrics = HotPathMetrics(self.metrics, reactor)
        self.topic_stats = self.hot_path_metrics.topic_stats  # BrokerTopicMetrics, for the fetch handler
        self.inter_broker_listener_name = config.inter_broker_listener_name
        self.authorizer = None  # authorizer.class.name unset: every action is allowed
        self.sasl = BrokerSaslSetup(config, reactor)  # SASL listeners, SCRAM credentials, logins to other brokers
        self.control_requests = defer.DeferredLock()  # LeaderAndIsr, UpdateMetadata, StopReplica: one at a time
        self.dynamic_config = DynamicBrokerConfig(config, config.broker_id)  # static until start() reads ZooKeeper
        window = (config["quota.window.num"], config["quota.window.size.seconds"] * 1000)
        self.produce_quotas = ClientQuotaManager("producer_byte_rate", *window)
        self.fetch_quotas = ClientQuotaManager("consumer_byte_rate", *window)
        self.fetch_manager = FetchManager(
            FetchSessionCache(config["max.incremental.fetch.session.cache.slots"], metrics=self.metrics)
        )
        self.log_dir_failures = LogDirFailureChannel()
        self.exit_code = 0  # what the process exits with once stopped: 1 after every log dir failed
        self.started = defer.Deferred()

    # -- request dispatch --------------------------------------------------------------------------

    def request_dispatcher(self):
        """The API handlers bound to this broker's collaborators, for the listener: called once they all exist.
        What changes after the listener opens is given as a function that reads it when a request needs it: the
        broker epoch (set on each registration), the cluster id, and the controller (created once registered)."""
        return apis.Dispatcher(
            apis.bind_handlers(
                self,
                clock=self.reactor,
                broker_epoch=lambda: self.broker_epoch,
                cluster_id=lambda: self.cluster_id,
                controller=lambda: self.controller,
            ),
            serving=apis.CONNECTION_APIS,
        )

    # -- lifecycle ---------------------------------------------------------------------------------

    def startService(self):
        super().startService()
        self.broker_state = STARTING
        self.start().addCallbacks(self.started.callback, self._start_failed)

    def _start_failed(self, failure):
        log.error("broker failed to start: %s", failure.getTraceback())
        self.started.errback(failure)

    @defer.inlineCallbacks
    def start(self):
        yield self._connect_zookeeper()
        yield self._load_logs()
        yield self._load_configs()
        self._start_replicas()
        self._start_coordinators()
        yield self._start_authorizer()
        yield self._start_delegation_tokens()
        self._listen()
        self._serve_metrics()
        self.broker_epoch = yield self._register()
        self._make_controller()  # before any request but a connection's set-up is served: ControlledShutdown asks it
        self.dispatcher.serve(apis.CONTROLLER_APIS)
        log.info(
            "[KafkaServer id=%d] registered at epoch %d, serving on port %d",
            self.broker_id,
            self.broker_epoch,
            self.bound_port,
        )
        self.listeners.follow_dynamic_configs()
        yield self._start_controller()
        yield self._follow_changes()
        self._schedule_periodic_tasks()
        self.broker_state = RUNNING_AS_BROKER
        log.info("[KafkaServer id=%d] started", self.broker_id)
        return self

    @defer.inlineCallbacks
    def _connect_zookeeper(self):
        config = self.config
        zk_client = self.zk_client_factory(
            config["zookeeper.connect"], session_timeout_ms=config.zookeeper_session_timeout_ms
        )
        self.zk = ReactorZkClient(zk_client, self.reactor, self.metrics)
        self.addService(Lifecycle("ZooKeeper session", stop=self.zk.close))
        yield self.zk.start(config.zookeeper_connection_timeout_ms / 1000.0)
        yield self.zk.create_persistent_paths()
        self.cluster_id = yield self.zk.get_or_create_cluster_id()

    @defer.inlineCallbacks
    def _load_logs(self):
        """The log dirs' logs, once the broker id is known (it may be stored there, or generated)."""
        config = self.config
        epoch_checkpoints = LeaderEpochCheckpointWriter(self.reactor, self.log_dir_failures)
        self.log_manager = LogManager(
            config.log_dirs,
            to_log_config(config.log_config_defaults()),
            self.reactor,
            epoch_checkpoints.pending,
            self.log_dir_failures,
            metrics=self.metrics,
            max_producer_idle_ms=config["transactional.id.expiration.ms"],
        )
        self.addService(Lifecycle("logs", stop=self.log_manager.shutdown))
        # older epoch entries must not land after the final ones the logs write as they close
        self.addService(Lifecycle("leader epoch checkpoints", stop=epoch_checkpoints.wait_written))
        self.broker_id = yield self._resolve_broker_id()
        self.log_manager.check_meta(self.broker_id, self.cluster_id)
        self.log_manager.load_logs()

    @defer.inlineCallbacks
    def _load_configs(self):
        """Dynamic broker configs, replication and client quotas, and the topic configs built on them."""
        self.metadata_cache = MetadataCache(self.broker_id)
        self.dynamic_config = DynamicBrokerConfig(self.config, self.broker_id)
        yield self.reload_broker_configs()
        self.replication_quotas = ReplicationQuotas(self.broker_id, self.reactor)
        self.dynamic_config.add_listener(BROKER_CONFIG_NAMES, self.replication_quotas.on_broker_config)
        self.topic_configs = TopicConfigCache(self.dynamic_config, self.zk, self.replication_quotas.on_topic_config)
        self.dynamic_config.add_listener(
            sorted(DYNAMIC_LOG_CONFIGS), lambda _values: self.topic_configs.reconfigure_logs(self.log_manager)
        )
        self.client_quota_configs = ClientQuotaConfigs(self.zk, [self.produce_quotas, self.fetch_quotas])
        yield self.client_quota_configs.load()
        self.scram_credentials = ScramCredentialConfigs(self.zk, self.sasl.credentials)
        yield self.scram_credentials.load()

    def _start_replicas(self):
        """The replica manager with its fetchers and log-dir mover, and the log cleaner."""
        config, reactor = self.config, self.reactor
        self.high_watermark_checkpoints = HighWatermarkCheckpoints(reactor, self.log_manager, self.log_dir_failures)
        self.isr_changes = IsrChangePropagation(self.zk, reactor, self.broker_id)
        self.replica_manager = ReplicaManager(
            self.broker_id,
            self.log_manager,
            self.topic_configs.config,
            reactor,
            high_watermarks=self.high_watermark_checkpoints.read(),
            replica_lag_time_max_ms=config["replica.lag.time.max.ms"],
            isr_writer=self.isr_changes.write_isr,
            knows_partition=lambda tp: self.metadata_cache.partition_info(*tp) is not None,
            is_broker_alive=lambda broker_id: broker_id in self.metadata_cache.brokers,
            replica_selector=selector_for(config["replica.selector.class"]),
            broker_rack=self._rack_of,
            replication_quotas=self.replication_quotas,
            fetch_sessions=self.fetch_manager.cache,
            make_fetchers=lambda fetchable_changed: ReplicaFetcherManager(
                config,
                reactor,
                self.broker_id,
                self.log_dir_failures,
                self.replication_quotas.follower,
                fetchable_changed,
                security=self._security_to(self.inter_broker_listener_name),
                metrics=self.metrics,
                topic_stats=self.topic_stats,
            ),
            topic_stats=self.topic_stats,
            make_log_dir_mover=lambda get_partition: ReplicaAlterLogDirsManager(
                reactor,
                get_partition,
                self.log_manager,
                chunk_bytes=config["replica.fetch.max.bytes"],
                bytes_per_second=config["replica.alter.log.dirs.io.max.bytes.per.second"],
            ),
            metrics=self.metrics,
        )
        self.addService(Lifecycle("replicas", stop=self._stop_replicas))
        self.log_cleaner = LogCleanerService(
            self.reactor, self.log_manager, self.replica_manager, config, self.reactor, metrics=self.metrics
        )
        self.addService(Lifecycle("log cleaner", start=self.log_cleaner.start, stop=self.log_cleaner.stop))

    def _stop_replicas(self):
        self.replica_manager.shutdown()
        self.high_watermark_checkpoints.write_now(self.replica_manager.high_watermark_snapshot())

    def _start_coordinators(self):
        """The transaction and group coordinators, topic administration, and what a failed log dir takes down."""
        config = self.config
        self.producer_ids = ProducerIdManager(self.zk, self.broker_id)
        txn_state = TransactionStateManager(
            self.broker_id, config, self.replica_manager, self.reactor, metrics=self.metrics
        )
        self.txn_coordinator = TransactionCoordinator(
            txn_state,
            TransactionMarkerChannel(
                self.reactor,
                self.broker_id,
                self.metadata_cache,
                self.inter_broker_listener_name,
                txn_state,
                config["request.timeout.ms"],
                security=self._security_to(self.inter_broker_listener_name),
            ),
            self.producer_ids,
            self.reactor,
        )
        self.addService(Lifecycle("transaction coordinator", stop=self.txn_coordinator.shutdown))
        self.group_coordinator = GroupCoordinator(
            self.broker_id,
            group_config_from(config),
            GroupMetadataManager(self.broker_id, config, self.replica_manager, self.reactor, metrics=self.metrics),
            self.reactor,
            metrics=self.metrics,
        )
        self.addService(Lifecycle("group coordinator", stop=self.group_coordinator.shutdown))
        self.admin = AdminManager(
            config, self.metadata_cache, self.zk, self.broker_id, self.dynamic_config, self.reactor
        )
        self.addService(Lifecycle("admin", stop=self.admin.shutdown))
        failure_handler = LogDirFailureHandler(
            self.broker_id,
            self.replica_manager,
            self.log_manager,
            self.zk,
            self.group_coordinator,
            self.txn_coordinator,
            self._all_log_dirs_failed,
        )
        self.log_dir_failures.add_listener(
            lambda log_dir: self.reactor.callFromThread(failure_handler.on_log_dir_offline, log_dir)
        )

    @defer.inlineCallbacks
    def _start_authorizer(self):
        """The authorizer authorizer.class.name names, with every ACL loaded, before any request arrives."""
        self.authorizer = authorizer_from_config(self.config, self.zk, self.reactor)
        if self.authorizer is not None:
            yield self.authorizer.start()

    def _start_delegation_tokens(self):
        """The token manager (tokens loaded and followed when delegation.token.master.key is set); its cache is
        what SCRAM with tokenauth=true looks tokens up in."""
        self.token_manager = DelegationTokenManager.from_config(
            self.zk, self.reactor, self.config, cache=self.sasl.tokens
        )
        return self.token_manager.start()

    def _expire_delegation_tokens(self):
        """As Kafka 2.5's controller: only the active controller removes expired tokens."""
        if not self.controller.is_active:
            return None
        return self.token_manager.expire_tokens().addErrback(
            lambda failure: log.error("delegation token expiry failed: %s", failure.getTraceback())
        )

    def _listen(self):
        """A port for every listener; bound_port is the first listener's."""
        self.dispatcher = self.request_dispatcher()
        self.listeners = BrokerListeners(
            self.config,
            self.dynamic_config,
            self.reactor,
            self.dispatcher,
            self.config["socket.request.max.bytes"],
            self.sasl.authenticator_factory,
            socket_metrics=self.hot_path_metrics.socket,
        )
        for port in self.listeners.ports.values():
            self.addService(port)
        self.bound_port = self.listeners.bound_port(self.config.listeners[0].listener_name)

    def _serve_metrics(self):
        self.hot_path_metrics.start([self.produce_quotas, self.fetch_quotas])
        listener = self.config["metrics.prometheus.listener"]
        if listener:
            # Imported by the brokers that serve metrics only: twisted.web and prometheus_client lengthen a start.
            from kafka_zk.server.metrics.endpoint import PrometheusEndpoint

            self.prometheus_endpoint = PrometheusEndpoint(listener, self.metrics, self.reactor)
            self.addService(self.prometheus_endpoint)

    def _security_to(self, listener_name):
        """How this broker reaches other brokers' ``listener_name``: the TLS client side and the SASL login its
        security protocol needs."""
        return ListenerSecurity(
            client_tls(self.config, self.dynamic_config, listener_name), self.sasl.login(listener_name)
        )

    def _make_controller(self):
        controller_listener = self.config.controller_listener_name
        self.controller = KafkaController(
            self.broker_id,
            self.config,
            self.zk,
            self.reactor,
            controller_listener,
            self.dynamic_config,
            security=self._security_to(controller_listener),
            metrics=self.metrics,
        )
        self.addService(Lifecycle("controller", stop=self.controller.shutdown))
        if self.config["controlled.shutdown.enable"]:
            self.addService(
                ControlledShutdown(
                    self.config,
                    self.reactor,
                    self.metadata_cache,
                    self.broker_id,
                    lambda: self.broker_epoch,
                    security=self._security_to(self.inter_broker_listener_name),
                )
            )

    @defer.inlineCallbacks
    def _start_controller(self):
        yield self.controller.startup()
        self.dynamic_config.add_listener(["unclean.leader.election.enable"], self._on_unclean_default_changed)

    @defer.inlineCallbacks
    def _follow_changes(self):
        """/config/changes, and the ZooKeeper session (re-registering after it expired)."""
        yield ConfigChangeListener(
            self.zk,
            self.reactor,
            self.broker_id,
            self.apply_topic_overrides,
            self.reload_broker_configs,
            self._reload_user_and_client_configs,
        ).start()
        self._session_lost = False
        self.zk.add_session_listener(self._on_session_state)

    @defer.inlineCallbacks
    def _reload_user_and_client_configs(self, entity_paths):
        """Quotas and SCRAM credentials live side by side under /config/users."""
        yield self.client_quota_configs.reload(entity_paths)
        yield self.scram_credentials.reload(entity_paths)

    def _schedule_periodic_tasks(self):
        config, log_manager, replicas = self.config, self.log_manager, self.replica_manager
        periodic = service.MultiService()
        periodic.setName("periodic tasks")
        for name, interval_ms, function in [
            ("retention", config["log.retention.check.interval.ms"], replicas.enforce_retention),
            ("ISR shrink", config["replica.lag.time.max.ms"] / 2, replicas.shrink_isrs),
            ("ISR change propagation", ISR_CHANGE_PROPAGATION_MS, self.isr_changes.propagate),
            (
                "high watermark checkpoint",
                config["replica.high.watermark.checkpoint.interval.ms"],
                lambda: self.high_watermark_checkpoints.checkpoint(replicas.high_watermark_snapshot()),
            ),
            (
                "recovery point checkpoint",
                config["log.flush.offset.checkpoint.interval.ms"],
                log_manager.checkpoint_recovery_points,
            ),
            (
                "log start offset checkpoint",
                config["log.flush.start.offset.checkpoint.interval.ms"],
                log_manager.checkpoint_log_start_offsets,
            ),
            (
                "log flush",
                min(config["log.flush.scheduler.interval.ms"], FLUSH_CHECK_MS),
                lambda: log_manager.flush_dirty_logs(milliseconds(self.reactor)),
            ),
            (
                "offset expiration",
                config["offsets.retention.check.interval.ms"],
                self.group_coordinator.manager.expire_offsets,
            ),
            (
                "timed out transactions",
                config["transaction.abort.timed.out.transaction.cleanup.interval.ms"],
                lambda: self.txn_coordinator.abort_timed_out_transactions() and None,
            ),
            (
                "expired transactional ids",
                config["transaction.remove.expired.transaction.cleanup.interval.ms"],
                lambda: self.txn_coordinator.remove_expired_transactional_ids() and None,
            ),
            (
                "expired producer ids",
                PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS,
                lambda: log_manager.remove_expired_producers(milliseconds(self.reactor)),
            ),
            (
                "expired delegation tokens",
                config["delegation.token.expiry.check.interval.ms"],
                self._expire_delegation_tokens,
            ),
        ]:
            periodic.addService(PeriodicTask(name, interval_ms, function, self.reactor))
        self.addService(periodic)

    def _all_log_dirs_failed(self):
        self.exit_code = 1
        if self.reactor.running:
            self.reactor.stop()

    def _on_unclean_default_changed(self, values):
        """As Kafka's DynamicLogConfig: enabling unclean election lets the controller elect offline partitions."""
        if values["unclean.leader.election.enable"]:
            self.controller.enable_default_unclean_election()

    @defer.inlineCallbacks
    def _register(self):
        """Create /brokers/ids/<id>. A previous incarnation killed without closing its session leaves
        its ephemeral znode until that session times out: wait for it rather than fail."""
        deadline = self.reactor.seconds() + self.config.zookeeper_session_timeout_ms * 1.5 / 1000 + 5
        while True:
            try:
                epoch = yield self.zk.register_broker(self._broker_info(), milliseconds(self.reactor))
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
        for advertised in self.config.advertised_listeners:
            host = advertised.host or "localhost"
            port = self.listeners.bound_port(advertised.listener_name) if advertised.port == 0 else advertised.port
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
                lambda failure: log.error("re-registration failed: %s", failure.getTraceback())
            )

    @defer.inlineCallbacks
    def _reregister(self):
        self.broker_epoch = yield self._register()
        log.info(
            "[KafkaServer id=%d] re-registered at epoch %d after session expiry", self.broker_id, self.broker_epoch
        )
        self.controller.on_new_session()

    # -- configs -----------------------------------------------------------------------------------

    def prepare_topic_configs(self, topics):
        """Read the /config/topics overrides of topics not seen yet (a LeaderAndIsr, before creating logs)."""
        return self.topic_configs.prepare(topics)

    def apply_topic_overrides(self, topic, overrides):
        """New /config/topics overrides for a topic: later appends and this broker's logs use them."""
        self.topic_configs.update_overrides(topic, overrides)
        self.replica_manager.reconfigure_logs(topic)

    @defer.inlineCallbacks
    def reload_broker_configs(self):
        """Read /config/brokers/<default> and /config/brokers/<id> into the dynamic config."""
        default_name, own_name = self.dynamic_config.entity_names()
        overrides = yield self.zk.get_entity_configs("brokers", [default_name, own_name])
        self.dynamic_config.update(overrides.get(default_name, {}), overrides.get(own_name, {}))

    def on_metadata_updated(self):
        self.dispatcher.serve()  # the controller has told this broker about the cluster: clients may ask it
        self.admin.on_metadata_updated()

    # -- shutdown ----------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def stopService(self):
        """The children in reverse, each once the one started after it has stopped (MultiService's own
        stopService would stop them all at once); one log line says where the time went."""
        service.Service.stopService(self)
        log.info("[KafkaServer id=%d] shutting down", self.broker_id)
        phases = PhaseTimer(self.reactor.seconds)
        children = list(self)
        controlled = any(child.name == "controlled shutdown" for child in children)
        self.broker_state = PENDING_CONTROLLED_SHUTDOWN if controlled else BROKER_SHUTTING_DOWN
        for child in reversed(children):
            yield child.stopService()
            if child.name == "controlled shutdown":
                self.broker_state = BROKER_SHUTTING_DOWN
            if child.name in _SHUTDOWN_PHASES:
                phases.done(_SHUTDOWN_PHASES[child.name])
        self.broker_state = NOT_RUNNING
        log.info("[KafkaServer id=%d] shut down completed in %s", self.broker_id, phases)
