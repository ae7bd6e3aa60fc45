"""KafkaController: election through /controller, and the event handlers that drive the state machines."""

import logging

from twisted.internet import defer

from kafka_zk.controller import state_machines as sm
from kafka_zk.controller.channel_manager import ControllerChannelManager
from kafka_zk.controller.context import ControllerContext, LeaderIsr, LiveBroker
from kafka_zk.controller.event_manager import ControllerEventManager
from kafka_zk.controller.leader_elections import PREFERRED_ELECTION_PATH, LeaderElections
from kafka_zk.controller.leadership import elect, initial_leadership, remove_replica_from_isr
from kafka_zk.controller.reassignment import REASSIGN_PARTITIONS_PATH, PartitionReassignments
from kafka_zk.controller.requests import LEADER_AND_ISR, STOP_REPLICA, ControllerRequestBatch
from kafka_zk.controller.topic_deletion import DELETE_TOPICS_PATH, TopicDeletionManager
from kafka_zk.protocol.errors import Errors
from kafka_zk.zk.znodes import LeaderIsrAndControllerEpoch

log = logging.getLogger(__name__)

BROKER_IDS_PATH = "/brokers/ids"
TOPICS_PATH = "/brokers/topics"
CONTROLLER_PATH = "/controller"
ISR_CHANGE_PATH = "/isr_change_notification"
LOG_DIR_EVENT_PATH = "/log_dir_event_notification"
LEADERSHIP_WRITE_ATTEMPTS = 3
FIRST_BATCH_WAIT_S = 1.0  # the longest a failover waits for the answers to its new leaders before its ISR changes


class ControllerMoved(Exception):
    """A fenced write failed the epoch check: this broker resigned and the event stops here."""

    ends_event_quietly = True


