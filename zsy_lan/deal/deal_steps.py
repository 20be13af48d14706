"""The deal messages of a private-deal table: read (checked, parsed once) and written.

:class:`DealSteps` is the private deal's bookkeeping of its messages, beside
the stage machine in :mod:`zsy_lan.deal.private_game`: it checks a feed
action against the stage the game is in (:meth:`DealSteps.parse`), authors
the step this seat owes (:meth:`DealSteps.author`), adds to this seat's move
the keys or sealed pass it needs (:meth:`DealSteps.prepare`), and tells the
engine action inside a feed action as this seat may know it. It reads the
game's state (stage, deal, round) and never changes it: every change is the
game's, in its ``apply``.

Each deal body is parsed once: ``check`` and ``apply`` get the same body
object (by identity), and a body this seat authored comes back from its own
signed frame equal to what it built (by value, own seat only).
"""

from __future__ import annotations

from typing import Any, Protocol

from zsy_lan.deal.deal_errors import DealError, MalformedMessage, NotReady
from zsy_lan.deal.mental import OBSERVER, DealConfig, DealPeer, commitment_for
from zsy_lan.deal.messages import Commit, Message, Open, Pass, Reveal, from_body
from zsy_lan.deal.seat_secrets import SeatSecrets
from zsy_lan.deal.stages import DEAL_KINDS, Stage
from zsy_lan.engine.errors import MalformedAction, RuleError
from zsy_lan.engine.match import MatchState
from zsy_lan.engine.round import DECK
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import GIVE, PLAY, RETURN, Action, RoundState

__all__ = ["DealSteps"]


class DealTable(Protocol):
    """What :class:`DealSteps` reads of the private deal it serves (``PrivateGame``)."""

    seat: int
    n: int
    table_id: str
    rules: Rules
    match: MatchState
    stage: Stage
    deal: DealPeer | None
    cfg: DealConfig | None
    deal_no: int
    stock: tuple[int, ...]
    complaint: str | None
    aborted_by: int | None
    abort_reason: str
    secrets: SeatSecrets

    def actors(self) -> tuple[int, ...]: ...

    def round_step(self, state: RoundState, act: Action) -> RoundState: ...


