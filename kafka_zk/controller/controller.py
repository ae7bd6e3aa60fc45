"""KafkaController: election through /controller, and the event handlers that drive the state machines."""

import logging

from twisted.internet import defer

from kafka_zk.common.clock import milliseconds
from kafka_zk.common.metrics import MetricsRegistry
from kafka_zk.controller import events
from kafka_zk.controller.channel_manager import ControllerChannelManager
from kafka_zk.controller.cluster_state import load_cluster_state
from kafka_zk.controller.context import ControllerContext, LiveBroker
from kafka_zk.controller.controlled_shutdown import ControlledShutdown
from kafka_zk.controller.controller_metrics import ControllerStats, register_controller_metrics
from kafka_zk.controller.event_manager import ControllerEventManager
from kafka_zk.controller.leader_elections import LeaderElections
from kafka_zk.controller.leadership_writer import LeadershipWriter
from kafka_zk.controller.reassignment import PartitionReassignments
from kafka_zk.controller.request_sender import ControllerRequestSender
from kafka_zk.controller.requests import LEADER_AND_ISR, STOP_REPLICA
from kafka_zk.controller.state_changes import StateChanges
from kafka_zk.controller.topic_deletion import TopicDeletionManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.zk.znodes import (
    BrokerIdsZNode,
    ControllerZNode,
    DeleteTopicsZNode,
    IsrChangeNotificationZNode,
    LogDirEventNotificationZNode,
    PreferredReplicaElectionZNode,
    ReassignPartitionsZNode,
    TopicsZNode,
    TopicZNode,
)

log = logging.getLogger(__name__)


