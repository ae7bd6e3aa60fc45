"""One module per Kafka API key, each defining API_KEY, NAME, REQUEST and RESPONSE schemas."""
