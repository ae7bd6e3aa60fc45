"""Every broker's in-memory SCRAM credentials, {mechanism: {user: ScramCredential}}, as /config/users holds them."""

from __future__ import annotations

import logging
from typing import Mapping, Optional

from kafka_zk.security.scram import MECHANISMS, ScramCredential, parse_credential

log = logging.getLogger(__name__)


class CredentialCache:
    def __init__(self):
        self._credentials = {mechanism: {} for mechanism in MECHANISMS}

    def update_user(self, user: str, config: Mapping[str, str]) -> None:
        """Take a user's configs (quotas and SCRAM credentials side by side): the SCRAM ones replace what the
        cache held for the user; a mechanism missing from them is removed."""
        for mechanism, users in self._credentials.items():
            stored = config.get(mechanism)
            if stored is None:
                users.pop(user, None)
                continue
            try:
                users[user] = parse_credential(stored)
            except ValueError as error:
                users.pop(user, None)
                log.warning("ignoring the %s credential of user %s: %s", mechanism, user, error)

    def get(self, mechanism: str, user: str) -> Optional[ScramCredential]:
        return self._credentials.get(mechanism, {}).get(user)

    def users(self, mechanism: str) -> list[str]:
        return sorted(self._credentials.get(mechanism, {}))
