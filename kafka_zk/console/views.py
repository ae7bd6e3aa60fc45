"""What the console's pages show, as JSON-ready dicts built from plain cluster facts: brokers and their liveness,
topics and partition health, reassignment progress, consumer-group lag (pure: no I/O, no reactor)."""


def partition_health(replicas, leader, isr, live, adding=()):
    """(under_replicated, offline) of one partition. Under-replicated as Kafka's UnderReplicatedPartitions counts
    it (fewer in-sync replicas than replicas, not counting replicas a reassignment is still adding), and also when
    an in-sync replica's broker is gone, which the console sees before the controller shrinks the ISR; offline
    when there is no leader or the leader's broker is gone (an offline partition is not also under-replicated)."""
    target = [r for r in replicas if r not in adding]
    in_sync_live = [r for r in isr if r in live]
    offline = leader is None or leader < 0 or leader not in live
    return not offline and len(in_sync_live) < len(target), offline


def broker_rows(registrations, known, controller_id, assigned_ids=()):
    """One row per broker, live ones from their registrations ({id: {"listeners": [...], "rack": r}}), dead ones
    from what was seen before (``known``, same shape) or only named by an assignment (``assigned_ids``)."""
    rows = []
    for broker_id in sorted(set(registrations) | set(known) | set(assigned_ids)):
        facts = registrations.get(broker_id) or known.get(broker_id) or {"listeners": [], "rack": None}
        rows.append(
            {
                "id": broker_id,
                "listeners": list(facts["listeners"]),
                "rack": facts["rack"],
                "alive": broker_id in registrations,
                "controller": broker_id == controller_id,
            }
        )
    return rows


def topic_rows(assignments, states, live, deleting=(), internal=("__consumer_offsets", "__transaction_state")):
    """Topics sorted by name with their partitions: ``assignments`` {topic: {partition: {"replicas": [...],
    "adding": [...], "removing": [...]}}}, ``states`` {(topic, partition): (leader, leader epoch, isr)}."""
    topics = []
    for name in sorted(assignments):
        partitions = []
        for partition, placed in sorted(assignments[name].items()):
            leader, epoch, isr = states.get((name, partition), (-1, -1, []))
            under, offline = partition_health(placed["replicas"], leader, isr, live, placed.get("adding", ()))
            partitions.append(
                {
                    "partition": partition,
                    "leader": leader,
                    "leader_epoch": epoch,
                    "replicas": list(placed["replicas"]),
                    "isr": list(isr),
                    "adding": list(placed.get("adding", ())),
                    "removing": list(placed.get("removing", ())),
                    "preferred_leader": leader == (placed["replicas"] or [None])[0],
                    "under_replicated": under,
                    "offline": offline,
                }
            )
        topics.append(
            {
                "name": name,
                "internal": name in internal,
                "marked_for_deletion": name in deleting,
                "partitions": partitions,
                "replication_factor": len(partitions[0]["replicas"]) - len(partitions[0]["adding"])
                if partitions
                else 0,
                "under_replicated": sum(p["under_replicated"] for p in partitions),
                "offline": sum(p["offline"] for p in partitions),
                "not_preferred": sum(not p["preferred_leader"] for p in partitions),
            }
        )
    return topics


def reassignment_rows(requested, listed, assignments, states):
    """Reassignments in progress, from /admin/reassign_partitions (``requested`` {tp: target replicas}) and the
    controller's ListPartitionReassignments (``listed`` {tp: (replicas, adding, removing)}), with progress: how
    many of the target replicas are in sync (a move is done when every one of them is)."""
    rows = []
    for tp in sorted(set(requested) | set(listed)):
        topic, partition = tp
        placed = assignments.get(topic, {}).get(partition, {})
        replicas, adding, removing = listed.get(
            tp, (placed.get("replicas", []), placed.get("adding", []), placed.get("removing", []))
        )
        target = list(requested.get(tp) or [r for r in replicas if r not in removing])
        isr = states.get(tp, (-1, -1, []))[2]
        in_sync = [r for r in target if r in isr]
        rows.append(
            {
                "topic": topic,
                "partition": partition,
                "replicas": list(replicas),
                "target": target,
                "adding": list(adding),
                "removing": list(removing),
                "isr": list(isr),
                "in_sync": len(in_sync),
                "of": len(target),
                "progress": round(len(in_sync) / len(target), 3) if target else 1.0,
                "source": "zookeeper" if tp in requested else "api",
            }
        )
    return rows


def group_row(description, offset_rows):
    """One consumer group: state, members with their partitions, and per partition the committed offset, the log
    end offset and the lag (kafka-consumer-groups --describe's rows, None where unknown)."""
    partitions = [
        {
            "topic": topic,
            "partition": partition,
            "committed": committed,
            "log_end": end,
            "lag": lag,
            "member": member,
            "host": host,
            "client_id": client,
        }
        for topic, partition, committed, end, lag, member, host, client in offset_rows
    ]
    return {
        "group": description.group_id,
        "state": description.state,
        "protocol": description.protocol,
        "coordinator": getattr(description.coordinator, "node_id", None),
        "members": [
            {
                "member_id": m.member_id,
                "client_id": m.client_id,
                "host": m.host,
                "assignment": {t: sorted(ps) for t, ps in sorted(m.assignment.items())},
            }
            for m in description.members
        ],
        "partitions": partitions,
        "total_lag": sum(p["lag"] or 0 for p in partitions),
    }


def count_replicas(brokers, topics):
    """Each broker row gets how many partitions it leads and how many replicas it holds."""
    leaders, replicas = {}, {}
    for topic in topics:
        for p in topic["partitions"]:
            leaders[p["leader"]] = leaders.get(p["leader"], 0) + 1
            for broker_id in p["replicas"]:
                replicas[broker_id] = replicas.get(broker_id, 0) + 1
    for row in brokers:
        row["leaders"] = leaders.get(row["id"], 0)
        row["replicas"] = replicas.get(row["id"], 0)
    return brokers


def needs_attention(partition):
    return (
        partition["under_replicated"]
        or partition["offline"]
        or not partition["preferred_leader"]
        or partition["adding"]
        or partition["removing"]
    )


def page_state(state, limit=2000):
    """The state as the pages get it every two seconds: whole up to ``limit`` partitions; past that, each topic
    with only its partitions that need attention (unhealthy, not led by the preferred replica, moving), and
    "partitions_complete" false (a topic's own page reads all of its partitions)."""
    total = sum(len(t["partitions"]) for t in state.get("topics", ()))
    if total <= limit:
        return dict(state, partitions_complete=True)
    topics = [dict(t, partitions=[p for p in t["partitions"] if needs_attention(p)]) for t in state["topics"]]
    return dict(state, topics=topics, partitions_complete=False, partition_count=total)


def state_digest(state):
    """What changes the cluster pages (not counters): the brokers, the controller, partition states and
    reassignments. A page waiting for news is answered as soon as this changes."""
    return repr(
        (
            state.get("brokers"),
            state.get("controller"),
            [
                (t["name"], t["marked_for_deletion"], [(p["leader"], p["isr"], p["replicas"]) for p in t["partitions"]])
                for t in state.get("topics", ())
            ],
            state.get("reassignments"),
            state.get("error"),
        )
    )
