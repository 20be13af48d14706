"""What a seated peer tells its player: plays, deals, rounds over, who dropped, who waits.

Why a module of its own (issues #14, #23): :class:`~zsy_lan.table.peer.TablePeer` carries
out the replica's events; the sentences it tells the player about them are
another concern, and the biggest part of the peer. A :class:`Narrator` is a
component the peer owns: it reads the table through a read-only
:class:`~zsy_lan.table.seat_view.SeatView`, takes the events that are news for
the player (a play applied, a new deal, a seat dropped or back, a stall, a
flood, a seat's message this version refused) and tells them through the
``tell`` callable it was given. It names seats (:meth:`Narrator.who`) and says
plays and the round's end in the variant's words (the sentences themselves
are :mod:`zsy_lan.text.present`'s). Every nick or reason from a peer goes
through ``clean``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol import Applied, PeerState, RoundSeeded, Stalled
from zsy_lan.protocol.envelope import CONTROL_TYPES, FEED_TYPES
from zsy_lan.protocol.events import Flooding, Rejected, Rewound
from zsy_lan.table.fault_words import fault_why
from zsy_lan.table.seat_view import SeatView
from zsy_lan.table.session import Notice
from zsy_lan.text.i18n import N_, _, join_items, join_sentences
from zsy_lan.text.present import (
    dealt_text,
    describe,
    redeal_text,
    round_or_hand,
    round_over_text,
    tribute_text,
)
from zsy_lan.text.sanitize import clean

log = logging.getLogger("zsy.peer")  # the peer's log: the same lines as before the split

#: What a seat sent that this version refused (an English reason from ``open_frame``),
#: in words a player reads; the reason itself stays in the log.
_REFUSED_WHAT = (
    ("chat body of", N_("a chat line longer than this version accepts")),
    ("unknown message type", N_("a kind of message this version does not know")),
    # issue #25: its first message vouches for another roster (it was seated with another
    # list by its host, or its program is modified), or for none (a version before #25)
    (
        "another roster",
        N_("a first message signed for another list of this table's seats and keys"),
    ),
    ("binds no roster", N_("a first message of an older version, which vouches for no seat's key")),
)
_REFUSED_ANY = N_("a message this version cannot read")
#: Refusals of a proven sender that leave no gap in its feed: a stale frame of another
#: table, a ``want`` control frame naming no seat. They never stall this table.
_NO_GAP = ("wrong table", "want from")
#: ``open_frame``'s "malformed KIND from seat N" reasons name the frame's type
_KIND = re.compile(r"^malformed (\w+) from seat \d+:")


@dataclass
class Refused:
    """A seat's signed frame this version refused, kept until that seat's feed moves on."""

    what: str  # a msgid: what it was, in a player's words
    next_seq: int  # the seat's next message here when it was refused
    feed: bool  # the reason names a feed type: surely a gap in the seat's feed
    told: bool = False  # the stall it causes was told (once per episode)


def refused_what(reason: str) -> str | None:
    """What a seat's refused frame was, for its player's screen; None: it stalls nothing.

    ``reason`` is the replica's English reason (``Rejected.reason``), which may
    quote what the peer sent: only a fixed phrase chosen from it is shown.
    """
    if reason.startswith(_NO_GAP):
        return None
    kind = _KIND.match(reason)
    if kind is not None and kind.group(1) in CONTROL_TYPES:
        return None  # a control frame is no message of the feed: nothing waits on it
    for mark, what in _REFUSED_WHAT:
        if mark in reason:
            return what
    return _REFUSED_ANY


class Narrator:
    """A seat's news for its player: takes the replica's events, tells notices through ``tell``.

    ``view`` is the table as this seat sees it (read only), ``rules`` the variant
    whose words a play is said in.
    """

    def __init__(self, view: SeatView, rules: Rules, tell: Callable[[Notice], None]) -> None:
        self.view = view
        self.seat = view.seat
        self.rules = rules
        self._tell = tell
        self._rounds_told = 0  # finished rounds already told
        self._heard: set[int] = set()  # seats heard from once (a first hello is no "is back")
        self._stall_told: set[tuple[object, int, bool]] = set()  # (position, seat, gone) told
        self._refused: dict[int, Refused] = {}  # seat -> its refused frame, until it moves on

    def who(self, seat: int) -> str:
        """A seat as the narration names it: "you", or the seat with its (cleaned) nick."""
        if seat == self.seat:
            return _("you")
        seats = self.view.seats
        nick = clean(seats[seat].nick) if 0 <= seat < len(seats) else "?"
        return _("seat {seat} ({nick})").format(seat=seat, nick=nick)

    def play(self, ev: Applied) -> None:
        """An applied move, in the variant's words (a private deal's own steps: nothing)."""
        if ev.by is None:
            self._refused.pop(ev.seat, None)  # its own message got through: the gap is gone
        action = self.view.game.engine_action(ev.seat, ev.action)
        if action is None:
            return  # a step of the private deal (its outcome comes as a note), or malformed
        if action.kind in ("give", "return"):
            text = self._tribute_text(ev.seat, action)
        else:
            text = _("{who}: {play}").format(
                who=self.who(ev.seat), play=describe(action, rules=self.rules)
            )
        if ev.by is not None:  # a bot played for a held seat; "you" has sentences of its own
            run_by = _("seat {seat}").format(seat=ev.by)
            if ev.by == self.seat:
                text = _("bot (held by you) plays for {text}").format(text=text)
            elif ev.seat == self.seat and action.kind not in ("give", "return"):
                text = _("bot (held by {run_by}) plays for you: {play}").format(
                    run_by=run_by, play=describe(action, rules=self.rules)
                )
            else:
                text = _("bot (held by {run_by}) plays for {text}").format(
                    run_by=run_by, text=text
                )
        self._tell(Notice("play", text))
        redeal = redeal_text(self.rules, self.view.game.round, action)
        if redeal is not None:
            self._tell(Notice("round", redeal))
        self.round_over()

    def round_over(self) -> None:
        """Tell a round that ended since the last one told, in the variant's words, once."""
        m = self.view.game.match
        if len(m.results) > self._rounds_told:
            self._rounds_told = len(m.results)
            self._tell(Notice("round", round_over_text(self.rules, m, self.who)))

    def _tribute_text(self, giver: int, action: Action) -> str:
        """A tribute step naming its real receiver (ZSY-7): the round's tribute log says who.

        A returned card is face down: only its giver and receiver see it named.
        """
        r = self.view.game.round
        receiver = -1
        for g, rec, _cards, _n in reversed(r.tribute_log if r is not None else ()):
            if g == giver:
                receiver = rec
                break
        n = action.value if action.hidden else len(action.cards)
        cards = ""
        if action.cards and (action.kind == "give" or self.seat in (giver, receiver)):
            cards = cards_str(action.cards)
        if receiver < 0 and action.kind == "give" and action.cards:
            # shown, not given yet (Guandan under the private deal: each giver shows in
            # turn, the cards move once all have shown), or shown to resist (GD-6.3)
            shown = _("{who} shows {cards} for the tribute").format(
                who=self.who(giver), cards=cards_str(action.cards)
            )
            if r is not None and r.get("tribute_paid") == "resisted":
                return join_sentences([shown, _("No tribute this deal: it was resisted")])
            return shown
        if receiver < 0:  # the round moved on before we told it: say what we know
            play = describe(action, rules=self.rules)
            return _("{who}: {play}").format(who=self.who(giver), play=play)
        return tribute_text(action.kind, giver, receiver, self.seat, self.who, cards, n)

    def left_text(self, seat: int) -> str:
        """What a seat's ``bye`` means for this table (seat 0 is the host).

        The host has no authority after the lobby: its leaving is told like any
        seat's, naming it so players understand. Bots run in a player's process
        (``run_by``) leave with that player and come back only when it resumes
        (``zsy join`` cannot start a bot): issue #26 found the joiner told they
        would return by themselves. That is said of the bots and of their player.
        """
        runner = self._runner(seat)
        if runner is not None and not self.view.connected(runner):  # its player's line said it
            return self._bot_left_text(seat, runner)
        if runner is not None:
            return join_sentences([self._bot_left_text(seat, runner), self._left_then(False)])
        who = self.who(seat)
        if seat == 0:
            who = _("{who}, the host,").format(who=who)
        bots = [s for s in range(len(self.view.seats)) if self._runner(s) == seat]
        if bots:
            said = _(
                "{who} left the table, and the bots it runs ({bots}) with it: they come "
                "back only when it resumes (zsy join)."
            ).format(who=who, bots=join_items(self.who(b) for b in bots))
            return join_sentences([said, self._left_then(True)])
        if self.view.allows("hold"):
            return _(
                "{who} left the table. If the table waits on them, a bot holds the seat "
                "after {s:g} s, until they return (zsy join)"
            ).format(who=who, s=self.view.timing.hold_after)
        if self.view.allows("void"):
            return round_or_hand(
                self.rules,
                _(
                    "{who} left the table. The table waits for them to return (zsy join); if it "
                    "waits on them for {s:g} s, you can type void to void this round"
                ),
                _(
                    "{who} left the table. The table waits for them to return (zsy join); if it "
                    "waits on them for {s:g} s, you can type void to void this hand"
                ),
            ).format(who=who, s=self.view.timing.stall)
        return _("{who} left the table. The table waits for them to return (zsy join)").format(
            who=who
        )

    def _runner(self, seat: int) -> int | None:
        """The other seat whose process runs the bot at ``seat`` (None: a player, or ours)."""
        seats = self.view.seats
        run_by = seats[seat].run_by if 0 <= seat < len(seats) else None
        if run_by is None or run_by in (seat, self.seat) or not seats[seat].bot:
            return None
        return run_by

    def _bot_left_text(self, seat: int, runner: int) -> str:
        """A bot left with the player whose process runs it: it is back only with that player."""
        return _(
            "{who} left the table with {runner}, whose process runs it: it comes back "
            "only when {runner} resumes (zsy join)."
        ).format(who=self.who(seat), runner=self.who(runner))

    def _left_then(self, several: bool) -> str:
        """What the table does about seats that left with a player's process, in a sentence."""
        t = self.view.timing
        if self.view.allows("hold"):
            if several:
                return _(
                    "If the table waits on one of them, a bot holds that seat after {s:g} s."
                ).format(s=t.hold_after)
            return _("If the table waits on it, a bot holds the seat after {s:g} s.").format(
                s=t.hold_after
            )
        if self.view.allows("void"):
            if several:
                return round_or_hand(
                    self.rules,
                    _(
                        "If the table waits on one of them for {s:g} s, you can type void to "
                        "void this round; it goes on if they are back before every seat agreed."
                    ),
                    _(
                        "If the table waits on one of them for {s:g} s, you can type void to "
                        "void this hand; it goes on if they are back before every seat agreed."
                    ),
                ).format(s=t.stall)
            return round_or_hand(
                self.rules,
                _("If the table waits on it for {s:g} s, you can type void to void this round."),
                _("If the table waits on it for {s:g} s, you can type void to void this hand."),
            ).format(s=t.stall)
        return _("The table waits for them.") if several else _("The table waits for it.")

    def stopped_text(self, seat: int, kind: str) -> str:
        """What a seat's ``bye`` saying it stopped on a local fault of class ``kind`` means.

        The seat said it (signed); no cheat is proven, and no timeout is waited
        on it: a hold or a void about it may follow at once (docs/protocol.md,
        "Votes"). The clause for ``kind`` is one of this version's own phrases.
        """
        who = self.who(seat)
        if seat == 0:
            who = _("{who}, the host,").format(who=who)
        seats = self.view.seats
        nick = clean(seats[seat].nick) if 0 <= seat < len(seats) else "?"
        said = [
            _("{who} stopped: {why}, it says; a fault on its side, not a cheat.").format(
                who=who, why=fault_why(kind)
            )
        ]
        if self.view.allows("hold"):
            said.append(
                _(
                    "A bot holds the seat when the table waits on it, until {nick} is back "
                    "(zsy join)."
                ).format(nick=nick)
            )
        elif self.view.allows("void"):
            said.append(
                round_or_hand(
                    self.rules,
                    _(
                        "When the table waits on it, type void to void this round at once "
                        "(earlier rounds stand), or wait until {nick} is back (zsy join)."
                    ),
                    _(
                        "When the table waits on it, type void to void this hand at once "
                        "(earlier hands stand), or wait until {nick} is back (zsy join)."
                    ),
                ).format(nick=nick)
            )
        else:
            said.append(_("The table waits until {nick} is back (zsy join).").format(nick=nick))
        return join_sentences(said)

    def dealt(self, ev: RoundSeeded) -> None:
        """A round was seeded: its deal told (a private deal's shuffle begins)."""
        r = self.view.game.round
        if self.view.game.hidden_hands:  # (also when told again on a resume, past the deal)
            self._tell(Notice("round", _("shuffling and dealing (private deal: mental poker)")))
        elif r is not None:
            self._tell(Notice("round", dealt_text(self.rules, r, self.who, me=self.seat)))

    def peer_state(self, ev: PeerState) -> None:
        """A seat dropped, left or came back (the seat list was marked by the peer)."""
        first = ev.seat not in self._heard
        self._heard.add(ev.seat)
        who = self.who(ev.seat)
        if not ev.connected and ev.fault is not None:
            self._tell(Notice("net", self.stopped_text(ev.seat, ev.fault)))
        elif not ev.connected and ev.left:
            self._tell(Notice("net", self.left_text(ev.seat)))
        elif not ev.connected:
            text = _("{who} dropped (the table waits for them to return)").format(who=who)
            if self.view.allows("hold"):
                text = _(
                    "{who} dropped; if the table waits on them for {s:g} s, a bot holds the seat"
                ).format(who=who, s=self.view.timing.hold_after)
            self._tell(Notice("net", text))
        elif not first:
            self._tell(Notice("net", _("{who} is back").format(who=who)))

    def stalled(self, ev: Stalled) -> None:
        """The table waits on a seat: told once per position and seat (never our own turn)."""
        what, moving = ev.what, ev.what == "action"
        game = self.view.game
        owed = game.owed(ev.waiting_on)  # an English message id: said in our language
        if owed is not None:
            what, moving = _(owed), owed == "a move"
        gone = not self.view.connected(ev.waiting_on)
        told = (self.view.position(), ev.waiting_on, gone)
        if ev.waiting_on == self.seat or told in self._stall_told:
            # our own turn shows in the table's prompt (with its one reminder); a
            # wait already told is not repeated: an idle screen stays quiet
            return
        self._stall_told = {t for t in self._stall_told if t[0] == told[0]} | {told}
        if self._refused_stalls(ev.waiting_on):
            got = self._refused[ev.waiting_on]
            self._tell(Notice("net", self._refused_text(ev.waiting_on, got)))
            got.told = True  # later waits on it read as usual
            return
        since = time.strftime("%H:%M:%S", time.localtime(time.time() - self.view.timing.stall))
        fault = self.view.stopped(ev.waiting_on) if gone else None
        if fault is not None:  # it said why it stopped: no "withholding"
            text = _("the table waits on {who}, which stopped: {why}").format(
                who=self.who(ev.waiting_on), why=fault_why(fault)
            )
            if self.view.can_void():
                text = join_sentences(
                    [
                        text,
                        round_or_hand(
                            self.rules,
                            _("(type void to vote to void this round; earlier rounds stand)"),
                            _("(type void to vote to void this hand; earlier hands stand)"),
                        ),
                    ]
                )
        elif game.withholding(ev.waiting_on, gone):
            text = _(
                "{who} is withholding {what} past the timeout; the table waits for it to come back"
            ).format(who=self.who(ev.waiting_on), what=what)
            if self.view.can_void():
                text = join_sentences(
                    [
                        text,
                        round_or_hand(
                            self.rules,
                            _("(type void to vote to void this round; earlier rounds stand)"),
                            _("(type void to vote to void this hand; earlier hands stand)"),
                        ),
                    ]
                )
        elif moving:  # a private deal's play stage owes "a move": said as the open deal's
            text = _("waiting for {who} to move, since {since}").format(
                who=self.who(ev.waiting_on), since=since
            )
        else:
            # one sentence: "{who}" already ends in "(nick)", a second "(...)" read as a stutter
            text = _("waiting for {what} from {who}, since {since}").format(
                who=self.who(ev.waiting_on), what=what, since=since
            )
        self._tell(Notice("net", text))

    def refused(self, ev: Rejected) -> None:
        """Another seat's signed frame was refused (an over-long chat from a modified
        client, a message type this version does not know): remember it for the stall.

        Such a frame is a gap in its author's feed here, so nothing it signs afterwards
        can be filed and the table comes to wait on it; players used to read only
        "waiting for seat N" while the reason sat in the log. The signature proves the
        author, so naming it blames nobody else; it is told as no cheat, once per
        episode, when the table waits on that seat (:meth:`stalled`).
        """
        seat = ev.sender
        if seat is None or seat == self.seat or not 0 <= seat < len(self.view.seats):
            return  # unproven, or this seat's own request: the caller says why
        what = refused_what(ev.reason)
        at = self.view.next_seq(seat)
        old = self._refused.get(seat)
        if what is not None and (old is None or old.next_seq != at):  # a new episode
            kind = _KIND.match(ev.reason)
            feed = kind is not None and kind.group(1) in FEED_TYPES
            self._refused[seat] = Refused(what, at, feed)

    def _refused_stalls(self, seat: int) -> bool:
        """True when the table waits on ``seat`` behind the gap its refused frame left.

        Its feed has not moved since, and either the frame was of the feed or later
        messages of that seat wait here behind the gap: a refused control frame, or a
        seat merely slow to move, is not blamed on the refusal.
        """
        got = self._refused.get(seat)
        if got is None or got.told or self.view.next_seq(seat) != got.next_seq:
            return False
        return got.feed or self.view.held_back(seat) > 0  # its later messages wait

    def _refused_text(self, seat: int, got: Refused) -> str:
        """The stall a refused frame causes, in words: whose, what, and what the table can do."""
        said = [
            _(
                "{who} sent {what}, which this table refuses: nothing that seat sends after "
                "it can be taken, so the table waits on it. This is no cheat (a different "
                "or modified program sends such messages), and it does not pass by itself."
            ).format(who=self.who(seat), what=_(got.what))
        ]
        if self.view.can_void():
            said.append(
                round_or_hand(
                    self.rules,
                    _(
                        "Type void to vote to void this round (earlier rounds stand); the next "
                        "round waits on that seat again, so you may rather leave (quit)."
                    ),
                    _(
                        "Type void to vote to void this hand (earlier hands stand); the next "
                        "hand waits on that seat again, so you may rather leave (quit)."
                    ),
                )
            )
        elif self.view.allows("hold"):
            said.append(
                _(
                    "If that seat leaves the table, a bot holds it after {s:g} s; otherwise "
                    "leave with quit."
                ).format(s=self.view.timing.hold_after)
            )
        else:
            said.append(_("Leave with quit if it does not recover."))
        return join_sentences(said)

    def flooding(self, ev: Flooding) -> None:
        """A seat floods this one: its excess is dropped (said once per episode)."""
        # once per episode; being flooded proves nothing by signed frames: no blame
        log.warning("seat %s is flooding (%s frames/s); its excess is dropped", ev.seat, ev.rate)
        self._tell(
            Notice(
                "net",
                _("{seat} is flooding ({rate} frames/s); its excess is dropped").format(
                    seat=self.who(ev.seat), rate=ev.rate
                ),
            )
        )

    def rewound(self, ev: Rewound) -> None:
        """The table replaced what this seat had applied: the rounds told start over from it."""
        self._rounds_told = len(self.view.game.match.results)
        self._tell(
            Notice(
                "net",
                f"the table went on while you were cut off ({ev.reason}); your record is "
                f"rewritten from line {ev.keep + 2}",
            )
        )
