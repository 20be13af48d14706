"""The ordering core: per-author feeds in, one transcript out.

The ledger holds every author's gapless, hash-chained feed and consumes it
into the transcript in the one order the turn structure allows:

* when the game needs a seed, every seat's next message must be its commit
  for this round; once all are in they enter the transcript in seat order;
  then the same for reveals, after which the game is dealt;
* otherwise, when the game waits on one seat, that seat's next message must
  be an action on the current public state; in a simultaneous phase every
  listed seat's next message must be, and they are applied in seat order.

Each message carries the public state it acts on. A message whose state is
the current one but which does not fit (wrong type, out of turn, illegal, a
reveal that does not open its commitment) is proof of cheating: an honest
peer at the same state would not have signed it. A message on another state
just waits: its author may be ahead of us, or may have been misled by an
equivocator whose second message is still on its way. Because the order is a
pure function of the feeds, every replica and ``verify_transcript`` compute
the same transcript from the same feeds. No I/O, no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from enum import Enum

from .canonical import hash_obj
from .commit_reveal import check_reveal, combine
from .envelope import Envelope
from .events import Applied, Cheat, Event, RoundSeeded, Transcribed
from .game_iface import GameMachine

__all__ = ["Ledger", "AddResult", "genesis_head", "chain"]


class AddResult(Enum):
    """What happened to a feed message handed to :meth:`Ledger.add`."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    AHEAD = "ahead"  # a gap before it: the caller buffers it and asks for the rest
    CHEAT = "cheat"


def genesis_head(table: str, roster: Mapping[int, bytes]) -> str:
    """The chain head before any message: binds the table id and the roster."""
    return hash_obj({"table": table, "roster": {str(s): k.hex() for s, k in roster.items()}})


def chain(head: str, digest: str) -> str:
    """Next transcript head: SHA-256 of the previous head and the message digest (raw bytes)."""
    return hashlib.sha256(bytes.fromhex(head) + bytes.fromhex(digest)).hexdigest()


