"""Record batches, pure: the v2 batch header and records, legacy message sets, compression, the leader's validation."""
