"""The group and transaction coordinators, each whole: its pure core beside its reactor shell, and their metrics."""