class Ledger:
    """Feeds plus transcript for one table; see the module doc for the ordering rules."""

    def __init__(self, table: str, roster: Mapping[int, bytes], game: GameMachine) -> None:
        self.table = table
        self.roster = dict(sorted(roster.items()))
        self.seats = tuple(self.roster)
        self.game = game
        self.feeds: dict[int, list[Envelope]] = {s: [] for s in self.seats}
        self.consumed: dict[int, int] = {s: 0 for s in self.seats}
        self.entries: list[Envelope] = []
        self.head = genesis_head(table, self.roster)
        self.round = 0
        self.stage = "commit"  # within a seed phase: "commit" then "reveal"
        self.commits: dict[int, Envelope] = {}
        self.halted: Cheat | None = None
        self.fault: str | None = None  # the game itself failed: a local bug, not a peer

    # -- feeds ---------------------------------------------------------------

    def add(self, env: Envelope) -> tuple[AddResult, Cheat | None]:
        """File a verified feed message under its author; detects equivocation and broken chains."""
        feed = self.feeds[env.seat]
        if env.seq <= len(feed):
            old = feed[env.seq - 1]
            if old.digest == env.digest:
                return AddResult.DUPLICATE, None
            return AddResult.CHEAT, self.blame(
                env.seat,
                f"equivocation: seat {env.seat} signed two different messages as seq {env.seq}",
                (old.frame, env.frame),
            )
        if env.seq > len(feed) + 1:
            return AddResult.AHEAD, None
        expected = feed[-1].digest if feed else ""
        if env.prev != expected:
            return AddResult.CHEAT, self.blame(
                env.seat,
                f"forked feed: seat {env.seat}'s seq {env.seq} does not follow "
                f"the seq {env.seq - 1} it signed before",
                (feed[-1].frame, env.frame),
            )
        feed.append(env)
        return AddResult.ACCEPTED, None

    def next_seq(self, seat: int) -> int:
        """The seq ``seat``'s next feed message must carry."""
        return len(self.feeds[seat]) + 1

    def last_digest(self, seat: int) -> str:
        """Digest of ``seat``'s last feed message ("" before the first)."""
        feed = self.feeds[seat]
        return feed[-1].digest if feed else ""

    def pending(self, seat: int) -> Envelope | None:
        """``seat``'s oldest message not yet in the transcript."""
        i = self.consumed[seat]
        feed = self.feeds[seat]
        return feed[i] if i < len(feed) else None

    # -- ordering ------------------------------------------------------------

    def blame(self, seat: int, reason: str, evidence: tuple[bytes, ...]) -> Cheat:
        """Record proof against ``seat``; the first one halts the ledger."""
        cheat = Cheat(seat, reason, evidence)
        if self.halted is None:
            self.halted = cheat
        return cheat

    def _append(self, env: Envelope, out: list[Event]) -> None:
        self.entries.append(env)
        self.consumed[env.seat] += 1
        self.head = chain(self.head, env.digest)
        out.append(Transcribed(len(self.entries) - 1, env.seat, env.frame, self.head))

    def owed(self) -> tuple[str, tuple[int, ...]]:
        """What the game waits for now and from whom: ("commit"|"reveal"|"action"|"", seats)."""
        if self.halted is not None or self.fault is not None:
            return "", ()
        if self.game.needs_seed():
            return self.stage, self.seats
        return "action", tuple(s for s in sorted(set(self.game.actors())) if s in self.roster)

    def can_author(self, seat: int) -> str | None:
        """The kind of message ``seat`` should sign now, or None (not owed, or already sent)."""
        kind, seats = self.owed()
        if seat not in seats or self.pending(seat) is not None:
            return None
        return kind

    def waiting(self) -> list[tuple[int, str]]:
        """(seat, what) for every seat whose next message the transcript is blocked on."""
        kind, seats = self.owed()
        if not seats:
            return []
        state = self.game.public_hash()
        what = f"{kind} for round {self.round}" if kind != "action" else "action"
        out = []
        for s in seats:
            env = self.pending(s)
            if env is None:
                out.append((s, what))
            elif env.state != state:
                out.append((s, f"{what} on the current state (its next message acts on another)"))
        return out

    def _misfit(self, env: Envelope, kind: str) -> str | None:
        """Why ``env`` (on the current state) cannot be the ``kind`` owed now, or None."""
        if env.type != kind:
            return f"seat {env.seat} sent {env.type} where the game owes a {kind}"
        if kind in ("commit", "reveal"):
            if env.body["round"] != self.round:
                return (
                    f"seat {env.seat} sent a {kind} for round {env.body['round']}, not {self.round}"
                )
            if kind == "reveal":
                commit = self.commits[env.seat]
                ok = check_reveal(
                    commit.body["commit"],
                    self.table,
                    self.round,
                    env.seat,
                    bytes.fromhex(env.body["nonce"]),
                    bytes.fromhex(env.body["seed"]),
                )
                if not ok:
                    return (
                        f"seat {env.seat}'s reveal for round {self.round} does not match its commit"
                    )
        return None

    def drive(self) -> list[Event]:
        """Consume every message the turn structure allows; returns what happened."""
        out: list[Event] = []
        while self.halted is None and self.fault is None and self._step(out):
            pass
        return out

    def _step(self, out: list[Event]) -> bool:
        kind, owed = self.owed()
        state = self.game.public_hash()
        # A message signed on this very state by a seat the game does not wait on is out of turn.
        for s in self.seats:
            env = self.pending(s)
            if env is None or env.state != state:
                continue
            if s not in owed:
                waits = ", ".join(map(str, owed)) or "nobody"
                out.append(
                    self.blame(
                        s,
                        f"out of turn: seat {s} sent {env.type} while the game waits on {waits}",
                        (env.frame,),
                    )
                )
                return False
            problem = self._misfit(env, kind)
            if problem:
                evidence = (env.frame,)
                if env.type == "reveal" and s in self.commits:
                    evidence = (self.commits[s].frame, env.frame)
                out.append(self.blame(s, problem, evidence))
                return False
        if not owed:
            return False
        batch = [self.pending(s) for s in owed]
        if any(env is None or env.state != state for env in batch):
            return False
        ready = [env for env in batch if env is not None]
        if kind == "commit":
            for env in ready:
                self.commits[env.seat] = env
                self._append(env, out)
            self.stage = "reveal"
            return True
        if kind == "reveal":
            for env in ready:
                self._append(env, out)
            seed = combine([bytes.fromhex(env.body["seed"]) for env in ready])
            try:
                self.game.start_round(seed)
            except Exception as exc:  # noqa: BLE001 - a game bug must not crash the peer
                self.fault = f"game failed to start round {self.round}: {exc!r}"
                return False
            out.append(RoundSeeded(self.round, seed))
            self.round += 1
            self.stage = "commit"
            self.commits = {}
            return True
        for env in ready:
            action = dict(env.body)
            try:
                self.game.check(env.seat, action)
            except Exception as exc:  # noqa: BLE001 - the game names the rule
                out.append(
                    self.blame(env.seat, f"illegal action by seat {env.seat}: {exc}", (env.frame,))
                )
                return False
            try:
                self.game.apply(env.seat, action)
            except Exception as exc:  # noqa: BLE001
                self.fault = f"game failed to apply a checked action: {exc!r}"
                return False
            self._append(env, out)
            out.append(Applied(env.seat, env.seq, action, self.game.public_hash()))
        return True