class KafkaController:
    """Every kazoo watch only posts to the reactor, which queues an event; events run one at a time, each by its
    handler in ``event_handlers``.
    ``dynamic_config`` (optional) gives the broker's current defaults; without it the static config does."""

    def __init__(self, broker_id, config, zk, reactor, listener_name, dynamic_config=None, security=None, metrics=None):
        """``listener_name``: the brokers' listener the controller sends its requests to (control plane, else
        inter-broker); ``security``: how to reach it (net.broker_client.ListenerSecurity); ``metrics``: the broker's
        MetricsRegistry (kafka.controller metrics)."""
        self.broker_id = broker_id
        self.security = security
        self.config = config
        self.zk = zk
        self.reactor = reactor
        self.listener_name = listener_name
        self.context = ControllerContext(broker_id)
        self.metrics = metrics if metrics is not None else MetricsRegistry()
        self.stats = ControllerStats(self.metrics)
        self.events = ControllerEventManager(self._process, reactor, self.metrics, self.stats.timer_for)
        self.active = False
        self.active_controller_id = -1
        self._watches_registered = False
        self._topic_watches = {}
        context = self.context
        self.requests = ControllerRequestSender(
            context,
            broker_id,
            config.inter_broker_listener_name,
            {STOP_REPLICA: self._on_stop_replica_response, LEADER_AND_ISR: self._on_leader_and_isr_response},
        )
        self.writer = LeadershipWriter(
            zk,
            context,
            broker_id,
            on_controller_moved=self._resign,
            unclean_elections=self.stats.unclean_leader_elections,
        )
        self.states = StateChanges(
            context,
            self.writer,
            self.requests,
            reactor,
            broker_id,
            broker_default=(dynamic_config.value if dynamic_config is not None else config.get),
        )
        self.deletion = TopicDeletionManager(
            context, zk, self.requests, config, broker_id, on_topic_deleted=self.forget_topic
        )
        self.elections = LeaderElections(
            context, zk, self.writer, self.requests, self.events, reactor, config, broker_id
        )
        self.reassignments = PartitionReassignments(context, zk, self.writer, self.requests, broker_id)
        self.shutdowns = ControlledShutdown(context, self.writer, self.requests, broker_id)
        register_controller_metrics(
            self.metrics,
            lambda: self.active,
            lambda: self.events.state,
            lambda: self.context,
            lambda: {tp: move.adding for tp, move in self.reassignments.in_progress.items()},
            lambda: [len(channel.queue) for channel in self.channels.channels.values()] if self.channels else [],
        )
        # Each event's handler is called with the event's fields.
        self.event_handlers = {
            events.Startup: self._elect,
            events.ControllerChange: self._handle_controller_change,
            events.Reelect: self._elect,
            events.Expire: self._resign,
            events.Shutdown: self._resign,
            events.BrokerChange: self._handle_broker_change,
            events.TopicChange: self._handle_topic_change,
            events.PartitionModifications: self._handle_partition_modifications,
            events.TopicDeletion: self.deletion.on_marked,
            events.PartitionReassignment: self.reassignments.on_znode,
            events.PreferredReplicaLeaderElection: self.elections.on_znode,
            events.IsrChangeNotification: self._handle_isr_changes,
            events.LogDirEventNotification: self._handle_log_dir_events,
            events.AutoPreferredReplicaLeaderElection: self.elections.auto_rebalance,
            events.UncleanLeaderElectionEnable: self._elect_offline_partitions,
            events.StopReplicaResponse: self.deletion.on_stop_replica_response,
            events.LeaderAndIsrResponseReceived: self._handle_replica_dirs,
            events.ControlledShutdown: self.shutdowns.handle,
            events.ReplicaLeaderElection: self._elect_leaders,
            events.AlterPartitionReassignments: self.reassignments.start,
            events.ListPartitionReassignments: self.reassignments.listing,
        }

    @property
    def is_active(self):
        return self.active

    @property
    def channels(self):
        """The channel manager to the live brokers while this broker is the controller, else None."""
        return self.requests.channels

    def _process(self, event):
        """Run one event from the queue. Only the election's events run on a broker that is not the controller; a
        request is answered either way."""
        handler = self.event_handlers[type(event)]
        if isinstance(event, events.ControllerRequest):
            return defer.maybeDeferred(
                lambda: handler(*event.arguments) if self.active else event.answer_if_not_controller()
            ).chainDeferred(event.reply)
        if self.active or event.on_every_broker:
            return handler(*event.arguments)
        return None

    def _ask(self, request_type, *arguments):
        """Queue a request event; a Deferred of its answer."""
        reply = defer.Deferred()
        self.events.put(request_type(*arguments, reply=reply))
        return reply

    # -- election --------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def startup(self):
        self.events.put(events.Startup())
        yield self.zk.watch_exists(ControllerZNode.PATH, self.zk.on_reactor(self._on_controller_znode_changed))

    def _on_controller_znode_changed(self, *_):
        self.events.put(events.ControllerChange())

    @defer.inlineCallbacks
    def _handle_controller_change(self):
        current = yield self.zk.get_controller_id()
        self.active_controller_id = -1 if current is None else current
        if self.active and current != self.broker_id:
            self._resign()
        if current is None:
            yield self._elect()

    @defer.inlineCallbacks
    def _elect(self):
        if self.active:
            return
        won, epoch, epoch_zk_version = yield self.zk.try_elect_controller(self.broker_id, milliseconds(self.reactor))
        if not won:
            current = yield self.zk.get_controller_id()
            self.active_controller_id = -1 if current is None else current
            log.info("[Controller id=%d] broker %s is the controller", self.broker_id, current)
            return
        self.active_controller_id = self.broker_id
        log.info("[Controller id=%d] elected controller with epoch %d", self.broker_id, epoch)
        log.info(
            "[Controller id=%d] %d successfully elected as the controller. Epoch incremented to %d and epoch zk "
            "version is now %d",
            self.broker_id,
            self.broker_id,
            epoch,
            epoch_zk_version,
        )
        yield self._on_become_controller(epoch, epoch_zk_version)

    def _resign(self):
        log.info("[Controller id=%d] resigning", self.broker_id)
        self.active = False
        self.elections.stop()
        self.reassignments.reset()
        self.requests.close()
        self.context.reset()
        log.info("[Controller id=%d] Resigned", self.broker_id)

    @defer.inlineCallbacks
    def _on_become_controller(self, epoch, epoch_zk_version):
        context = self.context
        context.reset()
        context.epoch = epoch
        context.epoch_zk_version = epoch_zk_version
        self.active = True
        self.requests.open(
            ControllerChannelManager(
                self.reactor,
                self.broker_id,
                self.listener_name,
                self.security,
                self.metrics,
                request_timeout_s=self.config["controller.socket.timeout.ms"] / 1000.0,
            )
        )
        if not self._watches_registered:
            zk = self.zk
            yield zk.watch_children(BrokerIdsZNode.PATH, zk.on_reactor(self._on_brokers_changed))
            yield zk.watch_children(TopicsZNode.PATH, zk.on_reactor(self._on_topics_changed))
            yield zk.watch_children(IsrChangeNotificationZNode.PATH, zk.on_reactor(self._on_isr_changes))
            yield zk.watch_children(LogDirEventNotificationZNode.PATH, zk.on_reactor(self._on_log_dir_events))
            yield zk.watch_children(DeleteTopicsZNode.PATH, zk.on_reactor(self._on_topic_deletions))
            yield zk.watch_exists(PreferredReplicaElectionZNode.PATH, zk.on_reactor(self._on_preferred_election_znode))
            yield zk.watch_exists(ReassignPartitionsZNode.PATH, zk.on_reactor(self._on_reassignment_znode))
            self._watches_registered = True
        started = self.reactor.seconds()
        log.info("[Controller id=%d] Initializing controller context", self.broker_id)
        full_assignments = yield load_cluster_state(self.zk, context, self._add_live_broker)
        log.info(
            "[Controller id=%d] Initialized broker epochs cache: Map(%s)",
            self.broker_id,
            ", ".join("%d -> %d" % (b, live.epoch) for b, live in sorted(context.live_brokers.items())),
        )
        live = context.live_broker_ids
        # The loaded state and the leaders elected for partitions that lost theirs go out first; the ISR
        # changes follow in a second batch. (LeaderAndIsr of every partition stays in the first: a broker must
        # not be named leader in Metadata before it has heard it is one.)
        # As Kafka's onControllerFailover, the live brokers go out first, alone: a Kafka broker follows only a leader
        # its metadata cache lists (a batch sends its LeaderAndIsr before its UpdateMetadata).
        brokers_first = self.requests.new_batch()
        brokers_first.add_update_metadata(context.live_brokers, [])
        self.requests.send(brokers_first)
        batch = self.requests.new_batch()
        batch.add_update_metadata(context.live_brokers)
        for tp in context.leadership:
            batch.add_leader_and_isr(context.assignments[tp], tp)
        loaded = self.reactor.seconds()
        yield self.states.to_online(batch, fresh=True)
        yield self.states.send_before_more_work(batch)
        elected = self.reactor.seconds()
        # Replicas on brokers that died before this controller was elected leave their ISRs now, not
        # when their leaders' lag checks notice (Kafka's replica state machine startup).
        dead = {broker for leadership in context.leadership.values() for broker in leadership.isr if broker not in live}
        holding_dead = [
            tp
            for tp, leadership in context.leadership.items()
            if any(broker in dead for broker in leadership.isr) and not self.deletion.is_deleting(tp[0])
        ]
        batch = self.requests.new_batch()
        yield self.states.remove_from_isrs(holding_dead, sorted(dead), batch)
        self.requests.send(batch)
        log.info(
            "[Controller id=%d] loaded %d topics, %d partitions, %d live brokers (state read in %.2fs, "
            "offline partitions elected in %.2fs, %d dead replicas out of ISRs in %.2fs)",
            self.broker_id,
            len(full_assignments),
            len(context.assignments),
            len(context.live_brokers),
            loaded - started,
            elected - loaded,
            len(holding_dead),
            self.reactor.seconds() - elected,
        )
        yield self._watch_topics(sorted(full_assignments))
        # Work left by the previous controller: ISR changes not yet propagated, deletions not finished.
        self._on_isr_changes()
        self._on_log_dir_events()
        self._on_topic_deletions()
        self._on_preferred_election_znode(True)
        self.elections.start()
        self.reassignments.reset()
        yield self.reassignments.resume(full_assignments)
        self._on_reassignment_znode(True)

    def _add_live_broker(self, broker):
        self.context.live_brokers[broker.id] = LiveBroker(broker.id, broker.epoch, broker)
        endpoint = broker.endpoint(self.listener_name) or broker.endpoints[0]
        self.channels.add_broker(broker.id, endpoint.host, endpoint.port)

    def on_session_expired(self):
        """Our ephemeral /controller is gone with the session: stop acting as controller now."""
        self.events.clear()
        self.events.put(events.Expire())

    def on_new_session(self):
        self.events.put(events.Reelect())

    # -- broker membership ------------------------------------------------------------------------

    def _on_brokers_changed(self, *_):
        self.events.put(events.BrokerChange())

    @defer.inlineCallbacks
    def _handle_broker_change(self):
        brokers = yield self.zk.get_all_brokers()
        current = {broker.id: broker for broker in brokers}
        known = self.context.live_brokers
        dead = [b for b in known if b not in current]
        bounced = [b for b in known if b in current and current[b].epoch != known[b].epoch]
        new = [b for b in current if b not in known]
        if not (dead or bounced or new):
            return
        log.info(
            "[Controller id=%d] broker change: new %s, dead %s, bounced %s",
            self.broker_id,
            sorted(new),
            sorted(dead),
            sorted(bounced),
        )
        log.info(
            "[Controller id=%d] Newly added brokers: %s, deleted brokers: %s, bounced brokers: %s, all live "
            "brokers: %s",
            self.broker_id,
            ",".join(map(str, sorted(new))),
            ",".join(map(str, sorted(dead))),
            ",".join(map(str, sorted(bounced))),
            ",".join(map(str, sorted(current))),
        )
        failed = dead + bounced
        self.context.forget_offline_dirs(new)
        for broker_id in failed:
            del self.context.live_brokers[broker_id]
            self.context.shutting_down.discard(broker_id)
            self.channels.remove_broker(broker_id)
        if failed:
            yield self._on_brokers_failure(failed)
        started = new + bounced
        for broker_id in started:
            self._add_live_broker(current[broker_id])
        if started:
            log.info(
                "[Controller id=%d] New broker startup callback for %s",
                self.broker_id,
                ",".join(map(str, sorted(started))),
            )
            yield self.states.on_brokers_startup(started)
            yield self.deletion.resume()

    def _on_brokers_failure(self, brokers):
        log.info(
            "[Controller id=%d] Broker failure callback for %s", self.broker_id, ",".join(map(str, sorted(brokers)))
        )
        self.context.forget_offline_dirs(brokers)
        return self.states.on_replicas_offline(
            {broker: set(self.context.partitions_on_broker(broker)) for broker in brokers}, "failed brokers"
        )

    # -- topics ------------------------------------------------------------------------------------

    def _on_topics_changed(self, *_):
        self.events.put(events.TopicChange())

    @defer.inlineCallbacks
    def _handle_topic_change(self):
        topics = yield self.zk.get_topics()
        new_topics = sorted(set(topics) - self.context.topics())
        if not new_topics:
            return
        assignments = yield self.zk.get_topic_assignments(new_topics)
        self.context.topic_configs.update((yield self.zk.get_entity_configs("topics", new_topics)))
        partitions = []
        for topic, assignment in assignments.items():
            self.context.add_topic(topic, assignment)
            partitions.extend((topic, partition) for partition in assignment)
        log.info("[Controller id=%d] new topics %s with %d partitions", self.broker_id, new_topics, len(partitions))
        yield self.states.on_new_partitions(partitions)
        yield self._watch_topics(new_topics)

    @defer.inlineCallbacks
    def _watch_topics(self, topics):
        """Watch each topic's znode for partitions added to it (kafka-topics --alter, CreatePartitions)."""
        for topic in topics:
            if topic not in self._topic_watches:
                self._topic_watches[topic] = yield self.zk.watch_data(
                    TopicZNode.path(topic),
                    self.zk.on_reactor(lambda data, stat, topic=topic: self._on_topic_modified(topic, stat)),
                )

    def _on_topic_modified(self, topic, stat):
        if stat is not None:
            self.events.put(events.PartitionModifications(topic))

    @defer.inlineCallbacks
    def _handle_partition_modifications(self, topic):
        if topic not in self.context.topics() or self.deletion.is_deleting(topic):
            return
        assignment = yield self.zk.get_topic_assignment(topic)
        added = {
            partition: replicas
            for partition, replicas in assignment.items()
            if (topic, partition) not in self.context.assignments
        }
        if not added:
            return
        log.info("[Controller id=%d] partitions %s added to topic %s", self.broker_id, sorted(added), topic)
        self.context.add_topic(topic, added)
        yield self.states.on_new_partitions([(topic, partition) for partition in sorted(added)])

    def _on_topic_deletions(self, *_):
        self.events.put(events.TopicDeletion())

    def forget_topic(self, topic):
        """A deleted topic leaves the controller's context and stops being watched."""
        self.context.remove_topic(topic)
        self.reassignments.forget_topic(topic)
        watch = self._topic_watches.pop(topic, None)
        if watch is not None:
            watch.cancel()

    # -- requests from brokers and admin clients ------------------------------------------------------

    def controlled_shutdown(self, broker_id, broker_epoch):
        """Move leadership off a broker that is shutting down. A Deferred of (error, remaining partitions):
        the replicated partitions it still leads (others could not take over)."""
        return self._ask(events.ControlledShutdown, broker_id, broker_epoch)

    def _on_preferred_election_znode(self, exists):
        if exists:
            self.events.put(events.PreferredReplicaLeaderElection())

    def elect_leaders(self, election_type, partitions):
        """ElectLeaders: a Deferred of {tp: error code}; partitions None means every partition."""
        return self._ask(events.ReplicaLeaderElection, election_type, partitions)

    def leaders_of(self, partitions):
        """{tp: the leader this controller last elected or loaded} for the partitions it knows."""
        leadership = self.context.leadership
        return {tp: leadership[tp].leader for tp in partitions if tp in leadership}

    def _elect_leaders(self, election_type, partitions):
        return self.elections.elect(
            election_type, sorted(self.context.assignments) if partitions is None else partitions
        )

    def enable_default_unclean_election(self):
        """unclean.leader.election.enable was turned on for the brokers: offline partitions may elect now."""
        self.events.put(events.UncleanLeaderElectionEnable())

    @defer.inlineCallbacks
    def _elect_offline_partitions(self):
        batch = self.requests.new_batch()
        yield self.states.to_online(batch)
        self.requests.send(batch)

    def _on_reassignment_znode(self, exists):
        if exists:
            self.events.put(events.PartitionReassignment())

    def alter_reassignments(self, targets):
        """AlterPartitionReassignments: a Deferred of {tp: error code} (targets: {tp: replicas or None})."""
        return self._ask(events.AlterPartitionReassignments, targets)

    def list_reassignments(self, partitions):
        return self._ask(events.ListPartitionReassignments, partitions)

    # -- notifications left by brokers: ISR changes and offline log dirs (KIP-112) --------------------------

    def _on_isr_changes(self, *_):
        self.events.put(events.IsrChangeNotification())

    @defer.inlineCallbacks
    def _handle_isr_changes(self):
        taken = yield self._take_notifications(
            self.zk.get_isr_change_notifications, self.zk.read_isr_change_notifications, IsrChangeNotificationZNode.PATH
        )
        if taken is None:
            return
        known = [tp for tp in taken[1] if tp in self.context.assignments]
        yield self.writer.refresh(known)
        batch = self.requests.new_batch()
        batch.add_update_metadata(self.context.live_brokers, known)
        self.requests.send(batch)
        yield self.reassignments.on_isr_changed(known)

    def _on_log_dir_events(self, *_):
        self.events.put(events.LogDirEventNotification())

    @defer.inlineCallbacks
    def _handle_log_dir_events(self):
        """A broker lost a log dir: ask it about every replica it holds with a LeaderAndIsr; its
        KAFKA_STORAGE_ERROR answers name the offline ones (_on_leader_and_isr_response)."""
        taken = yield self._take_notifications(
            self.zk.get_log_dir_event_notifications,
            self.zk.read_log_dir_event_notifications,
            LogDirEventNotificationZNode.PATH,
        )
        if taken is None:
            return
        names, brokers = taken
        live = [broker for broker in brokers if broker in self.context.live_brokers]
        log.info(
            "[Controller id=%d] log dir failure on brokers %s (of notifications %s)",
            self.broker_id,
            live,
            ",".join(names),
        )
        batch = self.requests.new_batch()
        for broker in live:
            for tp in self.context.partitions_on_broker(broker):
                if tp in self.context.leadership and not self.deletion.is_deleting(tp[0]):
                    batch.add_leader_and_isr([broker], tp)
        self.requests.send(batch)

    @defer.inlineCallbacks
    def _take_notifications(self, list_names, read, parent):
        """Read, then delete (fenced), the sequential notification znodes under ``parent``: (names, what they
        say), or None when there are none."""
        names = yield list_names()
        if not names:
            return None
        contents = yield read(names)
        yield self.zk.delete_notifications(parent, names, self.context.epoch_zk_version)
        return names, contents

    # -- answers from brokers ---------------------------------------------------------------------

    def _on_stop_replica_response(self, broker, response):
        self.events.put(events.StopReplicaResponse(broker, response))

    def _on_leader_and_isr_response(self, broker, response):
        answers = response.get("partition_errors") or []

        def answered(code):
            return [
                (answer["topic_name"], answer["partition_index"]) for answer in answers if answer["error_code"] == code
            ]

        offline = answered(Errors.KAFKA_STORAGE_ERROR)
        # Served replicas matter only to a broker known to have offline ones: most answers name thousands.
        online = answered(Errors.NONE) if broker in self.context.replicas_on_offline_dirs else []
        if offline or online:
            self.events.put(events.LeaderAndIsrResponseReceived(broker, offline, online))

    def _handle_replica_dirs(self, broker, offline, online):
        if broker not in self.context.live_brokers:
            return None
        newly = self.context.record_replica_dirs(broker, offline, online)
        if not newly:
            return None
        log.info(
            "[Controller id=%d] mark replicas %s on broker %d as offline",
            self.broker_id,
            ",".join("%s-%d" % tp for tp in sorted(newly)),
            broker,
        )
        return self.states.on_replicas_offline({broker: newly}, "replicas on an offline log dir of broker")

    # -- shutdown ---------------------------------------------------------------------------------

    def shutdown(self):
        """Resign once the event in progress (if any) has finished, waiting at most zookeeper.session.timeout.ms.

        An event whose ZooKeeper writes get no answer (ZooKeeper down or unreachable) never finishes, and Kafka
        2.5's controller then holds the broker's shutdown for good. After a whole session timeout without an answer
        this controller's session is as good as gone and another broker will be elected: it resigns without the
        event, which can only fail or be fenced by the next controller's epoch."""
        self.events.clear()
        self.events.put(events.Shutdown())
        return self.events.when_idle().addTimeout(
            self.config["zookeeper.session.timeout.ms"] / 1000.0,
            self.reactor,
            onTimeoutCancel=self._resign_without_stuck_event,
        )

    def _resign_without_stuck_event(self, result, timeout):
        log.warning(
            "[Controller id=%d] the controller event %s has not finished after %.0fs (is ZooKeeper "
            "reachable?): shutting down without it",
            self.broker_id,
            self.events.current,
            timeout,
        )
        self.events.clear()
        if self.active:
            self._resign()
