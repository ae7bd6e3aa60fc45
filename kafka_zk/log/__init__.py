"""The on-disk log, pure file code: Log, segments, indexes, checkpoints, epochs, producer state, LogManager, cleaner."""
