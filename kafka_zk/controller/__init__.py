"""The controller: KafkaController, its context and event queue, state machines, elections, fenced writes, channels."""
