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

Motions (docs/protocol.md, "Motions"): when the transcript waits on a seat
that is gone, the *other* seats can agree to go on without it. Votes,
returns and releases, the quorum and the cut rule live in
:mod:`zsy_lan.protocol.motions` (one transition table, one function that
moves it); the ledger hands it what joined the feeds and what the turn order
decided, and reads back who is held, which messages are void and whether a
vote here freezes a seat. A replica that applied a message a motion later
voids (only the seat voted about, or a held seat that came back) reports
:attr:`Ledger.diverged`; its replica rebuilds from the feeds. With no motion
open the bookkeeping costs a flag and a couple of dict lookups per message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from enum import Enum

from zsy_lan.engine.errors import PluginError
from zsy_lan.protocol.commit_reveal import REVEAL, check_reveal, combine
from zsy_lan.protocol.envelope import MOTIONS, NEUTRAL_TYPES, Envelope, roster_binding
from zsy_lan.protocol.events import Applied, Aside, Cheat, Event, RoundSeeded, Transcribed
from zsy_lan.protocol.game_iface import (
    GameMachine,
    describe_fault,
    fault_traceback,
    is_violation,
)
from zsy_lan.protocol.local_fault import PLUGIN, PROGRAM
from zsy_lan.protocol.motions import (
    Carried,
    Declined,
    Forget,
    Motions,
    Refused,
    Release,
    Return,
    Vote,
    may_void,
    void_round,
)
from zsy_lan.protocol.tail import Tail

__all__ = ["Ledger", "AddResult", "Tail", "genesis_head", "chain"]


