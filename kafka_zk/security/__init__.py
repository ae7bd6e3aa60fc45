"""Security: principals, SASL mechanisms, TLS contexts, credentials, tokens and the ACL authorizer."""