class KafkaController:
    def __init__(self, server):
        self.server = server
        self.zk = server.zk
        self.reactor = server.reactor
        self.broker_id = server.broker_id
        self.context = ControllerContext()
        self.events = ControllerEventManager()
        self.channels = None
        self.active = False
        self.active_controller_id = -1
        self._watches_registered = False
        self._topic_watches = {}
        self.deletion = TopicDeletionManager(self)
        self.elections = LeaderElections(self)
        self.reassignments = PartitionReassignments(self)

    @property
    def is_active(self):
        return self.active

    # -- election --------------------------------------------------------------------------------

    @defer.inlineCallbacks
    def startup(self):
        self.events.put("Startup", self._elect)
        yield self.zk.watch_exists(CONTROLLER_PATH, self.zk.on_reactor(self._on_controller_znode_changed))

    def _on_controller_znode_changed(self, *_):
        self.events.put("ControllerChange", self._handle_controller_change)

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
        won, epoch, epoch_zk_version = yield self.zk.try_elect_controller(self.broker_id, self.server.now_ms())
        if not won:
            current = yield self.zk.get_controller_id()
            self.active_controller_id = -1 if current is None else current
            log.info("[Controller id=%d] broker %s is the controller", self.broker_id, current)
            return
        self.active_controller_id = self.broker_id
        log.info("[Controller id=%d] elected controller with epoch %d", self.broker_id, epoch)
        yield self._on_become_controller(epoch, epoch_zk_version)

    def _resign(self):
        log.info("[Controller id=%d] resigning", self.broker_id)
        self.active = False
        self.elections.stop()
        self.reassignments.reset()
        if self.channels is not None:
            self.channels.shutdown()
            self.channels = None
        self.context.reset()

    @defer.inlineCallbacks
    def _on_become_controller(self, epoch, epoch_zk_version):
        context = self.context
        context.reset()
        context.epoch = epoch
        context.epoch_zk_version = epoch_zk_version
        self.active = True
        self.channels = ControllerChannelManager(self.reactor, self.broker_id, self.server.listener_name)
        if not self._watches_registered:
            yield self.zk.watch_children(BROKER_IDS_PATH, self.zk.on_reactor(self._on_brokers_changed))
            yield self.zk.watch_children(TOPICS_PATH, self.zk.on_reactor(self._on_topics_changed))
            yield self.zk.watch_children(ISR_CHANGE_PATH, self.zk.on_reactor(self._on_isr_changes))
            yield self.zk.watch_children(LOG_DIR_EVENT_PATH, self.zk.on_reactor(self._on_log_dir_events))
            yield self.zk.watch_children(DELETE_TOPICS_PATH, self.zk.on_reactor(self._on_topic_deletions))
            yield self.zk.watch_exists(PREFERRED_ELECTION_PATH,
                               self.zk.on_reactor(self._on_preferred_election_znode))
            yield self.zk.watch_exists(REASSIGN_PARTITIONS_PATH,
                               self.zk.on_reactor(self._on_reassignment_znode))
            self._watches_registered = True
        started = self.reactor.seconds()
        brokers = yield self.zk.get_all_brokers()
        for broker in brokers:
            self._add_live_broker(broker)
        topics = yield self.zk.get_topics()
        full_assignments = yield self.zk.get_full_topic_assignments(topics)
        assignments = {topic: full.partitions for topic, full in full_assignments.items()}
        for topic, assignment in assignments.items():
            context.add_topic(topic, assignment)
        context.topic_configs.update((yield self.zk.get_entity_configs("topics", topics)))
        states = yield self.zk.get_partition_states(list(context.assignments))
        for tp, state in states.items():
            if state is not None:
                context.leadership[tp] = LeaderIsr(state.leader, state.leader_epoch, list(state.isr),
                                                   state.controller_epoch, state.zk_version)
        live = context.live_broker_ids
        for tp, replicas in context.assignments.items():
            for replica in replicas:
                context.replica_states[(tp[0], tp[1], replica)] = (
                    sm.ONLINE_REPLICA if replica in live else sm.OFFLINE_REPLICA)
            leadership = context.leadership.get(tp)
            if leadership is None:
                context.partition_states[tp] = sm.NEW_PARTITION
            elif leadership.leader in live:
                context.partition_states[tp] = sm.ONLINE_PARTITION
            else:
                context.partition_states[tp] = sm.OFFLINE_PARTITION
        # The loaded state and the leaders elected for partitions that lost theirs go out first; the ISR
        # changes follow in a second batch. (LeaderAndIsr of every partition stays in the first: a broker must
        # not be named leader in Metadata before it has heard it is one.)
        batch = self._new_batch()
        batch.add_update_metadata(context.live_brokers)
        for tp in context.leadership:
            batch.add_leader_and_isr(context.assignments[tp], tp)
        loaded = self.reactor.seconds()
        yield self._trigger_online_partitions(batch, fresh=True)
        yield self._send_before_more_work(batch)
        elected = self.reactor.seconds()
        # Replicas on brokers that died before this controller was elected leave their ISRs now, not
        # when their leaders' lag checks notice (Kafka's replica state machine startup).
        dead = {broker for leadership in context.leadership.values() for broker in leadership.isr
                if broker not in live}
        holding_dead = [tp for tp, leadership in context.leadership.items()
                        if any(broker in dead for broker in leadership.isr) and not self.deletion.is_deleting(tp[0])]
        batch = self._new_batch()
        yield self._remove_from_isrs(holding_dead, sorted(dead), batch)
        self._send(batch)
        log.info("[Controller id=%d] loaded %d topics, %d partitions, %d live brokers (state read in %.2fs, "
                 "offline partitions elected in %.2fs, %d dead replicas out of ISRs in %.2fs)", self.broker_id,
                 len(assignments), len(context.assignments), len(context.live_brokers), loaded - started,
                 elected - loaded, len(holding_dead), self.reactor.seconds() - elected)
        yield self._watch_topics(sorted(assignments))
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
        endpoint = broker.endpoint(self.server.config.inter_broker_listener_name) or broker.endpoints[0]
        self.channels.add_broker(broker.id, endpoint.host, endpoint.port)

    def on_session_expired(self):
        """Our ephemeral /controller is gone with the session: stop acting as controller now."""
        self.events.clear()
        self.events.put("Expire", lambda: self._resign() if self.active else None)

    def on_new_session(self):
        self.events.put("Reelect", self._elect)

    # -- broker membership ------------------------------------------------------------------------

    def _on_brokers_changed(self, *_):
        self.events.put("BrokerChange", self._handle_broker_change)

    @defer.inlineCallbacks
    def _handle_broker_change(self):
        if not self.active:
            return
        brokers = yield self.zk.get_all_brokers()
        current = {broker.id: broker for broker in brokers}
        known = self.context.live_brokers
        dead = [b for b in known if b not in current]
        bounced = [b for b in known if b in current and current[b].epoch != known[b].epoch]
        new = [b for b in current if b not in known]
        if not (dead or bounced or new):
            return
        log.info("[Controller id=%d] broker change: new %s, dead %s, bounced %s", self.broker_id,
                 sorted(new), sorted(dead), sorted(bounced))
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
            yield self._on_brokers_startup(started)

    def _on_brokers_failure(self, brokers):
        self.context.forget_offline_dirs(brokers)
        return self._on_replicas_offline({broker: set(self.context.partitions_on_broker(broker))
                                          for broker in brokers}, "failed brokers")

    @defer.inlineCallbacks
    def _on_replicas_offline(self, replicas, cause):
        """Kafka's onReplicasBecomeOffline: ``replicas`` ({broker: {tp}}) went offline with their broker or their
        log dir. The partitions they led elect new leaders; then they leave the ISRs of the others."""
        context = self.context
        started = self.reactor.seconds()
        batch = self._new_batch()
        led = [tp for tp, leadership in context.leadership.items() if tp in replicas.get(leadership.leader, ())]
        for tp in led:
            sm.set_partition_state(context, tp, sm.OFFLINE_PARTITION)
        elected = yield self._trigger_online_partitions(batch)
        # The new leaders go out at once, as Kafka sends each state machine's batch when it is done, and are
        # applied before the ISR changes below (every partition with an offline replica) compete.
        yield self._send_before_more_work(batch)
        sent = self.reactor.seconds()
        batch = self._new_batch()
        shrunk = []
        for broker, partitions in sorted(replicas.items()):
            for tp in partitions:
                if self.deletion.is_deleting(tp[0]):
                    if sm.replica_state(context, tp, broker) == sm.REPLICA_DELETION_STARTED:
                        sm.set_replica_state(context, tp, broker, sm.REPLICA_DELETION_INELIGIBLE)
                elif tp in context.assignments:
                    sm.set_replica_state(context, tp, broker, sm.OFFLINE_REPLICA)
            # The offline replicas leave the ISRs of their partitions (those just elected left them out already).
            shrunk += yield self._remove_from_isrs(
                [tp for tp in partitions if tp in context.assignments and tp not in elected
                 and not self.deletion.is_deleting(tp[0])], [broker], batch)
        batch.add_update_metadata(context.live_brokers)
        self._send(batch)
        log.info("[Controller id=%d] %s %s: %d of their %d partitions led elsewhere in %.2fs, %d replicas out of ISRs "
                 "in %.2fs", self.broker_id, cause, sorted(replicas), len(elected), len(led), sent - started,
                 len(shrunk), self.reactor.seconds() - sent)

    def _remove_from_isrs(self, partitions, brokers, batch):
        """Offline replicas (on ``brokers``) leave the ISRs of ``partitions``, as Kafka's OfflineReplica
        transition does: one new leader epoch per partition, written fenced, LeaderAndIsr queued."""
        context = self.context

        def shrink(tps):
            proposals = {}
            for tp in tps:
                current = context.leadership.get(tp)
                if current is None:
                    continue
                proposal = current
                for broker in brokers:
                    proposal = remove_replica_from_isr(proposal, broker, context.epoch) or proposal
                if proposal is not current:
                    proposals[tp] = proposal._replace(leader_epoch=current.leader_epoch + 1)
            return proposals

        return self._write_changes(partitions, shrink, batch)

    @defer.inlineCallbacks
    def _on_brokers_startup(self, brokers):
        context = self.context
        batch = self._new_batch()
        batch.add_update_metadata(context.live_brokers)
        for tp, replicas in context.assignments.items():
            if self.deletion.is_deleting(tp[0]):
                continue
            for broker in brokers:
                if broker in replicas:
                    sm.set_replica_state(context, tp, broker, sm.ONLINE_REPLICA)
                    if tp in context.leadership:
                        batch.add_leader_and_isr([broker], tp)
        yield self._trigger_online_partitions(batch)
        self._send(batch)
        yield self.deletion.resume()

    # -- topics ------------------------------------------------------------------------------------

    def _on_topics_changed(self, *_):
        self.events.put("TopicChange", self._handle_topic_change)

    @defer.inlineCallbacks
    def _handle_topic_change(self):
        if not self.active:
            return
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
        log.info("[Controller id=%d] new topics %s with %d partitions", self.broker_id, new_topics,
                 len(partitions))
        yield self._on_new_partitions(partitions)
        yield self._watch_topics(new_topics)

    @defer.inlineCallbacks
    def _on_new_partitions(self, partitions):
        """NewPartition/NewReplica, then OnlinePartition with initial leaders, LeaderAndIsr and metadata."""
        for tp in partitions:
            sm.set_partition_state(self.context, tp, sm.NEW_PARTITION)
            for replica in self.context.assignments[tp]:
                sm.set_replica_state(self.context, tp, replica, sm.NEW_REPLICA)
        batch = self._new_batch()
        yield self._trigger_online_partitions(batch, partitions)
        for tp in partitions:
            for replica in self.context.assignments[tp]:
                if replica in self.context.live_brokers:
                    sm.set_replica_state(self.context, tp, replica, sm.ONLINE_REPLICA)
        self._send(batch)

    @defer.inlineCallbacks
    def _watch_topics(self, topics):
        """Watch each topic's znode for partitions added to it (kafka-topics --alter, CreatePartitions)."""
        for topic in topics:
            if topic not in self._topic_watches:
                self._topic_watches[topic] = yield self.zk.watch_data(TOPICS_PATH + "/" + topic,
                    self.zk.on_reactor(lambda data, stat, topic=topic: self._on_topic_modified(topic, stat)))

    def _on_topic_modified(self, topic, stat):
        if stat is not None:
            self.events.put("PartitionModifications", lambda: self._handle_partition_modifications(topic))

    @defer.inlineCallbacks
    def _handle_partition_modifications(self, topic):
        if not self.active or topic not in self.context.topics() or self.deletion.is_deleting(topic):
            return
        assignment = yield self.zk.get_topic_assignment(topic)
        added = {partition: replicas for partition, replicas in assignment.items()
                 if (topic, partition) not in self.context.assignments}
        if not added:
            return
        log.info("[Controller id=%d] partitions %s added to topic %s", self.broker_id, sorted(added), topic)
        self.context.add_topic(topic, added)
        yield self._on_new_partitions([(topic, partition) for partition in sorted(added)])

    # -- controlled shutdown ---------------------------------------------------------------------------

    def controlled_shutdown(self, broker_id, broker_epoch):
        """Move leadership off a broker that is shutting down. A Deferred of (error, remaining partitions):
        the replicated partitions it still leads (others could not take over)."""
        return self._on_queue("ControlledShutdown",
                              lambda: self._handle_controlled_shutdown(broker_id, broker_epoch),
                              (Errors.NOT_CONTROLLER, []))

    @defer.inlineCallbacks
    def _handle_controlled_shutdown(self, broker_id, broker_epoch):
        context = self.context
        live = context.live_brokers.get(broker_id)
        if live is None:
            return Errors.BROKER_NOT_AVAILABLE, []
        if broker_epoch != -1 and broker_epoch < live.epoch:
            return Errors.STALE_BROKER_EPOCH, []
        context.shutting_down.add(broker_id)
        log.info("[Controller id=%d] controlled shutdown of broker %d", self.broker_id, broker_id)
        replicated = [tp for tp in context.partitions_on_broker(broker_id)
                      if len(context.assignments[tp]) > 1 and tp in context.leadership
                      and not self.deletion.is_deleting(tp[0])]
        led = [tp for tp in replicated if context.leadership[tp].leader == broker_id]
        followed = [tp for tp in replicated if context.leadership[tp].leader != broker_id]
        batch = self._new_batch()

        def move(partitions):
            return elect(context, partitions, "controlled_shutdown")[0]

        def stop_replicas(partitions, batch):
            # The leaving broker stops serving and fetching its replicated partitions: it can then neither
            # accept writes as a stale leader nor be added back to an ISR by a late fetch.
            for tp in partitions:
                sm.set_replica_state(context, tp, broker_id, sm.OFFLINE_REPLICA)
                batch.add_stop_replica(broker_id, tp, delete=False)

        yield self._write_changes(led, move, batch)
        # The moved leaders go out at once (Kafka sends the partition state machine's batch when it is done);
        # the ISR changes of the partitions it follows come next.
        stop_replicas(led, batch)
        self._send(batch)
        batch = self._new_batch()

        def leave_isr(partitions):
            proposals = {}
            for tp in partitions:
                current = context.leadership[tp]
                proposal = remove_replica_from_isr(current, broker_id, context.epoch)
                if proposal is not None and proposal.leader != -1:
                    proposals[tp] = proposal
            return proposals

        yield self._write_changes(followed, leave_isr, batch)
        stop_replicas(followed, batch)
        self._send(batch)  # the changed partitions' UpdateMetadata rides with their LeaderAndIsr, as in Kafka
        remaining = [tp for tp in replicated if context.leadership[tp].leader == broker_id]
        return Errors.NONE, remaining

    # -- leader elections on request ---------------------------------------------------------------

    def _on_preferred_election_znode(self, exists):
        if exists:
            self.events.put("PreferredReplicaLeaderElection", self.elections.on_znode)

    def elect_leaders(self, election_type, partitions):
        """ElectLeaders: a Deferred of {tp: error code}; partitions None means every partition."""
        return self._on_queue("ReplicaLeaderElection", lambda: self.elections.elect(
            election_type, sorted(self.context.assignments) if partitions is None else partitions),
            {tp: Errors.NOT_CONTROLLER for tp in partitions or []})

    def enable_default_unclean_election(self):
        """unclean.leader.election.enable was turned on for the brokers: offline partitions may elect now."""
        self.events.put("UncleanLeaderElectionEnable", self._elect_offline_partitions)

    @defer.inlineCallbacks
    def _elect_offline_partitions(self):
        if not self.active:
            return
        batch = self._new_batch()
        yield self._trigger_online_partitions(batch)
        self._send(batch)

    def _on_reassignment_znode(self, exists):
        if exists:
            self.events.put("PartitionReassignment", lambda: self.reassignments.on_znode() if self.active else None)

    def alter_reassignments(self, targets):
        """AlterPartitionReassignments: a Deferred of {tp: error code} (targets: {tp: replicas or None})."""
        return self._on_queue("AlterPartitionReassignments", lambda: self.reassignments.start(targets),
                              {tp: Errors.NOT_CONTROLLER for tp in targets})

    def list_reassignments(self, partitions):
        return self._on_queue("ListPartitionReassignments", lambda: self.reassignments.listing(partitions), None)

    def _on_queue(self, name, work, if_not_controller):
        """Run work() as a controller event; a Deferred of its result (if_not_controller when not active)."""
        result = defer.Deferred()
        self.events.put(name, lambda: defer.maybeDeferred(
            lambda: work() if self.active else if_not_controller).chainDeferred(result))
        return result

    def mark_online(self, tp):
        sm.set_partition_state(self.context, tp, sm.ONLINE_PARTITION)

    # -- topic deletion ------------------------------------------------------------------------------

    def _on_topic_deletions(self, *_):
        self.events.put("TopicDeletion", lambda: self.deletion.on_marked() if self.active else None)

    def forget_topic(self, topic):
        """A deleted topic leaves the controller's context and stops being watched."""
        self.context.remove_topic(topic)
        for tp in [tp for tp in self.reassignments.in_progress if tp[0] == topic]:
            del self.reassignments.in_progress[tp]
        watch = self._topic_watches.pop(topic, None)
        if watch is not None:
            watch.cancel()

    # -- ISR changes made by partition leaders -----------------------------------------------------

    def _on_isr_changes(self, *_):
        self.events.put("IsrChangeNotification", self._handle_isr_changes)

    @defer.inlineCallbacks
    def _handle_isr_changes(self):
        if not self.active:
            return
        names = yield self.zk.get_isr_change_notifications()
        if not names:
            return
        partitions = yield self.zk.read_isr_change_notifications(names)
        yield self.zk.delete_isr_change_notifications(names, self.context.epoch_zk_version)
        known = [tp for tp in partitions if tp in self.context.assignments]
        yield self._refresh_leadership(known)
        batch = self._new_batch()
        batch.add_update_metadata(self.context.live_brokers, known)
        self._send(batch)
        yield self.reassignments.on_isr_changed(known)

    # -- log dirs that went offline (KIP-112) -----------------------------------------------------

    def _on_log_dir_events(self, *_):
        self.events.put("LogDirEventNotification", self._handle_log_dir_events)

    @defer.inlineCallbacks
    def _handle_log_dir_events(self):
        """A broker lost a log dir: ask it about every replica it holds with a LeaderAndIsr; its
        KAFKA_STORAGE_ERROR answers name the offline ones (_on_leader_and_isr_response)."""
        if not self.active:
            return
        names = yield self.zk.get_log_dir_event_notifications()
        if not names:
            return
        brokers = yield self.zk.read_log_dir_event_notifications(names)
        yield self.zk.delete_log_dir_event_notifications(names, self.context.epoch_zk_version)
        live = [broker for broker in brokers if broker in self.context.live_brokers]
        log.info("[Controller id=%d] log dir failure on brokers %s (of notifications %s)", self.broker_id, live,
                 ",".join(names))
        batch = self._new_batch()
        for broker in live:
            for tp in self.context.partitions_on_broker(broker):
                if tp in self.context.leadership and not self.deletion.is_deleting(tp[0]):
                    batch.add_leader_and_isr([broker], tp)
        self._send(batch)

    def _on_leader_and_isr_response(self, broker, response):
        self._on_response(broker, response)
        answers = response.get("partition_errors") or []

        def answered(code):
            return [(answer["topic_name"], answer["partition_index"]) for answer in answers
                    if answer["error_code"] == code]
        offline = answered(Errors.KAFKA_STORAGE_ERROR)
        # Served replicas matter only to a broker known to have offline ones: most answers name thousands.
        online = answered(Errors.NONE) if broker in self.context.replicas_on_offline_dirs else []
        if offline or online:
            self.events.put("LeaderAndIsrResponseReceived",
                            lambda: self._handle_replica_dirs(broker, offline, online))

    def _handle_replica_dirs(self, broker, offline, online):
        if not self.active or broker not in self.context.live_brokers:
            return None
        newly = self.context.record_replica_dirs(broker, offline, online)
        if not newly:
            return None
        log.info("[Controller id=%d] mark replicas %s on broker %d as offline", self.broker_id,
                 ",".join("%s-%d" % tp for tp in sorted(newly)), broker)
        return self._on_replicas_offline({broker: newly}, "replicas on an offline log dir of broker")

    # -- partition state machine --------------------------------------------------------------------

    @defer.inlineCallbacks
    def _trigger_online_partitions(self, batch, partitions=None, fresh=False):
        """Move New and Offline partitions (all, or the given ones) to OnlinePartition where possible.
        ``fresh``: the context's leadership was just read, no need to read it again.
        Returns the set of partitions whose state znode this wrote."""
        context = self.context
        if partitions is None:
            partitions = [tp for tp, state in context.partition_states.items()
                          if state in (sm.NEW_PARTITION, sm.OFFLINE_PARTITION)]
        partitions = [tp for tp in partitions if not self.deletion.is_deleting(tp[0])]
        new = [tp for tp in partitions if sm.partition_state(context, tp) == sm.NEW_PARTITION]
        offline = [tp for tp in partitions if sm.partition_state(context, tp) == sm.OFFLINE_PARTITION]
        changed = set()
        if new:
            decided, failed = initial_leadership(context, new)
            if failed:
                log.info("[Controller id=%d] no live replica for new partitions %s", self.broker_id, failed)
            created = yield self._create_leadership(decided)
            changed.update(created)
            for tp in created:
                sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
                batch.add_leader_and_isr(context.assignments[tp], tp, is_new=True)
        if offline:
            written = yield self._write_changes(
                offline, lambda tps: elect(context, tps, "offline", self._unclean_enabled)[0], batch, fresh)
            failed = sorted(set(offline) - set(written))
            if failed:
                log.info("[Controller id=%d] partitions without an eligible leader stay offline: %s",
                         self.broker_id, failed)
            changed.update(written)
            for tp in written:
                sm.set_partition_state(context, tp, sm.ONLINE_PARTITION)
        return changed

    def _unclean_enabled(self, topic):
        value = self.context.topic_configs.get(topic, {}).get("unclean.leader.election.enable")
        if value is None:
            dynamic = getattr(self.server, "dynamic_config", None)
            return (dynamic.value if dynamic is not None else self.server.config.get)("unclean.leader.election.enable")
        return str(value).lower() == "true"

    @defer.inlineCallbacks
    def _create_leadership(self, decided):
        if not decided:
            return []
        states = {tp: _znode_state(leadership) for tp, leadership in decided.items()}
        results = yield self._fenced(self.zk.create_partition_states, states)
        created = []
        for tp, outcome in results.items():
            if isinstance(outcome, Exception):
                log.warning("[Controller id=%d] creating the state znode of %s-%d failed: %r",
                            self.broker_id, tp[0], tp[1], outcome)
                continue
            self.context.leadership[tp] = decided[tp]._replace(zk_version=outcome.zk_version)
            created.append(tp)
        return created

    @defer.inlineCallbacks
    def _write_leadership(self, decided, batch, recompute=None):
        """Conditionally update state znodes; on success update the context and queue LeaderAndIsr.

        A version conflict means a leader changed the ISR meanwhile: re-read those partitions and, when
        recompute(tps) is given, decide again and retry."""
        written = []
        for _ in range(LEADERSHIP_WRITE_ATTEMPTS):
            if not decided:
                break
            states = {tp: _znode_state(leadership) for tp, leadership in decided.items()}
            results = yield self._fenced(self.zk.update_partition_states, states)
            conflicts = []
            for tp, outcome in results.items():
                if isinstance(outcome, Exception):
                    if type(outcome).__name__ == "BadVersionError":
                        conflicts.append(tp)
                    else:
                        log.warning("[Controller id=%d] update of %s-%d failed: %r", self.broker_id,
                                    tp[0], tp[1], outcome)
                    continue
                self.context.leadership[tp] = decided[tp]._replace(zk_version=outcome.zk_version)
                batch.add_leader_and_isr(self.context.assignments[tp], tp)
                written.append(tp)
            if not conflicts or recompute is None:
                break
            yield self._refresh_leadership(conflicts)
            decided = recompute(conflicts)
        return written

    @defer.inlineCallbacks
    def _write_changes(self, partitions, decide, batch, fresh=False):
        """Write what ``decide(tps)`` proposes for ``partitions``, deciding from the cached states: a stale
        cached state fails its conditional write and is re-read and decided again (_write_leadership). Only
        the partitions for which the cache proposes nothing are re-read first (unless ``fresh``), since a
        stale state there could hide a change to make. Returns the partitions written."""
        decided = decide(partitions)
        unchanged = [tp for tp in partitions if tp not in decided]
        if unchanged and not fresh:
            yield self._refresh_leadership(unchanged)
            decided.update(decide(unchanged))
        written = yield self._write_leadership(decided, batch, decide)
        return written

    @defer.inlineCallbacks
    def _refresh_leadership(self, partitions):
        """Re-read state znodes: leaders change ISRs without telling the controller first."""
        if not partitions:
            return
        states = yield self.zk.get_partition_states(list(partitions))
        for tp, state in states.items():
            self.context.leadership[tp] = LeaderIsr(state.leader, state.leader_epoch, list(state.isr),
                                                    state.controller_epoch, state.zk_version)

    @defer.inlineCallbacks
    def _fenced(self, write, states):
        try:
            result = yield write(states, self.context.epoch, self.context.epoch_zk_version)
        except Exception as error:
            if type(error).__name__ == "ControllerMovedError":
                log.warning("[Controller id=%d] controller moved; resigning", self.broker_id)
                self._resign()
                raise ControllerMoved(str(error)) from None
            raise
        return result

    # -- requests ---------------------------------------------------------------------------------

    def _new_batch(self):
        return ControllerRequestBatch(self.context, self.broker_id)

    def _send(self, batch):
        if not self.active:
            return
        for broker, api, body in batch.requests():
            callback = {STOP_REPLICA: self._on_stop_replica_response,
                        LEADER_AND_ISR: self._on_leader_and_isr_response}.get(api, self._on_response)
            self.channels.send(broker, api[0], api[1], body, callback)

    def _send_before_more_work(self, batch):
        """Send, then wait (at most FIRST_BATCH_WAIT_S) until the brokers have answered before the event goes on:
        a failover's new leaders are what clients wait for, and the ISR changes that follow would compete with
        the brokers applying them for the machine's cores (and for this process's reactor)."""
        self._send(batch)
        return self.channels.answered(FIRST_BATCH_WAIT_S) if self.active else defer.succeed(None)

    def _on_stop_replica_response(self, broker, response):
        self._on_response(broker, response)
        self.events.put("StopReplicaResponse",
                        lambda: self.deletion.on_stop_replica_response(broker, response) if self.active else None)

    def _on_response(self, broker, response):
        errors = [p for p in response.get("partition_errors") or [] if p["error_code"]]
        if response.get("error_code") or errors:
            log.warning("[Controller id=%d] broker %d answered with errors: %s %s", self.broker_id, broker,
                        response.get("error_code"), errors[:5])

    # -- shutdown ---------------------------------------------------------------------------------

    def shutdown(self):
        """Resign once the event in progress (if any) has finished."""
        self.events.clear()
        self.events.put("Shutdown", lambda: self._resign() if self.active else None)
        return self.events.when_idle()


def _znode_state(leadership):
    return LeaderIsrAndControllerEpoch(leadership.leader, leadership.leader_epoch, list(leadership.isr),
                                       leadership.controller_epoch, leadership.zk_version)
