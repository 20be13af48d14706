"""The users of ``zsy relay --password-file``: an amqtt authentication plugin.

A module of its own because amqtt loads plugins by dotted path and this one imports amqtt at
the top (the optional ``broker`` extra): nothing else imports it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

from amqtt.plugins.base import BaseAuthPlugin
from amqtt.session import Session


class PasswordAuth(BaseAuthPlugin):
    """Admits a client whose user name and password are in ``users``; refuses anyone else."""

    async def authenticate(self, *, session: Session) -> bool:
        users: dict[str, str] = self.config.users
        expected = users.get(session.username or "")
        given = (session.password or "").encode("utf-8")
        # compare even for an unknown user, so the time does not say which names exist
        ok = hmac.compare_digest(given, (expected or "\0").encode("utf-8"))
        return expected is not None and ok

    @dataclass
    class Config:
        users: dict[str, str] = field(default_factory=dict)
