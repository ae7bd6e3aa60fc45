"""The transaction coordinator's pure cores: state machine, `__transaction_state` records, decisions."""
