"""AdminClient: topic and consumer-group administration over the Kafka protocol (topics, configs, groups, offsets)."""

from collections import namedtuple

from kafka_zk.client.cluster import ClusterClient
from kafka_zk.client.coordinator import CoordinatorLocator
from kafka_zk.client.errors import KafkaResponseError, raise_for_error
from kafka_zk.client.topic_names import INTERNAL_TOPICS
from kafka_zk.coordinator.group.consumer_protocol import assigned_partitions
from kafka_zk.protocol.errors import Errors
from kafka_zk.protocol.messages import (
    alter_configs,
    alter_partition_reassignments,
    alter_replica_log_dirs,
    create_acls,
    create_delegation_token,
    create_partitions,
    create_topics,
    delete_acls,
    delete_groups,
    delete_records,
    delete_topics,
    describe_acls,
    describe_configs,
    describe_delegation_token,
    describe_groups,
    describe_log_dirs,
    elect_leaders,
    expire_delegation_token,
    incremental_alter_configs,
    list_groups,
    list_partition_reassignments,
    offset_commit,
    offset_delete,
    offset_fetch,
    renew_delegation_token,
)
from kafka_zk.security.acls import AclBinding, AclEntry, ResourcePattern
from kafka_zk.security.authorizer import AclOperation, PatternType, PermissionType, ResourceType

# DescribeConfigs resource type of a topic, and the config source that means "a default" (v1+).
TOPIC_RESOURCE_TYPE = 2
BROKER_RESOURCE_TYPE = 4
DEFAULT_CONFIG_SOURCE = 5

ConfigEntry = namedtuple("ConfigEntry", "name value is_default read_only is_sensitive source synonyms", defaults=((),))
ConfigSynonym = namedtuple("ConfigSynonym", "name value source")
BROKER_RESOURCE_TYPE = 4
BROKER_LOGGER_RESOURCE_TYPE = 8
Reassignment = namedtuple("Reassignment", "replicas adding_replicas removing_replicas")
GroupMember = namedtuple("GroupMember", "member_id group_instance_id client_id host assignment")
GroupMember.__doc__ = "A member from DescribeGroups; assignment is {topic: [partitions]} ({} when not a consumer's)."
GroupDescription = namedtuple("GroupDescription", "group_id state protocol_type protocol members coordinator")
GroupDescription.__doc__ = "A group from DescribeGroups; coordinator is a BrokerAddress; an unknown group is Dead."
ReplicaInfo = namedtuple("ReplicaInfo", "size offset_lag is_future")
LogDirInfo = namedtuple("LogDirInfo", "error replicas")
LogDirInfo.__doc__ = "One log dir of a broker: an Errors member and {(topic, partition): ReplicaInfo}."
DelegationToken = namedtuple(
    "DelegationToken", "token_id hmac owner renewers issue_timestamp expiry_timestamp max_timestamp"
)
DelegationToken.__doc__ = (
    'A delegation token as the broker describes it: principals as "User:alice" strings, '
    "the HMAC as bytes, timestamps in ms."
)


def _principal_entry(principal):
    principal_type, _, name = principal.partition(":")
    return {"principal_type": principal_type, "principal_name": name}


def _principal_text(entry):
    return "%s:%s" % (entry["principal_type"], entry["principal_name"])


class NewTopic:
    """A topic to create. -1 partitions/replication factor mean the broker's defaults; a replica assignment
    ({partition: [broker ids]}) replaces both."""

    def __init__(self, name, num_partitions=-1, replication_factor=-1, replica_assignment=None, configs=None):
        self.name = name
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.replica_assignment = replica_assignment
        self.configs = dict(configs or {})

    def __repr__(self):
        return "NewTopic(%r, %d, %d)" % (self.name, self.num_partitions, self.replication_factor)

    def to_request(self):
        assignment = self.replica_assignment or {}
        return {
            "name": self.name,
            "num_partitions": -1 if assignment else self.num_partitions,
            "replication_factor": -1 if assignment else self.replication_factor,
            "assignments": [
                {"partition_index": p, "broker_ids": list(brokers)} for p, brokers in sorted(assignment.items())
            ],
            "configs": [{"name": k, "value": v} for k, v in self.configs.items()],
        }