class DealSteps:
    """The deal messages of one private-deal game (see the module doc)."""

    def __init__(self, game: DealTable) -> None:
        self.game = game
        self._parsed: dict[int, tuple[object, str, int, Message]] = {}
        self._own: dict[str, tuple[dict[str, Any], Message]] = {}
        # commitments for deal ``_next_for``, carried by the previous deal's reveals
        self._next_for = 0
        self._next_commits: dict[int, Commit] = {}

    def carry_next(self, seat: int, action: dict[str, Any], deal_no: int) -> None:
        """Keep the commitment for deal ``deal_no`` that ``seat``'s reveal carried (``next``)."""
        if self._next_for != deal_no:
            self._next_for, self._next_commits = deal_no, {}
        self._next_commits[seat] = self.next_commit(seat, action)

    def carried(self, deal_no: int) -> dict[int, Commit]:
        """The commitments carried for deal ``deal_no`` by seat (taken: asked once per deal)."""
        pre = self._next_commits if self._next_for == deal_no else {}
        self._next_for, self._next_commits = 0, {}
        return pre

    def forget(self) -> None:
        """Drop the parsed bodies (a voided deal's messages are never applied)."""
        self._parsed.clear()

    def author(self) -> dict[str, Any] | None:
        """The deal message this seat owes now, or None (nothing owed, or a player's choice).

        The shell authors it at once whenever the replica says this seat can
        act, before asking a bot or a player: deal steps are not choices.
        """
        g = self.game
        s = g.seat
        if s == OBSERVER or s not in g.actors() or g.deal is None:
            return None
        st, d = g.stage, g.deal
        if g.complaint is not None and st != Stage.REVEAL and g.aborted_by is None:
            msg: Message = d.reveal_message(f"abort: {g.complaint}")
            return self._with_next({"kind": "deal.reveal", "seat": s, "deal": self._body(msg)})
        if st == Stage.COMMIT:
            return {"kind": "deal.commit", "seat": s, "deal": self._body(d.commit_message())}
        if st in (Stage.SHUFFLE, Stage.RELOCK):
            return {"kind": f"deal.{st}", "seat": s, "deal": self._body(d.step_message())}
        if st == Stage.KEYS:
            return {"kind": "deal.keys", "seat": s, "deal": self._body(d.deal_keys_message())}
        if st == Stage.KITTY:
            return {
                "kind": "deal.kitty",
                "seat": s,
                "deal": self._body(d.stock_keys_message(g.stock)),
            }
        if st == Stage.LEAD:
            start = g.lead_card
            mine = [i for i, c in sorted(d.hand().items()) if c % DECK == start]
            if not mine:
                return {"kind": "deal.lead", "seat": s}
            return {
                "kind": "deal.lead",
                "seat": s,
                "deal": self._body(d.open_message(mine[:1], "show")),
            }
        if st == Stage.REVEAL:
            reason = "end" if g.aborted_by is None else f"reply to seat {g.aborted_by}"
            if g.aborted_by is None and g.abort_reason:
                reason = f"reply: {g.abort_reason}"
            body = self._body(d.reveal_message(reason))
            return self._with_next({"kind": "deal.reveal", "seat": s, "deal": body})
        return None

    def _with_next(self, reveal: dict[str, Any]) -> dict[str, Any]:
        """A reveal carrying this seat's commitment for the next deal (``next``).

        Once every seat's reveal of a deal carried one, the next deal skips its
        commit stage: the deck moves as soon as the seed is known, one round
        trip sooner. The commitment binds the secrets drawn from the next deal's
        secret (drawn two deals ahead, so it is durable long before this), and
        the next deal's audit checks them against it like any commitment.
        """
        g = self.game
        no = g.deal_no + 1
        cfg = DealConfig(g.table_id, no, g.n, tuple(g.rules.deck), g.cfg.layout)
        commit = commitment_for(cfg, g.seat, g.secrets.rand_for(no))
        return {**reveal, "next": commit.to_body()}

    def next_commit(self, seat: int, action: dict[str, Any]) -> Commit:
        """The ``next`` commitment of a reveal, checked: well-formed, the sender's, M hashes."""
        g = self.game
        body = action["next"]
        if not isinstance(body, dict):
            raise MalformedMessage(
                "next: a commitment is a JSON object", culprit=seat, step="commit"
            )
        commit = from_body(Commit.TYPE, body, sender=seat)
        assert isinstance(commit, Commit)
        if len(commit.key_hashes) != len(g.rules.deck):
            raise MalformedMessage(
                f"next: {len(commit.key_hashes)} key hashes for {len(g.rules.deck)} slots",
                culprit=seat,
                step="commit",
            )
        return commit

    def prepare(self, action: dict[str, Any]) -> dict[str, Any]:
        """This seat's engine action with the deal message it needs (its keys, a sealed pass).

        Raises ``ValueError`` when the action cannot be made (a card not in
        the hand, a face-up card returned face down).
        """
        g = self.game
        act = Action.from_json(action)
        if g.stage != Stage.PLAY or g.deal is None or act.seat != g.seat:
            raise ValueError("no move is due from this seat now")
        if act.kind == PLAY:
            return {
                **act.to_json(),
                "deal": self._body(g.deal.open_message(self._slots_of_cards(act.cards), "play")),
            }
        if act.kind == GIVE:
            return {
                **act.to_json(),
                "deal": self._body(g.deal.open_message(self._slots_of_cards(act.cards), "show")),
            }
        if act.kind == RETURN:
            r = g.match.round
            assert r is not None and r.duties
            slots = self._slots_of_cards(act.cards)
            if any(g.deal.slots[i].public for i in slots):
                raise ValueError("a card everybody has seen cannot be returned face down")
            msg = g.deal.pass_message(slots, r.duties[0].receiver)
            body = Action(RETURN, act.seat, (), len(act.cards), True).to_json()
            return {**body, "deal": self._body(msg)}
        return act.to_json()

    def _slots_of_cards(self, cards: tuple[int, ...]) -> list[int]:
        """My slots holding ``cards`` (card ids are unique in a deck, copies included)."""
        g = self.game
        assert g.deal is not None
        where = {c: i for i, c in g.deal.hand().items()}
        missing = [c for c in cards if c not in where]
        if missing:
            raise ValueError(f"cards {missing} are not in this seat's hand")
        return [where[c] for c in cards]

    def engine_action(self, seat: int, action: dict[str, Any]) -> Action | None:
        """The engine action inside a feed action, as this seat may know it (for narration)."""
        g = self.game
        kind = action.get("kind")
        if not isinstance(kind, str) or kind.startswith("deal."):
            return None
        try:
            act = Action.from_json({k: v for k, v in action.items() if k != "deal"})
        except ValueError:
            return None
        if kind == RETURN and g.deal is not None and isinstance(action.get("deal"), dict):
            slots = action["deal"].get("slots", [])
            cards = [g.deal.slots[i].card for i in slots if 0 <= i < len(g.deal.slots)]
            if cards and all(c is not None for c in cards):
                return Action(RETURN, seat, tuple(sorted(c for c in cards if c is not None)))
        return act

    def parse(
        self, seat: int, action: dict[str, Any]
    ) -> tuple[str, Message | None, Action | None]:
        """Check ``action`` by ``seat`` now; returns (kind, deal message, engine action)."""
        g = self.game
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object")
        kind = action.get("kind")
        if action.get("seat") != seat:
            raise RuleError("ZSY-5.1", f"seat {seat} cannot act for seat {action.get('seat')}")
        if seat not in g.actors():
            raise RuleError("ZSY-5.1", f"seat {seat} does not act now ({g.stage} stage)")
        d = g.deal
        if d is None:
            raise RuleError("ZSY-1.3", "no deal in progress")
        if isinstance(kind, str) and kind in DEAL_KINDS:
            allowed = (
                {"kind", "seat", "deal", "next"}
                if kind == "deal.reveal"
                else {"kind", "seat", "deal"}
            )
            if set(action) - allowed:
                raise MalformedAction(f"unknown fields in a {kind} action")
            if kind == "deal.reveal":
                if "next" in action:
                    self.next_commit(seat, action)  # well-formed, or a cheat now
                if g.stage != Stage.REVEAL:
                    msg = self._deal_msg(seat, action, Reveal)
                    if not msg.is_abort:  # type: ignore[union-attr]
                        raise RuleError("DEAL", "only an abort may stop the round early")
                else:
                    msg = self._deal_msg(seat, action, Reveal)
                self._verify(msg)
                return kind, msg, None
            expect = {
                Stage.COMMIT: "deal.commit",
                Stage.SHUFFLE: "deal.shuffle",
                Stage.RELOCK: "deal.relock",
                Stage.KEYS: "deal.keys",
                Stage.KITTY: "deal.kitty",
                Stage.LEAD: "deal.lead",
            }
            if expect.get(g.stage) != kind:
                raise RuleError("DEAL", f"{kind} during the {g.stage} stage")
            if kind == "deal.lead":
                if "deal" not in action:
                    return kind, None, None
                msg = self._deal_msg(seat, action, Open)
                start = g.lead_card
                if msg.kind != "show" or len(msg.cards) != 1 or msg.cards[0][1] % DECK != start:  # type: ignore[union-attr]
                    rule = g.rules.rule_id("ZSY-2.1")
                    raise RuleError(rule, "a lead declaration shows one start card or nothing")
                self._verify(msg)
                return kind, msg, None
            msg = self._deal_msg(seat, action, DEAL_KINDS[kind])
            if kind == "deal.keys" and msg.kind != "deal":  # type: ignore[union-attr]
                raise RuleError("DEAL", "deal keys must be of kind 'deal'")
            stock = g.stock
            if kind == "deal.kitty" and (
                msg.kind != "reveal" or tuple(i for i, _ in msg.keys) != stock  # type: ignore[union-attr]
            ):
                raise RuleError("DDZ-2.4", "kitty keys must cover exactly the kitty")
            self._verify(msg)
            return kind, msg, None
        if g.stage != Stage.PLAY:
            raise RuleError("DEAL", f"{kind!r} during the {g.stage} stage")
        engine = {k: v for k, v in action.items() if k != "deal"}
        act = Action.from_json(engine)
        r = g.match.round
        assert r is not None
        msg = None
        if act.kind in (PLAY, GIVE):
            msg = self._deal_msg(seat, action, Open)
            want = "play" if act.kind == PLAY else "show"
            claimed = sorted(c for _, c in msg.cards)  # type: ignore[union-attr]
            if msg.kind != want or claimed != sorted(act.cards):  # type: ignore[union-attr]
                raise RuleError("DEAL", f"the {act.kind} names other cards than it opens")
            self._verify(msg)
        elif act.kind == RETURN:
            msg = self._deal_msg(seat, action, Pass)
            if not act.hidden or act.cards or not r.duties:
                raise RuleError("ZSY-7.1", "a return is face down: no cards, hidden, a value")
            if msg.to != r.duties[0].receiver or len(msg.slots) != act.value:  # type: ignore[union-attr]
                raise RuleError("ZSY-7.1", "the sealed pass does not match the return")
            self._verify(msg)
            act = self._return_as_known(seat, msg)  # type: ignore[arg-type]
        elif "deal" in action:
            raise MalformedAction(f"a {act.kind} carries no deal message")
        g.round_step(r, act)  # raises RuleError if illegal
        return act.kind, msg, act

    def _deal_msg(self, seat: int, action: dict[str, Any], cls: type) -> Message:
        g = self.game
        body = action.get("deal")
        hit = self._parsed.get(id(body))
        if hit is not None and hit[0] is body and hit[1] == cls.TYPE and hit[2] == seat:
            return hit[3]
        own = self._own.get(cls.TYPE) if seat == g.seat else None
        if own is not None and own[0] == body:
            msg = own[1]
        else:
            msg = from_body(cls.TYPE, body, sender=seat)
            if not isinstance(msg, cls):
                raise MalformedAction(f"expected a {cls.TYPE} message")
        self._parsed[id(body)] = (body, cls.TYPE, seat, msg)  # keeps body alive: ids stay unique
        if len(self._parsed) > 8:
            del self._parsed[next(iter(self._parsed))]
        return msg

    def _body(self, msg: Message) -> dict[str, Any]:
        """``msg.to_body()``, remembered so this seat's own message is not parsed again."""
        self._own[msg.TYPE] = (msg.to_body(), msg)  # its own copy: the caller may change theirs
        return msg.to_body()

    def _verify(self, msg: Message) -> None:
        g = self.game
        assert g.deal is not None
        try:
            g.deal.verify(msg)
        except NotReady:
            raise RuleError("DEAL", f"{msg.TYPE} before its turn") from None
        except DealError as exc:
            raise RuleError("DEAL", f"private deal, {exc.step or 'deal'}: {exc.reason}") from None

    def _return_as_known(self, seat: int, msg: Pass) -> Action:
        """The return as this seat knows it: cards for the giver, hidden for the rest.

        (The receiver learns the cards when it opens the pass, in ``apply``.)
        """
        g = self.game
        assert g.deal is not None
        if seat == g.seat:
            cards = [g.deal.slots[i].card for i in msg.slots]
            return Action(RETURN, seat, tuple(sorted(c for c in cards if c is not None)))
        return Action(RETURN, seat, (), len(msg.slots), True)
