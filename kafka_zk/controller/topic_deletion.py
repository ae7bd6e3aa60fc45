"""Topic deletion driven by /admin/delete_topics: metadata first, then every replica's log, then the znodes."""

import logging

from twisted.internet import defer

from kafka_zk.controller import state_machines as sm
from kafka_zk.protocol.errors import Errors

log = logging.getLogger(__name__)


class TopicDeletionManager:
    """Runs inside the controller's event queue. A replica on a dead broker makes its topic wait
    (ReplicaDeletionIneligible) until that broker returns; the deletion then resumes."""

    def __init__(self, context, zk, requests, config, controller_id, on_topic_deleted):
        self.context = context
        self.zk = zk
        self.requests = requests
        self.config = config
        self.controller_id = controller_id
        self.on_topic_deleted = on_topic_deleted  # on_topic_deleted(topic): the controller forgets the topic

    def is_deleting(self, topic):
        return topic in self.context.topics_to_delete

    @defer.inlineCallbacks
    def on_marked(self):
        """/admin/delete_topics changed (or a new controller starts): pick up newly marked topics."""
        context = self.context
        marked = yield self.zk.get_topic_deletions()
        if not self.config["delete.topic.enable"]:
            if marked:
                log.info(
                    "[Controller id=%d] delete.topic.enable is false; dropping deletion requests for %s",
                    self.controller_id,
                    marked,
                )
                yield self.zk.delete_topic_deletions(marked, context.epoch_zk_version)
            return
        unknown = [topic for topic in marked if topic not in context.topics()]
        if unknown:
            yield self.zk.delete_topic_deletions(unknown, context.epoch_zk_version)
        new = sorted(topic for topic in marked if topic in context.topics() and not self.is_deleting(topic))
        if not new:
            return
        log.info("[Controller id=%d] deleting topics %s", self.controller_id, new)
        context.topics_to_delete.update(new)
        batch = self.requests.new_batch()
        batch.add_update_metadata(context.live_brokers, [tp for topic in new for tp in context.partitions_of(topic)])
        self.requests.send(batch)
        yield self.resume()

    def resume(self):
        """Send StopReplica(delete) to every reachable replica of the topics being deleted that has not
        been asked yet; topics whose replicas are all gone are completed."""
        context = self.context
        batch = self.requests.new_batch()
        for topic in sorted(context.topics_to_delete):
            for tp in context.partitions_of(topic):
                for broker in context.assignments[tp]:
                    state = sm.replica_state(context, tp, broker)
                    if state in (sm.REPLICA_DELETION_STARTED, sm.REPLICA_DELETION_SUCCESSFUL):
                        continue
                    if state != sm.OFFLINE_REPLICA:
                        sm.set_replica_state(context, tp, broker, sm.OFFLINE_REPLICA)
                    if broker in context.live_brokers:
                        sm.set_replica_state(context, tp, broker, sm.REPLICA_DELETION_STARTED)
                        batch.add_stop_replica(broker, tp, delete=True)
                    else:
                        sm.set_replica_state(context, tp, broker, sm.REPLICA_DELETION_INELIGIBLE)
        self.requests.send(batch)
        return self._complete_finished()

    def on_stop_replica_response(self, broker, response):
        """A broker answered StopReplica(delete): its replicas are deleted, or ineligible until retried."""
        context = self.context
        failed_all = response.get("error_code", Errors.NONE) != Errors.NONE
        for entry in response.get("partition_errors") or []:
            tp = (entry["topic_name"], entry["partition_index"])
            if not self.is_deleting(tp[0]) or sm.replica_state(context, tp, broker) != sm.REPLICA_DELETION_STARTED:
                continue
            ok = not failed_all and entry["error_code"] == Errors.NONE
            sm.set_replica_state(
                context, tp, broker, sm.REPLICA_DELETION_SUCCESSFUL if ok else sm.REPLICA_DELETION_INELIGIBLE
            )
        return self._complete_finished()

    @defer.inlineCallbacks
    def _complete_finished(self):
        context = self.context
        for topic in sorted(context.topics_to_delete):
            replicas = [(tp, broker) for tp in context.partitions_of(topic) for broker in context.assignments[tp]]
            if any(sm.replica_state(context, tp, broker) != sm.REPLICA_DELETION_SUCCESSFUL for tp, broker in replicas):
                continue
            yield self.zk.delete_topic_znodes(topic, context.epoch_zk_version)
            self.on_topic_deleted(topic)
            log.info("[Controller id=%d] deletion of topic %s completed", self.controller_id, topic)