class AddResult(Enum):
    """What happened to a feed message handed to :meth:`Ledger.add`."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    AHEAD = "ahead"  # a gap before it: the caller buffers it and asks for the rest
    CHEAT = "cheat"


def genesis_head(table: str, roster: Mapping[int, bytes]) -> str:
    """The chain head before any message: binds the table id and the roster.

    Every seat's first feed message chains to it too (its ``prev`` at seq 1, checked
    by :func:`~zsy_lan.protocol.envelope.open_frame`): :func:`roster_binding`.
    """
    return roster_binding(table, roster)


def chain(head: str, digest: str) -> str:
    """Next transcript head: SHA-256 of the previous head and the message digest (raw bytes)."""
    return hashlib.sha256(bytes.fromhex(head) + bytes.fromhex(digest)).hexdigest()


class Ledger:
    """Feeds plus transcript for one table; see the module doc for the ordering rules.

    ``seat`` is this replica's own seat (its own votes freeze the seat voted
    about); None for an observer such as ``verify_transcript``.
    """

    def __init__(
        self,
        table: str,
        roster: Mapping[int, bytes],
        game: GameMachine,
        seat: int | None = None,
    ) -> None:
        self.table = table
        self.roster = dict(sorted(roster.items()))
        self.seats = tuple(self.roster)
        self.game = game
        self.seat = seat
        self.feeds: dict[int, Tail[Envelope]] = {s: Tail() for s in self.seats}
        self.consumed: dict[int, int] = {s: 0 for s in self.seats}
        self.entries: Tail[Envelope] = Tail()
        self.head = self.head_0 = genesis_head(table, self.roster)
        self.round = 0
        self.stage = "commit"  # within a seed phase: "commit" then "reveal"
        self.commits: dict[int, Envelope] = {}
        self._precommitted = False  # self.commits come from the last reveals' "next"
        self.halted: Cheat | None = None
        self.fault: str | None = None  # the game itself failed: a local bug, not a peer
        self.fault_detail = ""  # its traceback, for the log only
        self.fault_class = PROGRAM  # the word its bye says (PLUGIN: a rules plugin's bug)
        # -- motions: all empty while nobody moved one; only motions.py changes them
        self.motions = m = Motions(self, seat)
        self.held, self.votes, self.motion_log = m.held, m.votes, m.log  # never rebound
        # position -> (first entry, entry count, held seats) of the step taken there
        self.steps: dict[str, tuple[int, int, frozenset[int]]] = {}
        # (entries before it, seat, frame)
        self.asides: Tail[tuple[int, int, bytes]] = Tail()
        self.emitted: dict[int, int] = {s: 0 for s in self.seats}  # feed prefix in the file
        # -- retention (see retire()): where each round's play began, who acted last where
        self.round_marks: list[int] = []  # len(entries) right after each round was seeded
        self.last_entry: dict[int, int] = {}  # seat -> index of its latest transcript entry

    # -- feeds ---------------------------------------------------------------

    def add(self, env: Envelope) -> tuple[AddResult, Cheat | None]:
        """File a verified feed message under its author; detects equivocation and broken chains.

        A vote or a return is noted at once (it never waits in the feed); a
        vote on its author's own seat is a cheat (returned with ACCEPTED).
        """
        feed = self.feeds[env.seat]
        if env.seq <= len(feed):
            if env.seq <= feed.base:
                # every seat applied that seq long ago (retire()); a second version
                # of it could change nothing any more, and the first one left memory
                return AddResult.DUPLICATE, None
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
        # seq 1 chains to the roster binding (or "" before #25): open_frame checked it
        expected = feed[-1].digest if feed else env.prev
        if env.prev != expected:
            return AddResult.CHEAT, self.blame(
                env.seat,
                f"forked feed: seat {env.seat}'s seq {env.seq} does not follow "
                f"the seq {env.seq - 1} it signed before",
                (feed[-1].frame, env.frame),
            )
        feed.append(env)
        if env.type in NEUTRAL_TYPES:
            if env.type == "chat":
                # nothing waits on a chat line and it decides nothing (the replica hands it
                # to the shell; the record writes it before its author's next entry)
                return AddResult.ACCEPTED, None
            event = Return(env) if env.type == "return" else Vote(env)
            return AddResult.ACCEPTED, self.motions.process(event)
        return AddResult.ACCEPTED, None

    def next_seq(self, seat: int) -> int:
        """The seq ``seat``'s next feed message must carry."""
        return len(self.feeds[seat]) + 1

    def last_digest(self, seat: int) -> str:
        """Digest of ``seat``'s last feed message ("" before the first)."""
        feed = self.feeds[seat]
        return feed[-1].digest if feed else ""

    def opener_prev(self, unbound: bool = False) -> str:
        """The ``prev`` a seat's first feed message signs: the roster binding (docs/protocol.md
        "Frames"), or ``""`` at a table begun before issue #25 (``unbound``)."""
        return "" if unbound else self.head_0

    def pending(self, seat: int) -> Envelope | None:
        """``seat``'s oldest message not yet in the transcript (skips votes, returns, void ones)."""
        feed = self.feeds[seat]
        items, base = feed.items, feed.base  # (retire() never drops an unconsumed message)
        i = self.consumed[seat] - base
        n = len(items)
        if i < n:
            env = items[i]
            if not self.motions.skipping and env.type not in NEUTRAL_TYPES:
                return env  # the usual case: nothing to skip
        while i < n:
            env = items[i]
            if env.type in NEUTRAL_TYPES or (self.motions.skipping and self.motions.void(env)):
                i += 1
                continue
            break
        self.consumed[seat] = i + base
        return items[i] if i < n else None

    def run(self, seat: int, n: int) -> list[Envelope]:
        """``seat``'s next ``n`` pending messages (a holder that also acts owes several)."""
        first = self.pending(seat)
        if first is None:
            return []
        if n == 1:
            return [first]
        out = [first]
        feed = self.feeds[seat]
        i = self.consumed[seat] + 1
        while len(out) < n and i < len(feed):
            env = feed[i]
            i += 1
            if env.type in NEUTRAL_TYPES or (self.motions.skipping and self.motions.void(env)):
                continue
            out.append(env)
        return out

    _run = run  # (the record reader's name for it)

    # -- ordering ------------------------------------------------------------

    def blame(self, seat: int, reason: str, evidence: tuple[bytes, ...]) -> Cheat:
        """Record proof against ``seat``; the first one halts the ledger."""
        cheat = Cheat(seat, reason, evidence)
        if self.halted is None:
            self.halted = cheat
        return cheat

    def local_fault(self, doing: str, exc: BaseException) -> None:
        """Stop this replica on a bug of its own (the game, a rules plugin): nobody is blamed.

        The first fault wins; :attr:`fault` is the sentence for the player,
        :attr:`fault_detail` the traceback for the log.
        """
        if self.fault is not None:
            return
        self.fault = (
            f"local fault, not a cheat: the game code failed while {doing}: "
            f"{describe_fault(exc)}; this seat stops (the table sees it drop). "
            "Report this bug (the log has the traceback) to the plugin's or zsy-lan's authors."
        )
        self.fault_detail = fault_traceback(exc)
        self.fault_class = PLUGIN if isinstance(exc, PluginError) else PROGRAM

    def _append(self, env: Envelope, out: list[Event]) -> None:
        s, i = env.seat, env.seq - 1
        if self.emitted[s] < i:
            self._flush(s, i, out)  # its votes, returns, void messages first, for the record
        if self.emitted[s] <= i:
            self.emitted[s] = i + 1
        if env.seq > self.consumed[s]:
            self.consumed[s] = env.seq
        self.entries.append(env)
        self.last_entry[s] = len(self.entries) - 1
        self.head = chain(self.head, env.digest)
        pos = len(self.entries) + len(self.asides) - 1
        out.append(Transcribed(len(self.entries) - 1, s, env.frame, self.head, pos))

    def _flush(self, seat: int, upto: int, out: list[Event]) -> None:
        """Write ``seat``'s feed up to index ``upto`` (exclusive) to the record as asides."""
        feed = self.feeds[seat]
        for j in range(self.emitted[seat], min(upto, len(feed))):
            self.asides.append((len(self.entries), seat, feed[j].frame))
            pos = len(self.entries) + len(self.asides) - 1
            out.append(Aside(pos, seat, feed[j].frame))
        self.emitted[seat] = max(self.emitted[seat], min(upto, len(feed)))

    def flush_rest(self) -> list[Event]:
        """Every seat's feed messages not in the record yet, as asides (the match is over).

        After its author's last move only neutral messages can follow (chat
        above all: a ``gg`` at the end); nothing would ever place them, so the
        replica writes them at the record's end once the game is finished.
        Each call writes only what came since the last one.
        """
        out: list[Event] = []
        for s in self.seats:
            self._flush(s, len(self.feeds[s]), out)
        return out

    def retire(self, keep: int) -> list[bytes]:
        """Let the messages of old rounds leave memory; returns their frames.

        Memory must not grow with the match (docs/performance.md, "Memory
        over long matches"). The transcript before the start of the round
        ``keep`` rounds back (a round boundary: no simultaneous batch straddles
        it) is dropped when every seat has a transcript entry after that point:
        each signed it on a state that included everything before, so each has
        applied (and written) all of it, and nobody's catch-up needs it from
        us. The record on disk keeps everything; indices stay absolute
        (:class:`Tail`). Nothing is dropped while a motion is open or owed at
        a position still held, a seat is held or a void region is open, nor
        once the ledger halted; a vote about a position not held (not reached
        yet, or long gone) does not hold it up. Each author's last message
        always stays (the next one must chain to it).

        After a retire the feeds in memory no longer start at seq 1: a replica
        that must rebuild (after a motion) reads the rest from its record.
        """
        if keep < 0 or len(self.round_marks) <= keep:
            return []
        if self.halted is not None:
            return []

        def known(at: str) -> bool:  # a position still held: the head or a retained step
            return at == self.head or at in self.steps

        if not self.motions.quiet_for_retire(known):
            return []  # a held seat, a void region, an open or owed vote at a position held
        cut = self.round_marks[-(keep + 1)]
        entries = self.entries
        if cut <= entries.base:
            return []
        if any(self.last_entry.get(s, -1) < cut for s in self.seats):
            return []  # a seat has not acted past it yet (gone, held, slow)
        upto: dict[int, int] = {}
        for env in entries[entries.base : cut]:
            upto[env.seat] = env.seq  # feed seqs grow along the transcript
        frames: list[bytes] = []
        for s, seq in upto.items():
            feed = self.feeds[s]
            n = min(seq, len(feed) - 1, self.consumed[s], self.emitted[s])
            frames += [env.frame for env in feed.drop(n)]
        entries.drop(cut)
        asides = self.asides
        k = asides.base
        while k < len(asides) and asides[k][0] < cut:
            k += 1
        asides.drop(k)
        for at in [at for at, (start, _, _) in self.steps.items() if start < cut]:
            del self.steps[at]
            self.motions.process(Forget(at))
        del self.round_marks[: -(keep + 1)]
        return frames

    @property
    def retired(self) -> bool:
        """True once some messages left memory (:meth:`retire`)."""
        return self.entries.base > 0

    def file_lines(self) -> list[tuple[bool, int, bytes]]:
        """The transcript file body this ledger wrote: (aside?, seat, frame) in order."""
        out: list[tuple[bool, int, bytes]] = []
        k = 0
        for i, env in enumerate(self.entries):
            while k < len(self.asides) and self.asides[k][0] <= i:
                out.append((True, self.asides[k][1], self.asides[k][2]))
                k += 1
            out.append((False, env.seat, env.frame))
        out += [(True, s, f) for _, s, f in self.asides[k:]]
        return out

    def owed(self) -> tuple[str, tuple[int, ...]]:
        """What the game waits for now and from whom: ("commit"|"reveal"|"action"|"", seats)."""
        if self.halted is not None or self.fault is not None:
            return "", ()
        if self.game.needs_seed():
            return self._seed_stage(), self.seats
        return "action", tuple(s for s in sorted(set(self.game.actors())) if s in self.roster)

    def _seed_stage(self) -> str:
        """"commit" or "reveal": straight to reveals when the last ones pre-committed.

        Each reveal may carry ``next``, its author's commitment for the next
        seed. When every seat that takes part in this seed phase did so, the
        commits are already in the transcript (inside those reveals, all of
        them before any next reveal), so the commit step is skipped: one round
        trip less per deal. Otherwise (a seat came back from being held, or a
        reveal without ``next``) every seat commits afresh.
        """
        if self.stage == REVEAL and self._precommitted:
            takers = [s for s in self.seats if s not in self.held]
            if any(s not in self.commits for s in takers):
                return "commit"
        return self.stage

    def need(self, kind: str, owed: tuple[int, ...]) -> dict[int, list[int]]:
        """Author -> the seats whose slot its next messages fill (its own first)."""
        if not self.held:
            return {s: [s] for s in owed}
        need: dict[int, list[int]] = {}
        for s in owed:
            if s in self.held:
                if kind == "action":  # a held seat sits out commit-reveal
                    need.setdefault(self.motions.holder(s), []).append(s)
            else:
                need.setdefault(s, []).append(s)
        for a, fors in need.items():
            fors.sort(key=lambda p, a=a: (p != a, p))
        return need

    _need = need  # (the record reader's name for it)

    def can_author(self, seat: int, blocking: tuple[str, ...] = MOTIONS) -> str | None:
        """The kind of message ``seat`` should sign now, or None (not owed, or already sent).

        An open motion about ``seat`` here holds it back only for the motions in
        ``blocking`` (the replica passes the ones its own clock says may be fair).
        """
        kind, seats = self.owed()
        if seat not in seats or self.pending(seat) is not None:
            return None
        if (self.held or self.motions.skipping or self.votes) and self.motions.blocks(
            seat, self.head, blocking
        ):
            return None  # held, its return first, or voted on here: wait for the outcome
        return kind

    def waiting(self) -> list[tuple[int, str]]:
        """(seat, what) for every seat whose next message the transcript is blocked on."""
        kind, seats = self.owed()
        if not seats:
            return []
        state = self.game.public_hash()
        what = f"{kind} for round {self.round}" if kind != "action" else "action"
        out = []
        for a, fors in self.need(kind, seats).items():
            run = self.run(a, len(fors))
            for i, p in enumerate(fors):
                label = what if p == a else f"a proxy for seat {p} (held)"
                if i >= len(run):
                    out.append((a, label))
                elif run[i].state != state:
                    out.append(
                        (a, f"{label} on the current state (its next message acts on another)")
                    )
        return out

    def _misfit(
        self, env: Envelope, kind: str, author: int, slot: int, owed: tuple[int, ...]
    ) -> str | None:
        """Why ``env`` (on the current state) cannot fill ``slot``'s ``kind`` now, or None."""
        if slot != author:  # the holder's message for a held seat
            if env.type == "proxy" and env.body["seat"] == slot:
                return None
            if env.type == "release" and env.body["seat"] == slot:
                if owed == (slot,):
                    return None
                return (
                    f"seat {author} released seat {slot} while other seats act at once "
                    "(a release comes at the held seat's own turn)"
                )
            return (
                f"seat {author} sent {env.type} where it owes a proxy for seat {slot}, "
                "which it holds"
            )
        if env.type != kind:
            if env.type in ("proxy", "release"):
                return self._stray(env)
            return f"seat {env.seat} sent {env.type} where the game owes a {kind}"
        if kind in ("commit", "reveal"):
            if env.body["round"] != self.round:
                return (
                    f"seat {env.seat} sent a {kind} for round {env.body['round']}, not {self.round}"
                )
            if kind == "reveal":
                commit = self.commits[env.seat]
                ok = check_reveal(
                    commit.body["next" if commit.type == "reveal" else "commit"],
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

    def _stray(self, env: Envelope) -> str:
        """Why a proxy or release is out of place (for the cheat report)."""
        p = env.body["seat"]
        if p not in self.held:
            return f"seat {env.seat} sent a {env.type} for seat {p}, which is not held"
        h = self.motions.holder(p)
        if h != env.seat:
            return f"seat {env.seat} sent a {env.type} for seat {p}, which seat {h} holds"
        return f"seat {env.seat} sent a {env.type} for seat {p} while the game does not wait on it"

    def drive(self) -> list[Event]:
        """Consume every message the turn structure allows; returns what happened."""
        out: list[Event] = []
        if self.motions.notes:
            out += self.motions.take_notes()
        while self.halted is None and self.fault is None and self._step(out):
            pass
        return out

    def _step(self, out: list[Event]) -> bool:
        here = self.votes.get(self.head) if self.votes else None
        if not here and not self.held and all(self.pending(s) is None for s in self.seats):
            # Nothing to consume. Skipping the state hash here keeps it off the path
            # from a frame's arrival to its application: the shell computes it when idle.
            return False
        kind, owed = self.owed()
        state = self.game.public_hash()
        open_here = False
        if here:
            done = self._resolve(here, kind, owed, state, out)
            if done is not None:
                return done
            open_here = any((self.head, a, m) not in self.motions.resolved for a, m in here)
        if not self.held and not open_here:
            return self._plain_step(kind, owed, state, out)
        need = self.need(kind, owed)
        held = self.held
        # A message signed on this very state by a seat the game does not wait on is out of turn.
        for s in self.seats:
            env = self.pending(s)
            if env is None or env.state != state or s in held:
                continue  # a held seat's own messages wait for its release
            if open_here and self.motions.frozen(here, s, env):  # type: ignore[arg-type]
                continue
            fors = need.get(s)
            if fors is None:
                if open_here:
                    continue  # a motion here may still change who the table waits on
                if not self.motions.unsettled:  # else our own state may be the wrong one
                    out.append(self._blame_out_of_turn(s, env, owed))
                return False
            problem = self._misfit(env, kind, s, fors[0], owed)
            if problem:
                if open_here:
                    continue
                if not self.motions.unsettled:
                    out.append(self._blame_misfit(s, env, problem))
                return False
        if not owed:
            return False
        batch: list[tuple[int, Envelope]] = []
        for a, fors in need.items():
            run = self.run(a, len(fors))
            if len(run) < len(fors):
                return False
            for env, p in zip(run, fors, strict=False):
                if env.state != state:
                    return False
                if open_here and self.motions.frozen(here, a, env):  # type: ignore[arg-type]
                    return False
                if env is not run[0]:
                    problem = self._misfit(env, kind, a, p, owed)
                    if problem:
                        if not open_here and not self.motions.unsettled:
                            out.append(self.blame(a, problem, (env.frame,)))
                        return False
                batch.append((p, env))
        if len(batch) > 1:
            batch.sort(key=lambda pe: pe[0])
        return self._take(kind, batch, out)

    def _blame_out_of_turn(self, s: int, env: Envelope, owed: tuple[int, ...]) -> Cheat:
        """Proof against seat ``s``: a message signed on this state that is not its turn."""
        if env.type in ("proxy", "release"):
            reason = self._stray(env)
        else:
            waits = ", ".join(map(str, owed)) or "nobody"
            reason = f"out of turn: seat {s} sent {env.type} while the game waits on {waits}"
        return self.blame(s, reason, (env.frame,))

    def _blame_misfit(self, s: int, env: Envelope, problem: str) -> Cheat:
        """Proof against seat ``s`` for a message that does not fit (a reveal: with its commit)."""
        evidence = (env.frame,)
        if env.type == "reveal" and s in self.commits:
            evidence = (self.commits[s].frame, env.frame)
        return self.blame(s, problem, evidence)

    def _plain_step(self, kind: str, owed: tuple[int, ...], state: str, out: list[Event]) -> bool:
        """:meth:`_step` while nobody is held and no motion is open here (the hot path)."""
        for s in self.seats:
            env = self.pending(s)
            if env is None or env.state != state:
                continue
            if s not in owed:
                if not self.motions.unsettled:  # else our own state may be the wrong one
                    out.append(self._blame_out_of_turn(s, env, owed))
                return False
            problem = self._misfit(env, kind, s, s, owed)
            if problem:
                if not self.motions.unsettled:
                    out.append(self._blame_misfit(s, env, problem))
                return False
        if not owed:
            return False
        batch = []
        for s in owed:
            env = self.pending(s)
            if env is None or env.state != state:
                return False
            batch.append((s, env))
        return self._take(kind, batch, out)

    def _take(self, kind: str, batch: list[tuple[int, Envelope]], out: list[Event]) -> bool:
        """Append a complete batch (slot seat, message) in seat order and apply it."""
        start, at = len(self.entries), self.head
        ready = [env for _, env in batch]
        if kind == "commit":
            self.commits, self._precommitted = {}, False
            for env in ready:
                self.commits[env.seat] = env
                self._append(env, out)
            self.stage = "reveal"
        elif kind == "reveal":
            for env in ready:
                self._append(env, out)
            seed = combine([bytes.fromhex(env.body["seed"]) for env in ready])
            self.steps[at] = (start, len(self.entries) - start, self.motions.held_set)
            try:
                self.game.start_round(seed)
            except Exception as exc:  # noqa: BLE001 - a game bug must not crash the peer
                self.local_fault(f"starting round {self.round}", exc)
                return False
            out.append(RoundSeeded(self.round, seed))
            self.round_marks.append(len(self.entries))
            self.round += 1
            nxt = {env.seat: env for env in ready if "next" in env.body}
            if len(nxt) == len(ready):  # every taker pre-committed: next time reveals only
                self.stage, self.commits, self._precommitted = "reveal", nxt, True
            else:
                self.stage, self.commits, self._precommitted = "commit", {}, False
            return True
        else:
            for p, env in batch:
                if env.type == "release":
                    self._append(env, out)
                    self.motions.process(Release(p, env.seat, start))
                    out += self.motions.take_notes()
                    break
                proxy = env.type == "proxy"
                action = dict(env.body["action"]) if proxy else dict(env.body)
                try:
                    self.game.check(p, action)
                except Exception as exc:  # noqa: BLE001 - typed below: violation or local bug
                    who = f"seat {env.seat}" + (f" (for held seat {p})" if proxy else "")
                    if not is_violation(self.game, exc):
                        self.local_fault(f"checking an action by {who}", exc)
                        return False
                    if self.motions.unsettled and len(self.entries) == start:
                        return False  # our state may be the one a motion voids: wait for it
                    out.append(
                        self.blame(env.seat, f"illegal action by {who}: {exc}", (env.frame,))
                    )
                    return False
                try:
                    self.game.apply(p, action)
                except Exception as exc:  # noqa: BLE001
                    self.local_fault("applying an action it had accepted", exc)
                    return False
                self._append(env, out)
                out.append(Applied(p, env.seq, action, env.seat if proxy else None))
        self.steps[at] = (start, len(self.entries) - start, self.motions.held_set)
        return True

    # -- motions (the machine is motions.py: this only says what the order decided)

    def _resolve(
        self,
        here: dict[tuple[int, str], dict[int, Envelope]],
        kind: str,
        owed: tuple[int, ...],
        state: str,
        out: list[Event],
    ) -> bool | None:
        """Resolve the motions at this position by the cut rule; None when nothing changed."""
        motions = self.motions
        need = self.need(kind, owed)
        keys = sorted(here)
        for a, m in keys:
            key = (self.head, a, m)
            if key in motions.resolved:
                continue
            ballots = here[(a, m)]
            if a not in need:
                if motions.open_at(self.head, need):
                    continue  # a carry of the other motion changes who is waited on
                voter = min(ballots)
                out.append(
                    self.blame(
                        voter,
                        f"seat {voter} voted to {m} seat {a} while the table does not wait on "
                        f"seat {a}",
                        (ballots[voter].frame,),
                    )
                )
                return False
            voters = motions.voters(a)
            if any(v not in ballots for v in voters):
                continue
            cut = max(ballots[v].body["cut"] for v in voters)
            pm = self.pending(a)
            if pm is not None and pm.seq <= cut and pm.state == state:
                motions.process(Declined(key, cut, pm.seq))
                out += motions.take_notes()
                return True
            if (pm is None or pm.seq > cut) and len(self.feeds[a]) < cut:
                return False  # fetch seat a's feed up to the cut first (voters have it)
            if m == "void" and not (kind == "action" and may_void(self.game)):
                motions.process(Refused(key, cut))
                out += motions.take_notes()
                return True
            # the record: every vote (with what precedes it) and seat a's feed up to the cut
            for v in voters:
                self._flush(v, ballots[v].seq, out)
            self._flush(a, cut, out)
            start = pm.seq if pm is not None and pm.seq <= cut else cut + 1
            motions.process(Carried(key, cut, start, state))
            out += motions.take_notes()
            if m == "void":
                try:
                    void_round(self.game, a)
                except Exception as exc:  # noqa: BLE001
                    self.local_fault("voiding the round", exc)
            return True
        return None

    @property
    def diverged(self) -> str | None:
        """Why we must rebuild: we applied something a motion voided (None: nothing)."""
        return self.motions.diverged

    @diverged.setter
    def diverged(self, value: str | None) -> None:
        self.motions.diverged = value

