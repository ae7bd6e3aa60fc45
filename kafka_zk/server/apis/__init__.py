"""The registry of request handlers, one module per API key; ApiVersions advertises exactly these."""

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.server.apis import (
    alter_configs, alter_partition_reassignments, api_versions, controlled_shutdown, create_partitions,
    create_topics, delete_topics, describe_configs, elect_leaders, fetch, find_coordinator,
    incremental_alter_configs, init_producer_id, leader_and_isr, list_offsets, list_partition_reassignments,
    metadata, offset_for_leader_epoch, produce, stop_replica, update_metadata)
from kafka_zk.server.apis import alter_replica_log_dirs, delete_records, describe_log_dirs
from kafka_zk.server.apis import (
    delete_groups, describe_groups, heartbeat, join_group, leave_group, list_groups, offset_commit, offset_delete,
    offset_fetch, sync_group)
from kafka_zk.server.apis import (
    add_offsets_to_txn, add_partitions_to_txn, end_txn, txn_offset_commit, write_txn_markers)

HANDLER_MODULES = [produce, fetch, list_offsets, metadata, leader_and_isr, stop_replica, update_metadata,
                   controlled_shutdown, find_coordinator, api_versions, create_topics, delete_topics,
                   init_producer_id, offset_for_leader_epoch, describe_configs, create_partitions, elect_leaders,
                   alter_partition_reassignments, list_partition_reassignments, alter_configs,
                   incremental_alter_configs]
HANDLER_MODULES += [delete_records, describe_log_dirs, alter_replica_log_dirs]
HANDLER_MODULES += [offset_commit, offset_fetch, join_group, heartbeat, leave_group, sync_group, describe_groups,
                    list_groups, delete_groups, offset_delete]
HANDLER_MODULES += [write_txn_markers, add_partitions_to_txn, add_offsets_to_txn, end_txn, txn_offset_commit]

HANDLERS = {module.API_KEY: module.handle for module in HANDLER_MODULES}


def supported_versions():
    """[(api_key, min_version, max_version)] for every API with a handler."""
    return [(key, API_SPECS[key].min_version, API_SPECS[key].max_version) for key in sorted(HANDLERS)]
