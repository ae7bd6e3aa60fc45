"""The broker's metrics: the registry its components record into, and the Prometheus endpoint that serves it."""
