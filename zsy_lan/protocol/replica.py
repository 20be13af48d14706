"""The replica: one peer's sans-IO view of a table (h11-style).

Feed it frames it received, local actions and the time; it returns events:
frames to send, things to persist, actions applied, cheats proven. It never
touches a socket, a clock, a thread or a random source of its own (entropy is
passed in), so the same code runs under asyncio, in a test mesh and in replay.

Reliability is its job, not the transport's:

* each author's feed messages are processed strictly in seq order; ones that
  arrive early wait in a bounded buffer and a ``want`` asks for the gap;
* peers exchange ``have`` summaries (last seq and digest per author), so a
  lost message is found and re-requested, from its author or from any peer
  that has it; with ``relay=True`` every new feed message is also forwarded
  once to every peer (robust on flaky links, but N-1 copies per message);
* two different signed messages for one (author, seq) are kept as proof and
  name the author, wherever the second one comes from.

The replica wires parts that each hold one concern, all sans-IO:
:class:`~zsy_lan.protocol.ledger.Ledger` (the feeds ordered into one
transcript), :mod:`~zsy_lan.protocol.motions` (hold, void, return: the motion
machine and this seat's clock on it), :mod:`~zsy_lan.protocol.feed_sync` (have,
want, resends, early messages), :mod:`~zsy_lan.protocol.floods` (per-sender
limits), :mod:`~zsy_lan.protocol.liveness` (who is connected, stalls),
:mod:`~zsy_lan.protocol.catch_up` (after a restart), :mod:`~zsy_lan.protocol.seeds`
(this seat's commit-reveal secrets), :mod:`~zsy_lan.protocol.record_file` and
:mod:`~zsy_lan.protocol.rebuild` (the transcript file it wrote, and replaying
the feeds after a motion).

Shell contract: handle the returned events in order; make every ``Persist``
durable before any later ``Send``; call :meth:`tick` every ``TICK`` seconds
(and once right after construction or :meth:`restore`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from zsy_lan.protocol.catch_up import CatchUp
from zsy_lan.protocol.envelope import (
    MOTIONS,
    Envelope,
    FrameError,
    open_frame,
    seal,
    seal_envelope,
)
from zsy_lan.protocol.events import (
    Aside,
    Cheat,
    Event,
    Fault,
    Hello,
    Motion,
    Persist,
    Rejected,
    Rewound,
    Said,
    Send,
    Transcribed,
)
from zsy_lan.protocol.feed_sync import FeedSync
from zsy_lan.protocol.floods import VOTE_TYPES, Floods
from zsy_lan.protocol.game_iface import GameMachine, is_violation
from zsy_lan.protocol.identity import Identity
from zsy_lan.protocol.ledger import AddResult, Ledger
from zsy_lan.protocol.liveness import Liveness
from zsy_lan.protocol.local_fault import fault_kind
from zsy_lan.protocol.motions import Mover, may_void
from zsy_lan.protocol.rebuild import replay, retold, written_before
from zsy_lan.protocol.record_file import WrittenRecord, read_record
from zsy_lan.protocol.seeds import Seeds
from zsy_lan.protocol.timing import TICK, Timing
from zsy_lan.protocol.transcript_format import header_line

__all__ = ["Replica", "Timing", "TICK"]


class Replica:
    """One seat's replica of a table; see the module doc for the shell contract."""

    def __init__(
        self,
        table: str,
        seat: int,
        identity: Identity,
        roster: Mapping[int, bytes],
        game: GameMachine,
        *,
        entropy: Callable[[int], bytes],
        timing: Timing | None = None,
        relay: bool = True,
        game_factory: Callable[[], GameMachine] | None = None,
        motions: Iterable[str] = MOTIONS,
        retain: int | None = None,
        record: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        if roster.get(seat) != identity.public_key:
            raise ValueError(f"seat {seat}'s roster key is not this identity's key")
        self.table = table
        self.seat = seat
        self.identity = identity
        self.roster = dict(sorted(roster.items()))
        self.peers = tuple(s for s in self.roster if s != seat)
        self.game = game
        self.timing = timing or Timing()
        self.relay = relay
        self._game_factory = game_factory
        self.motions = frozenset(motions)  # what this table lets us vote on
        # Retention: with ``retain=k`` the frames of rounds older than the last k
        # leave memory once every seat has acted past them (Ledger.retire); None
        # keeps everything (tests that compare whole in-memory transcripts).
        self.retain = retain
        self._record = record  # the transcript file's lines (header first), for a rebuild
        self._retired_round = 0  # the ledger round at the last retire attempt
        self.ledger = Ledger(table, self.roster, game, seat)
        #: the table began before issue #25: first messages bind no roster (see restore)
        self.unbound = False
        self.stats: Counter[str] = Counter()
        self.seeds = Seeds(table, seat, entropy)  # this seat's secrets, by round
        self._seen: set[bytes] = set()  # sha256 of every frame already filed (cheap dedup)
        self.live = Liveness(self.peers, self.timing, self.stats)
        self._reported: set[str] = set()
        self._last_evidence = float("-inf")
        self._restoring = False
        self.written = WrittenRecord()  # the transcript file body, to write no line twice
        self.resume = CatchUp(seat, self.timing.catch_up)  # after a restore: mute until sure
        # motions are judged by this replica's own clock (see :meth:`motion_wait`)
        self.mover = Mover(seat, self.roster, self.motions, self.timing)
        self.floods = Floods(self.stats)  # per sender: control, votes in; resends out
        self.sync = FeedSync(seat, self.roster, self.timing, self.stats, self.floods)

    # -- public queries ------------------------------------------------------

    @property
    def halted(self) -> Cheat | None:
        """The cheat that stopped this replica, if any (it still relays and answers wants)."""
        return self.ledger.halted

    def all_peers_level(self) -> bool:
        """Every other seat's last summary shows exactly the feeds this replica holds.

        Once the match is over, nobody then needs a resend from this seat, nor
        it from them: the shell's linger after the end can stop early. A seat
        silent since (gone, or not heard yet) keeps it waiting its full linger.
        """
        return self.sync.level(self._summary())

    def transcript_head(self) -> str:
        """Hash-chain head over the transcript: equal heads mean equal transcripts."""
        return self.ledger.head

    def transcript(self) -> list[tuple[int, bytes]]:
        """(author seat, frame) in transcript order: what is written to disk and compared."""
        return [(env.seat, env.frame) for env in self.ledger.entries]

    def transcript_header(self) -> str:
        """The first line of this table's transcript file."""
        return header_line(self.table, self.roster)

    def can_act(self) -> bool:
        """True when the game waits on a local action from this seat.

        Right after a restart it says False until the peers' news is in (or
        ``Timing.catch_up`` passed): a move signed on a stale position may be
        one the table already voted to replace.
        """
        return self.resume.resumed is None and not self._mute() and self._may_author() == "action"

    def held(self) -> dict[int, int]:
        """Held seat -> the seat whose bot plays for it (empty while nobody is held)."""
        return {p: self.ledger.motions.holder(p) for p in self.ledger.held}

    def awaited(self) -> list[int]:
        """Seats whose next message the transcript waits on now (a held seat's holder for it)."""
        return sorted({s for s, _ in self.ledger.waiting()})

    def held_back(self, seat: int) -> int:
        """How many of ``seat``'s later messages wait here for a gap in its feed to close."""
        return len(self.sync.buffer.get(seat, {}))

    def waited(self, now: float) -> float:
        """How long the transcript has been stuck where it is (0 when it waits on nobody)."""
        if not self.ledger.waiting():
            return 0.0
        return self.live.waited(now)

    def position(self) -> str:
        """The transcript position motions name (``at``): the current chain head."""
        return self.ledger.head

    def proxy_due(self) -> list[int]:
        """Held seats this seat must play a move for now (its bot decides; see :meth:`act_for`)."""
        if self.resume.resumed is not None or self._mute() or self.ledger.halted is not None:
            return []
        slots = self.ledger.motions.holder_slots(self.seat)
        return [p for p in slots if not self.ledger.motions.returned(p)]

    def can_void(self) -> bool:
        """True when a ``void`` motion may be moved now (the table allows it, the game can)."""
        return "void" in self.motions and self.ledger.owed()[0] == "action" and may_void(self.game)

    def motion_wait(self, motion: str, seat: int, now: float) -> float:
        """Seconds this replica must still wait on ``seat`` before it backs ``motion`` about it.

        0.0 when it may vote now; ``inf`` while it cannot tell how long (a
        ``hold`` needs the seat disconnected in this replica's own view). Each
        peer judges by its own clock and its own view (the rule:
        :meth:`~zsy_lan.protocol.motions.Mover.wait`; docs/protocol.md, "Votes").
        """
        connected, seen = self.live.connected.get(seat, True), self.live.last_seen.get(seat)
        stopped = not connected and self.live.stopped(seat) is not None
        returned = self.mover.back_since(seat, connected, now) if self._choosing(seat) else None
        head = self.ledger.head
        return self.mover.wait(motion, head, now, connected, seen, stopped, returned)

    def came_back(self, seat: int) -> bool:
        """True when ``seat`` was gone while the table waited on it here and is heard again.

        A void about it is then not backed while it chooses its move
        (:meth:`~zsy_lan.protocol.motions.Mover.came_back`): the shell says so.
        """
        return self.mover.came_back(seat, self.live.connected.get(seat, True))

    def _choosing(self, seat: int) -> bool:
        """True when what the table waits for from connected ``seat`` is a move it chooses.

        The game's word (``withholding``): a deal step only that seat can give is
        withheld once the timeout passed; a move in play is being chosen.
        """
        withholding = getattr(self.game, "withholding", None)
        return withholding is not None and not withholding(seat, False)

    def stopped(self, seat: int) -> str | None:
        """The local fault class ``seat``'s own signed ``bye`` named, until it is heard again.

        One word of :mod:`.local_fault` (``"disk-full"``...), or None: the seat did
        not say it stopped on a fault of its own. Its word, nothing more: it only
        spares the others the timeouts on that seat (:meth:`motion_wait`).
        """
        return self.live.stopped(seat)

    def hold_silent(self, now: float) -> list[Event]:
        """Move ``hold`` about each seat gone past ``Timing.hold_after`` at its turn; the events.

        The seat holding's one call (docs/protocol.md, "The shell"): only where
        this table holds seats (open deal), once per position, judged by
        :meth:`motion_wait`, the rule every other seat's replica applies on its
        own clock before it joins.
        """
        if "hold" not in self.motions or self.game.finished() or self.ledger.halted is not None:
            return []
        out: list[Event] = []
        waits = partial(self.motion_wait, "hold", now=now)
        for p in self.mover.silent(self.awaited(), self.position(), now, waits):
            out += self.move("hold", p, now)
        return out

    def waiting_on(self) -> list[tuple[int, str]]:
        """(seat, what) the transcript is blocked on right now."""
        return self.ledger.waiting()

    def next_seq(self) -> int:
        """Seq of this seat's next own message (restored state included)."""
        return self.ledger.next_seq(self.seat)

    # -- inputs --------------------------------------------------------------

    def receive(self, frame: bytes, now: float, via: int | None = None) -> list[Event]:
        """Handle one frame from the network. Never raises; bad input becomes Rejected/Cheat.

        ``via`` is the seat whose authenticated link (CURVE) the frame came on,
        when the shell knows it: control frames are rate-limited per sender
        *before* their signature is checked, so a flood costs a hash and a
        byte compare per frame. Without ``via`` the seat the frame claims is
        used (a roster peer could then spend another seat's allowance).
        """
        fid = hashlib.sha256(frame).digest() if isinstance(frame, bytes) else None
        if fid is not None and fid in self._seen:
            self.stats["duplicates"] += 1
            return []
        charged = False  # a vote already charged to its author, before its signature
        if fid is not None:
            dropped, charged = self.floods.screen(frame, via, now, self._vote_ok)
            if dropped is not None:
                return dropped
        try:
            env = open_frame(frame, self.roster, self.table, unbound=self.unbound)
        except FrameError as exc:
            self.stats["rejected"] += 1
            return [Rejected(exc.sender, exc.reason)]
        out: list[Event] = []
        vote = env.is_feed and env.type in VOTE_TYPES and not charged  # relayed or resent
        if vote and not self._vote_ok(env.seat, env.seq, now):  # charged after the check
            return self.floods.excess(env.seat, now)
        if env.is_feed:
            out += self._file(env, now, relay=self.relay)
        elif via is not None and via != env.seat:
            # Control frames are never forwarded: this is another seat's old frame
            # played back. It must not make a gone seat look connected (no seat
            # would then judge it gone and back a hold), nor ask for anything.
            self.stats["replayed_control"] += 1
            return []
        elif env.type == "bye":
            fault = env.body.get("fault")  # a short word (open_frame checked it): never shown
            kind = None if fault is None else fault_kind(fault)
            out += self.live.left(env.seat, now, kind) if env.seat != self.seat else []
        elif env.seat != self.seat:
            out += self.live.saw(env.seat, now)
            out += self._control(env, now)
        out += self._progress(now)
        return out

    def act(self, action: dict[str, Any], now: float, *, apply: bool = True) -> list[Event]:
        """Sign, persist, apply and broadcast a local action; Rejected if not allowed now.

        With ``apply=False`` the returned events end with the ``Send``: the
        shell can put the frame on the wire before this replica applies it,
        then call :meth:`progress` (a :meth:`tick` does it too, later).
        """
        refused = self._cannot_sign()
        if refused:
            return refused
        if not isinstance(action, dict):
            return [Rejected(self.seat, "an action is a JSON object")]
        if self.seat in self.ledger.held:
            holder = self.ledger.motions.holder(self.seat)
            return [
                Rejected(
                    self.seat,
                    f"a bot run by seat {holder} holds this seat until it hands it back "
                    "at its next turn",
                )
            ]
        if self._may_author(now) != "action":
            waits = ", ".join(f"seat {s} ({w})" for s, w in self.ledger.waiting()) or "nobody"
            return [Rejected(self.seat, f"not seat {self.seat}'s turn: waiting on {waits}")]
        illegal = self._check(self.seat, action, now, f"seat {self.seat}'s own action", "illegal")
        if illegal is not None:
            return illegal
        try:
            authored = self._author("action", action, now)
        except (ValueError, TypeError) as exc:  # too big for one frame, or not canonical
            return [Rejected(self.seat, f"cannot send this action: {exc}")]
        self.mover.back = False  # moved since it came back: the usual rule again
        return authored + self._progress(now) if apply else authored

    def move(self, motion: str, seat: int, now: float) -> list[Event]:
        """Vote to ``hold`` or ``void`` ``seat``, which the transcript waits on now.

        The shell calls it (a disconnected seat past ``Timing.hold_after``, a
        player typing ``void``). Every other replica joins only once it has
        waited that long on ``seat`` itself (:meth:`motion_wait`), so this one
        refuses too before its own timeout: a motion needs every other seat.
        Rejected when it does not apply here.
        """
        refused = (
            self._vote_refusal(motion, seat)
            or (self._unsure() if self._mute() else None)
            or self.mover.refuse_move(
                motion, seat, self.ledger.motions, self.can_void, partial(self._too_early, now=now)
            )
        )
        if refused:
            return [Rejected(self.seat, refused)]
        return self._vote(motion, seat, self.ledger.head, now) + self._progress(now)

    def act_for(
        self, seat: int, action: dict[str, Any], now: float, *, apply: bool = True
    ) -> list[Event]:
        """Sign a proxy: ``action`` played for held ``seat`` by this seat, its holder."""
        refused = self._cannot_sign()
        if refused:
            return refused
        if seat not in self.proxy_due():
            return [Rejected(self.seat, f"no move is due from this seat for seat {seat}")]
        what = f"a move for held seat {seat}"
        illegal = self._check(seat, action, now, what, f"illegal for seat {seat}")
        if illegal is not None:
            return illegal
        try:
            authored = self._author("proxy", {"seat": seat, "action": action}, now)
        except (ValueError, TypeError) as exc:
            return [Rejected(self.seat, f"cannot send this proxy: {exc}")]
        return authored + self._progress(now) if apply else authored

    def chat(self, body: Mapping[str, Any], now: float) -> list[Event]:
        """Sign and send a chat message (``body`` from :func:`zsy_lan.protocol.chat.body_for`).

        It joins this seat's feed outside the game: never in the transcript
        chain or the state hash, never waited on, so it can neither block nor
        delay a move; lost frames come back through the feed's resends. The
        events include a :class:`Said` for this seat itself. Rejected while this
        seat may sign nothing (halted, or still learning its own feed after a restart).
        """
        refused = self._cannot_sign()
        if refused:
            return refused
        try:
            return self._author("chat", body, now)
        except (ValueError, TypeError) as exc:  # too big for one frame, or not canonical
            return [Rejected(self.seat, f"cannot send this chat message: {exc}")]

    def finish_record(self, cut: bool = False) -> list[Event]:
        """Once the match is over: write what its authors said after their last move.

        Chat said after a seat's last move (a ``gg``) has no later entry of
        its author to be written before (:meth:`Ledger.flush_rest`); the shell
        calls this while it lingers after the end, and the lines go to the
        record's end as asides (in the order they reached this seat). Nothing
        before the game is finished, nor on a halted table. ``cut``: also
        before the end, for a record that stops here for good and is never
        resumed (``zsy play`` when the player leaves); a resumable record must
        not, or its lines would no longer be where a restore writes them.
        """
        if not (cut or self.game.finished()) or self.ledger.halted is not None:
            return []
        out: list[Event] = []
        self._drain(self.ledger.flush_rest(), out)
        return out

    def progress(self, now: float) -> list[Event]:
        """Apply whatever the feeds allow now (after ``act(..., apply=False)``)."""
        return self._progress(now)

    def tick(self, now: float) -> list[Event]:
        """Timers: heartbeats, have summaries, resend requests, liveness and stall reports."""
        self.mover.tick(self.ledger.head, now)
        out: list[Event] = []
        out += self.floods.tick(now)
        summary = self._summary()
        kind = self.sync.summary_due(summary, now)
        if kind is not None:
            out.append(Send(None, self._control_frame(kind, {"have": summary})))
        cheat = self.ledger.halted
        if cheat is not None and now - self._last_evidence >= self.timing.heartbeat:
            # Keep showing the proof: the first copies may have been lost, and a peer
            # without it would otherwise wait forever on a seat that stopped for good.
            self._last_evidence = now
            out += [Send(None, frame) for frame in cheat.evidence]
        out += self.live.tick(now)
        gone = [p for p in self.awaited() if not self.live.connected.get(p, True)]
        self.mover.note_gone(self.ledger.head, now, gone)
        out += self._request_missing(now)
        out += self._progress(now)
        out += self._stalls(now)
        return out

    def bye(self, fault: str | None = None) -> list[Event]:
        """Broadcast a signed ``bye``: this seat leaves on purpose (its player quit).

        The others then show it gone at once, saying why, instead of after
        ``Timing.peer_timeout`` of silence; its seat is treated like any dropped
        seat (the table waits, a hold or void after the usual timeouts).

        ``fault``: this seat stopped on a local fault of that class instead
        (:mod:`.local_fault`: a full disk, a damaged journal...). The others say
        so, and a hold or void about it needs no timeout: the seat itself signed
        that it is gone (:meth:`motion_wait`). Nothing of this seat's feed is
        signed for it (its storage may have failed): it is a control frame.
        """
        body = {} if fault is None else {"fault": fault}
        return [Send(None, self._control_frame("bye", body))]

    def hello(self, body: Mapping[str, Any]) -> list[Event]:
        """Broadcast a signed hello (lobby details: nickname, CURVE key...)."""
        return [Send(None, self._control_frame("hello", dict(body)))]

    def restore(
        self, journal: Iterable[tuple[str, bytes]], transcript_lines: Iterable[str], now: float
    ) -> list[Event]:
        """Rebuild after a restart from our journal (Persist records) and saved transcript.

        Call once, right after construction and before anything else. Every
        frame is verified again and replayed through the same path as network
        input; Transcribed events are only returned for messages beyond the
        saved transcript. Own frames from the journal fix our next seq, so we
        never sign a second message for a seq we already used.
        """
        lines = [line for line in transcript_lines if line.strip()]
        out, usable = self.written.load(lines, self.table, self.roster)
        if not usable:
            return out
        own: list[bytes] = []
        for key, data in journal:
            if key.startswith("secret/"):
                self.seeds.restore(key, data)
            elif key.startswith("frame/"):
                own.append(data)
        self.unbound = self._begun_unbound(own + [f for _, f in self.written.lines])
        # Lines already on disk are not handed out again, even when they replay
        # later (a crash can leave half of a round's commits written).
        self._restoring = True
        self.resume.resumed = now
        self.mover.back = True  # a void moved while we were away does not stop our move
        try:
            for frame in [f for _, f in self.written.lines] + own:
                out += [e for e in self.receive(frame, now) if not isinstance(e, Send)]
        finally:
            self._restoring = False
        self.resume.unconfirmed = len(self.ledger.feeds[self.seat])
        self.resume.unconfirmed_since = now
        return out

    # -- internals -----------------------------------------------------------

    def _begun_unbound(self, frames: Iterable[bytes]) -> bool:
        """Whether a resumed table began before issue #25: the first seq 1 among our own
        frames, then the record's, binds no roster. Such a table goes on as it began (its
        seats' first messages are signed); a fresh one takes only bound first messages."""
        for frame in frames:
            try:
                env = open_frame(frame, self.roster, self.table)
            except FrameError:
                continue
            if env.is_feed and env.seq == 1:
                return env.prev == ""
        return False

    def _cannot_sign(self) -> list[Event]:
        """A Rejected while this seat may sign nothing (halted, or unsure of its own feed)."""
        if self.ledger.halted is not None:
            return [Rejected(self.seat, f"table halted: {self.ledger.halted.reason}")]
        return [Rejected(self.seat, self._unsure())] if self._mute() else []

    def _check(
        self, seat: int, action: dict[str, Any], now: float, what: str, illegal: str
    ) -> list[Event] | None:
        """The game's check of ``action`` for ``seat``: None when it passes.

        A rule it breaks is refused (``illegal``, naming the rule); any other
        exception is a bug here, not a bad move: it stops this seat (a Fault).
        """
        try:
            self.game.check(seat, dict(action))
        except Exception as exc:  # noqa: BLE001 - the game names the rule
            if not is_violation(self.game, exc):
                self.ledger.local_fault(f"checking {what}", exc)
                return self._progress(now)
            return [Rejected(self.seat, f"{illegal}: {exc}")]
        return None

    def _summary(self) -> dict[str, list[Any]]:
        return {
            str(s): [len(self.ledger.feeds[s]), self.ledger.last_digest(s)] for s in self.roster
        }

    def _control_frame(self, kind: str, body: Mapping[str, Any]) -> bytes:
        return seal(
            self.identity,
            table=self.table,
            seat=self.seat,
            seq=0,
            prev="",
            state="",
            type=kind,
            body=body,
        )

    def _file(self, env: Envelope, now: float, relay: bool) -> list[Event]:
        """Put a verified feed message in its author's feed (or the buffer), draining the buffer."""
        out: list[Event] = []
        result, cheat = self.ledger.add(env)
        if result is AddResult.DUPLICATE:
            self.stats["duplicates"] += 1
            return out
        if cheat is not None:
            return self._report(cheat)
        if result is AddResult.AHEAD:
            return self._hold(env, now)
        self._accepted(env, relay, out)
        nxt = self.sync.next_kept(env.seat, self.ledger.next_seq(env.seat))
        while nxt is not None:
            result, cheat = self.ledger.add(nxt)
            if cheat is not None:
                return out + self._report(cheat)
            self._accepted(nxt, relay, out)
            nxt = self.sync.next_kept(env.seat, self.ledger.next_seq(env.seat))
        self.sync.filed(env.seat, self.ledger.next_seq(env.seat))
        return out

    def _accepted(self, env: Envelope, relay: bool, out: list[Event]) -> None:
        self._seen.add(hashlib.sha256(env.frame).digest())
        if env.type == "chat" and not self._restoring:  # news for the shell, nothing more
            out.append(Said(env.seat, env.seq, env.body))
        if relay and env.seat != self.seat and not self._restoring:
            self.stats["relayed"] += 1
            out.append(Send(None, env.frame))

    def _hold(self, env: Envelope, now: float) -> list[Event]:
        """Keep an early message (bounded) and ask for the gap before it."""
        ask, other = self.sync.keep(env, self.ledger.next_seq(env.seat))
        if other is not None:
            return self._report(
                self.ledger.blame(
                    env.seat,
                    f"equivocation: seat {env.seat} signed two different messages as seq {env.seq}",
                    (other.frame, env.frame),
                )
            )
        return self._request_missing(now, only=env.seat) if ask else []

    def _report(self, cheat: Cheat) -> list[Event]:
        """Announce a cheat once, and pass the evidence on so every peer can see it too."""
        key = f"cheat:{cheat.culprit}:{cheat.reason}"
        if key in self._reported:
            return []
        self._reported.add(key)
        out: list[Event] = [cheat]
        if not self._restoring:
            out += [Send(None, frame) for frame in cheat.evidence]
        return out

    def _control(self, env: Envelope, now: float) -> list[Event]:
        if env.type in ("have", "heartbeat"):
            self.sync.heard(env.seat, env.body["have"])
            return self._request_missing(now, peer=env.seat)
        if env.type == "want":
            return self.sync.answer(env, now, self.ledger.feeds)
        if env.type == "hello":
            return [Hello(env.seat, env.body)]
        return []  # pragma: no cover - open_frame admits no other control type

    def _request_missing(
        self, now: float, only: int | None = None, peer: int | None = None
    ) -> list[Event]:
        """Ask for gaps in authors' feeds and for messages whose digest a peer disputes."""
        return self.sync.request(now, self.ledger.feeds, self._want_frame, only, peer)

    def _want_frame(self, author: int, lo: int, hi: int) -> bytes:
        return self._control_frame("want", {"author": author, "from": lo, "to": hi})

    def _author(self, kind: str, body: Mapping[str, Any], now: float) -> list[Event]:
        """Sign our next feed message, persist it, file it, then send it (in that order)."""
        seq = self.ledger.next_seq(self.seat)
        if seq == 1:  # the first one vouches for the table's roster (issue #25)
            prev = self.ledger.opener_prev(self.unbound)
        else:
            prev = self.ledger.last_digest(self.seat)
        env = seal_envelope(
            self.identity,
            table=self.table,
            seat=self.seat,
            seq=seq,
            prev=prev,
            state=self.game.public_hash(),
            type=kind,
            body=body,
        )
        frame = env.frame
        out: list[Event] = [Persist(f"frame/{env.seq}", frame)]
        out += self._file(env, now, relay=False)
        out.append(Send(None, frame))
        return out

    def _progress(self, now: float) -> list[Event]:
        """Consume what the turn structure allows and sign what this seat owes by itself.

        That is commits/reveals, and for motions: our mandatory votes, our
        return after a motion voided our messages, a release of a held seat
        that came back. None of them is a choice.
        """
        out: list[Event] = []
        while True:
            before = len(out)
            self._drain(self.ledger.drive(), out)
            if (
                self.retain is not None
                and self.ledger.round != self._retired_round
                and not self._restoring
                and self.resume.resumed is None  # a resumed seat may still have to rebuild
            ):
                self._retire()
            if self.ledger.fault is not None and "fault" not in self._reported:
                self._reported.add("fault")
                out.append(
                    Fault(self.ledger.fault, self.ledger.fault_detail, self.ledger.fault_class)
                )
            if self.ledger.diverged is not None and self.ledger.halted is None:
                out += self._rebuild()
                continue
            if self._restoring:
                return out
            resume = self.resume
            if resume.resumed is not None and resume.caught_up(
                now, self.sync.have, self.ledger.feeds
            ):
                resume.resumed = None
            if resume.mute() and (resume.behind or not self._own_feed_known(now, out)):
                return out
            m = self.ledger.motions
            if self.ledger.halted is None and (m.due or m.regions or m.held):
                out += self._motion_duties(now)
            if len(out) != before:
                continue
            kind = self._may_author(now)
            rnd = self.ledger.round
            if kind == "commit":
                out += self._author("commit", self.seeds.commit(rnd, out), now)
            elif kind == "reveal":
                body = self.seeds.reveal(rnd, out)
                if body is None:
                    if f"lost:{rnd}" not in self._reported:
                        self._reported.add(f"lost:{rnd}")
                        out.append(
                            Rejected(self.seat, f"no saved secret for round {rnd}: cannot reveal")
                        )
                    return out
                out += self._author("reveal", body, now)
            if len(out) == before:
                return out

    def _drain(self, events: list[Event], out: list[Event]) -> None:
        """Pass the ledger's events on; lines already in the file are not written twice."""
        for event in events:
            if isinstance(event, Cheat):
                out += self._report(event)
            elif isinstance(event, Motion) and event.outcome == "declined":
                pending = partial(self.ledger.pending, event.seat)
                out.append(replace(event, movers=self.ledger.motions.movers(event, pending)))
            elif isinstance(event, (Transcribed, Aside)):
                self.written.check(event, out)
            else:
                out.append(event)

    def _mute(self) -> bool:
        """True while this seat may sign nothing (see :class:`CatchUp`)."""
        return self.resume.mute()

    def _unsure(self) -> str:
        return self.resume.unsure()

    def _own_feed_known(self, now: float, out: list[Event]) -> bool:
        """After a restore: True once the table told how far this seat's own feed got."""
        own = len(self.ledger.feeds[self.seat])
        return self.resume.own_feed_known(now, own, self.sync.have, out)

    def _vote_refusal(self, motion: str, seat: int) -> str | None:
        """Why this replica will not vote ``motion`` about ``seat``, or None."""
        ledger = self.ledger
        return self.mover.refusal(motion, seat, self.game, ledger.motions, ledger.halted)

    def _may_author(self, now: float | None = None) -> str | None:
        """What this seat may sign now (:meth:`Ledger.can_author`), judged by our own clock.

        An open motion about this very seat holds it back only when it may be
        fair (:meth:`Mover.fair`): a motion moved early by a modified peer
        therefore never stops the seat it names.
        """
        ledger = self.ledger
        fair = self.mover.fair(ledger.motions, ledger.head, now, self._choosing(self.seat))
        return ledger.can_author(self.seat, fair)

    def _vote_ok(self, author: int, seq: int, now: float) -> bool:
        """A vote, return or release (``author``'s ``seq``) within its allowance (``VOTE_RATE``)?

        Not charged: our own, those replayed from disk, those already filed (a
        harmless duplicate) and those a want of ours asked for (a catch-up is
        not a flood; a want is bounded by ``MAX_RESEND``).
        """
        feed = self.ledger.feeds.get(author)
        exempt = author == self.seat or self._restoring or feed is None or seq <= len(feed)
        return exempt or self.sync.asked(author, seq) or self.floods.admit_vote(author, now)

    def _too_early(self, motion: str, seat: int, now: float) -> str | None:
        """Why this replica does not back ``motion`` about ``seat`` yet (its own clock), or None."""
        return self.mover.too_early(motion, seat, self.motion_wait(motion, seat, now))

    def _vote(self, motion: str, seat: int, at: str, now: float) -> list[Event]:
        cut = len(self.ledger.feeds[seat])
        body = {"motion": motion, "seat": seat, "at": at, "cut": cut}
        return self._author("motion", body, now)

    def _motion_duties(self, now: float) -> list[Event]:
        """Mandatory votes, our return, releases of held seats that came back (one at a time)."""
        ledger = self.ledger
        duty = self.mover.duty(
            ledger.motions,
            partial(self._too_early, now=now),
            self._vote_refusal,
            self.resume.resumed is not None,
        )
        if duty is None or isinstance(duty, Rejected):
            return [] if duty is None else [duty]
        kind, body = duty
        if kind == "motion":
            return self._vote(body["motion"], body["seat"], body["at"], now)
        return self._author(kind, body, now)

    def _retire(self) -> None:
        """Once per round: let old rounds' frames leave memory (see :meth:`Ledger.retire`)."""
        ledger = self.ledger
        self._retired_round = ledger.round
        assert self.retain is not None
        forget = getattr(self.game, "retire_history", None)  # optional (PrivateGame has it)
        if callable(forget):
            forget(self.retain)
        self.seeds.forget(ledger.round - 1)  # revealed long ago (the journal keeps them)
        frames = ledger.retire(self.retain)
        if not frames:
            return
        self.stats["retired"] += len(frames)
        seen = self._seen
        for frame in frames:
            seen.discard(hashlib.sha256(frame).digest())
        self.written.forget(ledger.entries.base + ledger.asides.base)  # the record's first lines

    def _rebuild(self) -> list[Event]:
        """We applied something a motion voided: replay every feed into a fresh game.

        The transcript file is cut back to where the new order departs from
        what we wrote (a ``Rewound`` event) and continues from there.
        """
        old = self.ledger
        reason = old.diverged or "diverged"
        if self._game_factory is None:
            old.fault = f"cannot rebuild ({reason}): the replica has no game_factory"
            old.diverged = None
            return []
        saved: list[tuple[bool, bytes, Envelope]] | None = None
        if old.retired:  # old rounds left memory: the record on disk has them all
            saved = read_record(self._record, self.table, self.roster)
            if saved is None:
                old.fault = (
                    f"cannot rebuild here ({reason}): old rounds already left memory "
                    "and their record cannot be read; resume this seat (zsy join)"
                )
                old.diverged = None
                return []
        written = written_before(old, saved, self.written.lines)
        self.stats["rebuilds"] += 1
        game = self._game_factory()
        ledger = replay(old, game, saved)
        self.ledger, self.game = ledger, game
        self.written.lines = written
        self.written.rewind_reason = f"the table's motion replaced what this replica had: {reason}"
        events: list[Event] = []
        self._drain(ledger.drive(), events)
        size = len(ledger.entries) + len(ledger.asides)
        out = retold(events, old)
        if not any(isinstance(e, Rewound) for e in out) and size < len(self.written.lines):
            del self.written.lines[size:]
            out.insert(0, Rewound(size, self.written.rewind_reason))
        self.written.rewind_reason = None
        return out

    def _stalls(self, now: float) -> list[Event]:
        waiting = self.ledger.waiting()
        key = (self.ledger.head, self.ledger.stage, tuple(waiting))
        return self.live.stalls(key, waiting, now)
