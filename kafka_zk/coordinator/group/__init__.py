"""Group coordinator: pure group state, decisions and `__consumer_offsets` record formats (no reactor here)."""
