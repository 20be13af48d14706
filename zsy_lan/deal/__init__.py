"""The private deal: elliptic-curve SRA mental poker, sans-IO (docs/private-deal.md).

- ``group``: the ed25519 prime-order group (card points, masks, validation, self-test)
- ``messages``: the deal messages and their canonical JSON-able bodies
- ``mental``: ``DealConfig`` and ``DealPeer``, one seat's state machine (one driver:
  ``verify`` then ``ingest`` every transcript message; ``*_message`` builders)
- ``sealed``: X25519 + ChaCha20-Poly1305 boxes for face-down passes
- ``audit``: ``audit_deal``, the end-of-round audit (a pure function of the transcript)

(All peers of a deal in one process, for the tests and the benchmark:
tests/deal/deal_sim.py, not shipped.)
"""

from zsy_lan.deal.audit import AuditReport, Finding, PassRecord, audit_deal
from zsy_lan.deal.deal_errors import (
    BadPoint,
    BadScalar,
    CheatDetected,
    DealError,
    MalformedMessage,
    PrimitiveUnavailable,
    ProtocolViolation,
)
from zsy_lan.deal.group import self_test
from zsy_lan.deal.mental import FACE_UP, STOCK, DealConfig, DealPeer
from zsy_lan.deal.messages import (
    MESSAGE_TYPES,
    Commit,
    Keys,
    Message,
    Open,
    Pass,
    Relock,
    Reveal,
    Shuffle,
    decode,
    encode,
    from_body,
)

__all__ = [
    "FACE_UP",
    "MESSAGE_TYPES",
    "STOCK",
    "AuditReport",
    "BadPoint",
    "BadScalar",
    "CheatDetected",
    "Commit",
    "DealConfig",
    "DealError",
    "DealPeer",
    "Finding",
    "Keys",
    "MalformedMessage",
    "Message",
    "Open",
    "Pass",
    "PassRecord",
    "PrimitiveUnavailable",
    "ProtocolViolation",
    "Relock",
    "Reveal",
    "Shuffle",
    "audit_deal",
    "decode",
    "encode",
    "from_body",
    "self_test",
]