class AdminClient:
    """Synchronous admin operations; controller-bound requests follow the controller when it moves."""

    def __init__(self, bootstrap_servers, client_id="kafka-zk-admin", timeout=30.0, **cluster_options):
        self.cluster = ClusterClient(bootstrap_servers, client_id=client_id, timeout=timeout, **cluster_options)
        self.coordinators = CoordinatorLocator(self.cluster)

    def close(self):
        self.cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _controller_request(self, api_key, body, timeout_ms, results_key):
        """Send to the controller and return ``response[results_key]``; a NOT_CONTROLLER answer for every
        entity raises so with_retries finds the new controller."""

        def attempt():
            response = self.cluster.request(
                self.cluster.controller(), api_key, body, timeout=self.cluster.timeout + timeout_ms / 1000.0
            )
            results = response[results_key]
            if results and all(r["error_code"] == Errors.NOT_CONTROLLER for r in results):
                self.cluster.controller_id = -1
                raise KafkaResponseError(Errors.NOT_CONTROLLER)
            return results

        return self.cluster.with_retries(attempt, [])

    def create_topics(self, new_topics, timeout_ms=30000, validate_only=False):
        """Create topics; returns {name: (Errors member, message or None)}."""
        body = {
            "topics": [t.to_request() for t in new_topics],
            "timeout_ms": timeout_ms,
            "validate_only": validate_only,
        }
        results = self._controller_request(create_topics.API_KEY, body, timeout_ms, "topics")
        return {r["name"]: (Errors.from_code(r["error_code"]), r.get("error_message")) for r in results}

    def delete_topics(self, names, timeout_ms=30000):
        """Delete topics; returns {name: Errors member}."""
        body = {"topic_names": list(names), "timeout_ms": timeout_ms}
        results = self._controller_request(delete_topics.API_KEY, body, timeout_ms, "responses")
        return {r["name"]: Errors.from_code(r["error_code"]) for r in results}

    def create_partitions(self, new_partitions, timeout_ms=30000, validate_only=False):
        """Grow topics: ``{name: (total count, [[broker ids] per new partition] or None)}``;
        returns {name: (Errors member, message or None)}."""
        body = {
            "topics": [
                {
                    "name": name,
                    "count": count,
                    "assignments": None
                    if assignment is None
                    else [{"broker_ids": list(brokers)} for brokers in assignment],
                }
                for name, (count, assignment) in new_partitions.items()
            ],
            "timeout_ms": timeout_ms,
            "validate_only": validate_only,
        }
        results = self._controller_request(create_partitions.API_KEY, body, timeout_ms, "results")
        return {r["name"]: (Errors.from_code(r["error_code"]), r.get("error_message")) for r in results}

    def list_topics(self, include_internal=True):
        """Sorted names of every topic."""
        self.cluster.metadata(None)
        return sorted(
            name
            for name, info in self.cluster.topics.items()
            if include_internal or not (info.is_internal or name in INTERNAL_TOPICS)
        )

    def describe_topics(self, names):
        """{name: TopicInfo}; raises KafkaResponseError for a topic that does not exist."""
        names = list(names)
        response = self.cluster.metadata(names)
        by_name = {t["name"]: t for t in response["topics"]}
        for name in names:
            topic = by_name.get(name)
            raise_for_error(Errors.UNKNOWN_TOPIC_OR_PARTITION if topic is None else topic["error_code"], context=name)
        return {name: self.cluster.topics[name] for name in names}

    def describe_cluster(self):
        """(brokers {node id: BrokerAddress}, controller id, cluster id)."""
        self.cluster.metadata([])
        return dict(self.cluster.brokers), self.cluster.controller_id, self.cluster.cluster_id

    def describe_configs(self, topics):
        """{topic: [ConfigEntry]} in the broker's order; raises for a topic the broker cannot describe."""

        def body(version):
            return {
                "resources": [
                    {"resource_type": TOPIC_RESOURCE_TYPE, "resource_name": t, "configuration_keys": None}
                    for t in topics
                ],
                "include_synonyms": False,
            }

        version, response = self.cluster.any_request(describe_configs.API_KEY, body)
        result = {}
        for resource in response["results"]:
            raise_for_error(resource["error_code"], resource.get("error_message"), resource["resource_name"])
            result[resource["resource_name"]] = [
                ConfigEntry(
                    c["name"],
                    c["value"],
                    c["is_default"] if version == 0 else c["config_source"] == DEFAULT_CONFIG_SOURCE,
                    c["read_only"],
                    c["is_sensitive"],
                    c["config_source"],
                )
                for c in resource["configs"]
            ]
        return result

    def _resource_request(self, resource_type, name, api_key, body_for_version):
        """A broker resource goes to that broker (a number) or any broker (""), everything else to any."""
        if resource_type in (BROKER_RESOURCE_TYPE, BROKER_LOGGER_RESOURCE_TYPE) and name != "":
            self.cluster.metadata([])
            node = int(name)
            if node not in self.cluster.brokers:
                raise KafkaResponseError(Errors.INVALID_REQUEST, "Broker %s is not in the cluster" % name)
            connection = self.cluster.connection(node)
            return connection.request_with_version(api_key, body_for_version)
        return self.cluster.any_request(api_key, body_for_version)

    def describe_resource_configs(self, resource_type, name, include_synonyms=True):
        """[ConfigEntry] of one resource (topic, or broker id / "" for the cluster default) with synonyms."""

        def body(version):
            return {
                "resources": [{"resource_type": resource_type, "resource_name": name, "configuration_keys": None}],
                "include_synonyms": include_synonyms,
            }

        version, response = self._resource_request(resource_type, name, describe_configs.API_KEY, body)
        resource = response["results"][0]
        raise_for_error(resource["error_code"], resource.get("error_message"), name)
        return [
            ConfigEntry(
                c["name"],
                c["value"],
                c["is_default"] if version == 0 else c["config_source"] == DEFAULT_CONFIG_SOURCE,
                c["read_only"],
                c["is_sensitive"],
                c["config_source"],
                tuple(ConfigSynonym(s["name"], s["value"], s["source"]) for s in c["synonyms"] or ()),
            )
            for c in resource["configs"]
        ]

    def alter_resource_configs(self, resource_type, name, configs):
        """Replace a resource's dynamic configs with {name: value} (AlterConfigs); raises on the broker's error."""
        body = {
            "resources": [
                {
                    "resource_type": resource_type,
                    "resource_name": name,
                    "configs": [{"name": key, "value": value} for key, value in configs.items()],
                }
            ],
            "validate_only": False,
        }
        _, response = self._resource_request(resource_type, name, alter_configs.API_KEY, lambda version: body)
        result = response["responses"][0]
        raise_for_error(result["error_code"], result.get("error_message"), name)

    def incremental_alter_configs(self, topic, set_configs=None, delete_configs=(), resource_type=TOPIC_RESOURCE_TYPE):
        """Set and delete a topic's config overrides (IncrementalAlterConfigs; other resource types by
        resource_type, e.g. a broker's loggers); raises on the broker's error."""
        entries = [{"name": name, "config_operation": 0, "value": value} for name, value in (set_configs or {}).items()]
        entries += [{"name": name, "config_operation": 1, "value": None} for name in delete_configs]
        body = {
            "resources": [{"resource_type": resource_type, "resource_name": str(topic), "configs": entries}],
            "validate_only": False,
        }
        _, response = self._resource_request(
            resource_type, topic, incremental_alter_configs.API_KEY, lambda version: body
        )
        result = response["responses"][0]
        raise_for_error(result["error_code"], result.get("error_message"), str(topic))

    def alter_partition_reassignments(self, reassignments, timeout_ms=30000):
        """Start ({(topic, partition): [replicas]}) or cancel ({tp: None}) reassignments through the controller;
        returns {tp: (Errors member, message or None)}."""
        topics = {}
        for (topic, partition), replicas in sorted(reassignments.items()):
            topics.setdefault(topic, []).append(
                {"partition_index": partition, "replicas": None if replicas is None else list(replicas)}
            )
        body = {
            "timeout_ms": timeout_ms,
            "topics": [{"name": topic, "partitions": partitions} for topic, partitions in topics.items()],
        }

        def attempt():
            response = self.cluster.request(
                self.cluster.controller(),
                alter_partition_reassignments.API_KEY,
                body,
                timeout=self.cluster.timeout + timeout_ms / 1000.0,
            )
            if response["error_code"] == Errors.NOT_CONTROLLER:
                self.cluster.controller_id = -1
            raise_for_error(response["error_code"], response.get("error_message"))
            return response

        response = self.cluster.with_retries(attempt, [])
        return {
            (t["name"], p["partition_index"]): (Errors.from_code(p["error_code"]), p.get("error_message"))
            for t in response["responses"]
            for p in t["partitions"]
        }

    def elect_leaders(self, election_type, partitions=None, timeout_ms=30000):
        """Run preferred (0) or unclean (1) leader elections on the controller for [(topic, partition)] (None:
        every partition); returns {tp: (Errors member, message or None)}. A top-level error raises."""
        body = {"election_type": election_type, "timeout_ms": timeout_ms, "topic_partitions": None}
        if partitions is not None:
            grouped = {}
            for topic, partition in partitions:
                grouped.setdefault(topic, []).append(partition)
            body["topic_partitions"] = [
                {"topic": topic, "partition_id": sorted(parts)} for topic, parts in sorted(grouped.items())
            ]

        def attempt():
            response = self.cluster.request(
                self.cluster.controller(),
                elect_leaders.API_KEY,
                body,
                timeout=self.cluster.timeout + timeout_ms / 1000.0,
            )
            results = [p for t in response["replica_election_results"] for p in t["partition_result"]]
            if response["error_code"] == Errors.NOT_CONTROLLER or (
                results and all(p["error_code"] == Errors.NOT_CONTROLLER for p in results)
            ):
                self.cluster.controller_id = -1
                raise KafkaResponseError(Errors.NOT_CONTROLLER)
            raise_for_error(response["error_code"])
            return response

        response = self.cluster.with_retries(attempt, [])
        return {
            (t["topic"], p["partition_id"]): (Errors.from_code(p["error_code"]), p.get("error_message"))
            for t in response["replica_election_results"]
            for p in t["partition_result"]
        }

    def list_partition_reassignments(self, timeout_ms=30000):
        """{(topic, partition): Reassignment} of every reassignment in progress."""
        body = {"timeout_ms": timeout_ms, "topics": None}

        def attempt():
            response = self.cluster.request(self.cluster.controller(), list_partition_reassignments.API_KEY, body)
            raise_for_error(response["error_code"], response.get("error_message"))
            return response

        response = self.cluster.with_retries(attempt, [])
        return {
            (t["name"], p["partition_index"]): Reassignment(p["replicas"], p["adding_replicas"], p["removing_replicas"])
            for t in response["topics"]
            for p in t["partitions"]
        }

    def delete_records(self, offsets, timeout_ms=30000):
        """Delete records before ``{(topic, partition): offset}`` (-1: the high watermark) on the partitions'
        leaders; returns {tp: (Errors member, low watermark or -1)}. Like Kafka's admin client, a topic
        unknown to the metadata or a partition without a leader fails without a request."""
        offsets = dict(offsets)
        response = self.cluster.metadata(sorted({topic for topic, _ in offsets}))
        topic_errors = {t["name"]: Errors.from_code(t["error_code"]) for t in response["topics"]}
        results = {}
        by_leader = {}
        for tp, offset in offsets.items():
            topic_error = topic_errors.get(tp[0], Errors.UNKNOWN_TOPIC_OR_PARTITION)
            info = self.cluster.topics.get(tp[0])
            part = info.partitions.get(tp[1]) if info is not None else None
            if topic_error != Errors.NONE:
                results[tp] = (topic_error, -1)
            elif part is None or part.leader < 0:
                results[tp] = (Errors.LEADER_NOT_AVAILABLE, -1)
            else:
                by_leader.setdefault(part.leader, {})[tp] = offset
        for leader, partitions in by_leader.items():
            topics = {}
            for (topic, partition), offset in partitions.items():
                topics.setdefault(topic, []).append({"partition_index": partition, "offset": offset})
            body = {
                "topics": [{"name": topic, "partitions": parts} for topic, parts in topics.items()],
                "timeout_ms": timeout_ms,
            }
            answer = self.cluster.request(
                leader, delete_records.API_KEY, body, timeout=self.cluster.timeout + max(0, timeout_ms) / 1000.0
            )
            for topic in answer["topics"]:
                for p in topic["partitions"]:
                    results[(topic["name"], p["partition_index"])] = (
                        Errors.from_code(p["error_code"]),
                        p["low_watermark"],
                    )
        return {tp: results.get(tp, (Errors.UNKNOWN_SERVER_ERROR, -1)) for tp in offsets}

    def describe_log_dirs(self, broker_ids, topic_partitions=None):
        """{broker id: {log dir: LogDirInfo}} from each broker (DescribeLogDirs); ``topic_partitions`` None
        asks for every replica. Raises KafkaClientError for a broker that is unknown or does not answer."""
        topics = None
        if topic_partitions is not None:
            grouped = {}
            for topic, partition in topic_partitions:
                grouped.setdefault(topic, []).append(partition)
            topics = [{"topic": topic, "partition_index": sorted(parts)} for topic, parts in grouped.items()]
        self.cluster.metadata([])
        result = {}
        for broker_id in broker_ids:
            if broker_id not in self.cluster.brokers:
                raise KafkaResponseError(Errors.BROKER_NOT_AVAILABLE, context="broker %d" % broker_id)
            response = self.cluster.request(broker_id, describe_log_dirs.API_KEY, {"topics": topics})
            result[broker_id] = {
                entry["log_dir"]: LogDirInfo(
                    Errors.from_code(entry["error_code"]),
                    {
                        (topic["name"], p["partition_index"]): ReplicaInfo(
                            p["partition_size"], p["offset_lag"], p["is_future_key"]
                        )
                        for topic in entry["topics"]
                        for p in topic["partitions"]
                    },
                )
                for entry in response["results"]
            }
        return result

    def alter_replica_log_dirs(self, assignments):
        """Move replicas between a broker's log dirs: ``{(topic, partition, broker id): log dir}``; returns
        {(topic, partition, broker id): Errors member}."""
        by_broker = {}
        for (topic, partition, broker_id), log_dir in assignments.items():
            by_broker.setdefault(broker_id, {}).setdefault(log_dir, {}).setdefault(topic, []).append(partition)
        self.cluster.metadata([])
        result = {}
        for broker_id, dirs in by_broker.items():
            if broker_id not in self.cluster.brokers:
                for (topic, partition, broker), _ in assignments.items():
                    if broker == broker_id:
                        result[(topic, partition, broker)] = Errors.BROKER_NOT_AVAILABLE
                continue
            body = {
                "dirs": [
                    {
                        "path": path,
                        "topics": [{"name": topic, "partitions": sorted(parts)} for topic, parts in topics.items()],
                    }
                    for path, topics in dirs.items()
                ]
            }
            response = self.cluster.request(broker_id, alter_replica_log_dirs.API_KEY, body)
            for topic in response["results"]:
                for p in topic["partitions"]:
                    result[(topic["topic_name"], p["partition_index"], broker_id)] = Errors.from_code(p["error_code"])
        return result

    # -- delegation tokens ---------------------------------------------------------------------

    def _any_broker(self, api_key, body):
        _, response = self.cluster.with_retries(lambda: self.cluster.any_request(api_key, lambda version: body), [])
        raise_for_error(response["error_code"])
        return response

    def create_delegation_token(self, renewers=(), max_lifetime_ms=-1):
        """A new token owned by this connection's principal; renewers as "User:bob"; -1: the broker's max."""
        response = self._any_broker(
            create_delegation_token.API_KEY,
            {"renewers": [_principal_entry(r) for r in renewers], "max_lifetime_ms": max_lifetime_ms},
        )
        return DelegationToken(
            response["token_id"],
            response["hmac"],
            _principal_text(response),
            tuple(renewers),
            response["issue_timestamp_ms"],
            response["expiry_timestamp_ms"],
            response["max_timestamp_ms"],
        )

    def renew_delegation_token(self, hmac, renew_period_ms=-1):
        """The token's new expiry timestamp; -1: by the broker's delegation.token.expiry.time.ms."""
        return self._any_broker(renew_delegation_token.API_KEY, {"hmac": hmac, "renew_period_ms": renew_period_ms})[
            "expiry_timestamp_ms"
        ]

    def expire_delegation_token(self, hmac, expiry_period_ms=-1):
        """The token's new expiry timestamp; -1 ends the token now."""
        return self._any_broker(
            expire_delegation_token.API_KEY, {"hmac": hmac, "expiry_time_period_ms": expiry_period_ms}
        )["expiry_timestamp_ms"]

    def describe_delegation_tokens(self, owners=None):
        """[DelegationToken] of the given owners ("User:alice"), or of any owner (None) the principal may see."""
        response = self._any_broker(
            describe_delegation_token.API_KEY,
            {"owners": None if owners is None else [_principal_entry(o) for o in owners]},
        )
        return [
            DelegationToken(
                t["token_id"],
                t["hmac"],
                _principal_text(t),
                tuple(_principal_text(r) for r in t["renewers"]),
                t["issue_timestamp"],
                t["expiry_timestamp"],
                t["max_timestamp"],
            )
            for t in response["tokens"]
        ]

    # -- consumer groups -----------------------------------------------------------------------

    def list_groups(self):
        """{group id: protocol type} of the groups every live broker coordinates (ListGroups to each)."""
        self.cluster.metadata([])
        groups = {}
        for node_id in sorted(self.cluster.brokers):
            response = self.cluster.request(node_id, list_groups.API_KEY, {})
            raise_for_error(response["error_code"], context="ListGroups on broker %d" % node_id)
            groups.update((g["group_id"], g["protocol_type"]) for g in response["groups"])
        return groups

    def describe_group(self, group_id):
        """GroupDescription of ``group_id`` from its coordinator; raises on a group-level error."""
        response = self.coordinators.request(
            group_id,
            describe_groups.API_KEY,
            {"groups": [group_id], "include_authorized_operations": False},
            error_of=lambda r: r["groups"][0]["error_code"] if r["groups"] else 0,
        )
        group = response["groups"][0]
        raise_for_error(group["error_code"], context=group_id)
        consumer = group["protocol_type"] == "consumer"
        members = [
            GroupMember(
                m["member_id"],
                m.get("group_instance_id"),
                m["client_id"],
                m["client_host"],
                (assigned_partitions(m["member_assignment"]) or {}) if consumer else {},
            )
            for m in group["members"]
        ]
        coordinator = self.cluster.brokers[self.coordinators.coordinator(group_id)]
        return GroupDescription(
            group["group_id"],
            group["group_state"],
            group["protocol_type"],
            group["protocol_data"],
            members,
            coordinator,
        )

    def delete_groups(self, group_ids):
        """Delete groups; returns {group id: Errors member}."""
        result = {}
        for group_id in group_ids:
            response = self.coordinators.request(
                group_id,
                delete_groups.API_KEY,
                {"groups_names": [group_id]},
                error_of=lambda r: r["results"][0]["error_code"] if r["results"] else 0,
            )
            result.update((r["group_id"], Errors.from_code(r["error_code"])) for r in response["results"])
        return result

    def list_group_offsets(self, group_id, partitions=None):
        """{(topic, partition): committed offset} of a group (all its partitions when ``partitions`` is None)."""
        topics = None
        if partitions is not None:
            by_topic = {}
            for topic, partition in partitions:
                by_topic.setdefault(topic, []).append(partition)
            topics = [{"name": t, "partition_indexes": ps} for t, ps in sorted(by_topic.items())]
        response = self.coordinators.request(
            group_id, offset_fetch.API_KEY, {"group_id": group_id, "topics": topics, "require_stable": False}
        )
        raise_for_error(response.get("error_code", 0), context=group_id)
        offsets = {}
        for topic in response["topics"]:
            for part in topic["partitions"]:
                raise_for_error(part["error_code"], context="%s-%d" % (topic["name"], part["partition_index"]))
                if part["committed_offset"] >= 0:
                    offsets[(topic["name"], part["partition_index"])] = part["committed_offset"]
        return offsets

    def alter_group_offsets(self, group_id, offsets):
        """Commit {(topic, partition): offset} for an inactive group (generation -1, no member); raises on an error."""
        by_topic = {}
        for (topic, partition), offset in sorted(offsets.items()):
            by_topic.setdefault(topic, []).append(
                {
                    "partition_index": partition,
                    "committed_offset": offset,
                    "committed_leader_epoch": -1,
                    "committed_metadata": "",
                }
            )
        body = {
            "group_id": group_id,
            "generation_id": -1,
            "member_id": "",
            "group_instance_id": None,
            "retention_time_ms": -1,
            "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()],
        }
        response = self.coordinators.request(group_id, offset_commit.API_KEY, body, error_of=_first_partition_error)
        for topic in response["topics"]:
            for part in topic["partitions"]:
                raise_for_error(part["error_code"], context="%s-%d" % (topic["name"], part["partition_index"]))

    def delete_group_offsets(self, group_id, partitions):
        """OffsetDelete: returns (group-level Errors member, {(topic, partition): Errors member})."""
        by_topic = {}
        for topic, partition in partitions:
            by_topic.setdefault(topic, []).append({"partition_index": partition})
        body = {"group_id": group_id, "topics": [{"name": t, "partitions": ps} for t, ps in sorted(by_topic.items())]}
        response = self.coordinators.request(group_id, offset_delete.API_KEY, body)
        return (
            Errors.from_code(response["error_code"]),
            {
                (t["name"], p["partition_index"]): Errors.from_code(p["error_code"])
                for t in response["topics"]
                for p in t["partitions"]
            },
        )

    # -- ACLs ----------------------------------------------------------------------------------

    def _acl_request(self, api_key, body_for_version, node_id=None):
        if node_id is None:
            return self.cluster.any_request(api_key, body_for_version)[1]
        connection = self.cluster.connection(node_id)
        return connection.request_with_version(api_key, body_for_version)[1]

    def describe_acls(self, binding_filter, node_id=None):
        """The AclBindings a security.acls.AclBindingFilter selects (from ``node_id``, else any broker);
        raises KafkaResponseError on an error (SECURITY_DISABLED without an authorizer)."""
        pattern_filter, entry_filter = binding_filter
        body = {
            "resource_type_filter": int(pattern_filter.resource_type),
            "resource_name_filter": pattern_filter.name,
            "pattern_type_filter": int(pattern_filter.pattern_type),
            "principal_filter": entry_filter.principal,
            "host_filter": entry_filter.host,
            "operation": int(entry_filter.operation),
            "permission_type": int(entry_filter.permission),
        }
        response = self._acl_request(describe_acls.API_KEY, lambda version: body, node_id)
        raise_for_error(response["error_code"], response.get("error_message"), context="DescribeAcls")
        return sorted(
            AclBinding(
                ResourcePattern(
                    ResourceType(r["resource_type"]),
                    r["resource_name"],
                    PatternType(r.get("pattern_type", PatternType.LITERAL)),
                ),
                _acl_entry(a),
            )
            for r in response["resources"]
            for a in r["acls"]
        )

    def create_acls(self, bindings, node_id=None):
        """Create AclBindings; [(Errors member, message or None)] in their order."""
        creations = [
            {
                "resource_type": int(p.resource_type),
                "resource_name": p.name,
                "resource_pattern_type": int(p.pattern_type),
                "principal": e.principal,
                "host": e.host,
                "operation": int(e.operation),
                "permission_type": int(e.permission),
            }
            for p, e in bindings
        ]
        response = self._acl_request(create_acls.API_KEY, lambda version: {"creations": creations}, node_id)
        # Kafka 2.5 answers "" beside a success: no message, as None says
        return [(Errors.from_code(r["error_code"]), r.get("error_message") or None) for r in response["results"]]

    def delete_acls(self, filters, node_id=None):
        """Delete what each AclBindingFilter selects; per filter (Errors member, message, [(AclBinding, Errors
        member, message)] deleted)."""
        body = {
            "filters": [
                {
                    "resource_type_filter": int(p.resource_type),
                    "resource_name_filter": p.name,
                    "pattern_type_filter": int(p.pattern_type),
                    "principal_filter": e.principal,
                    "host_filter": e.host,
                    "operation": int(e.operation),
                    "permission_type": int(e.permission),
                }
                for p, e in filters
            ]
        }
        response = self._acl_request(delete_acls.API_KEY, lambda version: body, node_id)
        return [
            (
                Errors.from_code(r["error_code"]),
                r.get("error_message"),
                [
                    (
                        AclBinding(
                            ResourcePattern(
                                ResourceType(m["resource_type"]),
                                m["resource_name"],
                                PatternType(m.get("pattern_type", PatternType.LITERAL)),
                            ),
                            _acl_entry(m),
                        ),
                        Errors.from_code(m["error_code"]),
                        m.get("error_message"),
                    )
                    for m in r["matching_acls"]
                ],
            )
            for r in response["filter_results"]
        ]


def _acl_entry(fields):
    return AclEntry(
        fields["principal"],
        fields["host"],
        AclOperation(fields["operation"]),
        PermissionType(fields["permission_type"]),
    )


def _first_partition_error(response):
    for topic in response["topics"]:
        for part in topic["partitions"]:
            if part["error_code"]:
                return part["error_code"]
    return 0
