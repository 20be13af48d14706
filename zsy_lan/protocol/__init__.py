"""Sans-IO replication protocol: signed feeds, one transcript, commit-reveal seeds.

Nothing here opens a socket, reads a clock or draws randomness: the shell
(asyncio + ZeroMQ) feeds frames and the time in, and acts on the events that
come out. See docs/protocol.md for the wire format and the shell contract.
"""

from zsy_lan.protocol.canonical import canonical, decode, digest, sha256_hex
from zsy_lan.protocol.commit_reveal import Secret, check_reveal, combine, commitment
from zsy_lan.protocol.envelope import MAX_FRAME, Envelope, FrameError, open_frame, seal
from zsy_lan.protocol.events import (
    Applied,
    Cheat,
    Event,
    Hello,
    PeerState,
    Persist,
    Rejected,
    RoundSeeded,
    Send,
    Stalled,
    Transcribed,
)
from zsy_lan.protocol.game_iface import GameMachine
from zsy_lan.protocol.identity import Identity, fingerprint, verify, verify_curve_key
from zsy_lan.protocol.ledger import Ledger
from zsy_lan.protocol.replica import TICK, Replica, Timing
from zsy_lan.protocol.transcript import (
    VerifyResult,
    dump_line,
    header_line,
    load_header,
    load_line,
    verify_transcript,
)

__all__ = [
    "Applied",
    "Cheat",
    "Envelope",
    "Event",
    "FrameError",
    "GameMachine",
    "Hello",
    "Identity",
    "Ledger",
    "MAX_FRAME",
    "PeerState",
    "Persist",
    "Rejected",
    "Replica",
    "RoundSeeded",
    "Secret",
    "Send",
    "Stalled",
    "TICK",
    "Timing",
    "Transcribed",
    "VerifyResult",
    "canonical",
    "check_reveal",
    "combine",
    "commitment",
    "decode",
    "dump_line",
    "fingerprint",
    "digest",
    "header_line",
    "load_header",
    "load_line",
    "open_frame",
    "seal",
    "sha256_hex",
    "verify",
    "verify_curve_key",
    "verify_transcript",
]
