"""The network layer under everyone: framing, the socket server, the Twisted broker client."""
