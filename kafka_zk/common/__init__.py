"""Shared by all layers: purgatory, metrics, sampled rates, log4j, state-change log, .properties, topic names, clock."""
