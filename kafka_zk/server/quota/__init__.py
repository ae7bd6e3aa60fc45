"""Client and replication quotas."""
