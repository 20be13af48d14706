"""A host's ticket for its table's scope at a relay: proof that the table id is its own.

Why a module of its own (issue #25): a relay serves a bounded number of table
scopes, and a CURVE key costs nothing, so strangers took every scope with
fresh keys and made-up ids. A table id is not arbitrary:
:func:`~zsy_lan.protocol.lobby.table_id_for` derives it from the host's
identity key, the table's name and a random nonce. The ticket carries the
name and nonce, signed by that identity, so the relay (which holds no key of
the table) can check that whoever opens a scope is the host of that very
table: nobody can open, or squat, a scope for a table id that is not theirs,
and the relay can let one host key hold one scope. The ticket reveals the
nonce, nothing else of the table; it names no seat and opens no frame.
"""

from __future__ import annotations

from zsy_lan.protocol.identity import Identity
from zsy_lan.protocol.lobby import table_id_for
from zsy_lan.protocol.signed import open_signed, seal_signed

__all__ = ["MAX_TICKET", "TICKET_MAGIC", "TicketError", "check_ticket", "make_ticket"]

TICKET_MAGIC = b"ZSYSCOPE1\n"
#: bytes of a ticket at most (a name of 64 characters, escaped, and the signature fit)
MAX_TICKET = 1024


class TicketError(ValueError):
    """A ticket that proves nothing; the message says why."""


def make_ticket(identity: Identity, name: str, nonce: bytes) -> bytes:
    """The host's signed ticket for the table ``table_id_for(identity, name, nonce)``."""
    table = table_id_for(identity.public_key, name, nonce)
    return seal_signed(
        TICKET_MAGIC, identity, "scope", {"table": table, "name": name, "nonce": nonce.hex()}
    )


def check_ticket(ticket: bytes, scope: str) -> bytes:
    """The host key that ``ticket`` proves holds table ``scope``; :class:`TicketError` if none."""
    try:
        _kind, host, body = open_signed(ticket, TICKET_MAGIC, ("scope",), MAX_TICKET, "ticket")
    except ValueError as exc:
        raise TicketError(str(exc)) from None
    name, nonce = body.get("name"), body.get("nonce")
    if not isinstance(name, str) or not isinstance(nonce, str) or len(nonce) > 64:
        raise TicketError("a ticket names its table's name and nonce")
    try:
        raw = bytes.fromhex(nonce)
    except ValueError:
        raise TicketError("a ticket's nonce is hexadecimal") from None
    if body.get("table") != scope or table_id_for(host, name, raw) != scope:
        raise TicketError("the ticket is for another table, or not its host's")
    return host
