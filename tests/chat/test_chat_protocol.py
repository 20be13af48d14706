"""Chat in the replica: signed feed messages outside the game (DESIGN.md "Around the table").

Whatever chat frames are interleaved, by whom, when, over a lossy network,
and whatever a modified peer puts in them, the game's state hash and the
transcript's game content stay exactly what they are without chat; every chat
line reaches every other seat (lost frames come back like any feed message);
a chat frame never names anybody a cheater.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proto_support import TABLE, Mesh, identity

from zsy_lan.protocol import open_frame, seal, verify_transcript
from zsy_lan.protocol.envelope import NEUTRAL_TYPES
from zsy_lan.protocol.events import Flooding, Said
from zsy_lan.protocol.transcript import load_entry

HOSTILE = [
    {"text": "\x1b[2J\x1b]0;owned\x07hi"},
    {"text": "\u202eevil\u202c"},
    {"text": "nul\x00byte"},
    {"text": "x" * 1_500},  # over MAX_TEXT: the reader drops it (over MAX_CHAT_BODY: refused)
    {"phrase": "no-such-phrase"},
    {"phrase": 7},
    {"text": ["not", "a", "string"]},
    {"weird": True},
    {},
]
bodies = st.one_of(
    st.sampled_from([{"phrase": "gg"}, {"phrase": "nice"}, {"text": "hello"}]),
    st.sampled_from(HOSTILE),
    st.builds(lambda t: {"text": t}, st.text(max_size=60)),
)


class ChatMesh(Mesh):
    """The protocol mesh, plus chat lines signed at scheduled times, and every Said kept."""

    def __init__(self, *args, chats=(), **kwargs) -> None:
        self.said: dict[int, list[Said]] = {}
        self.plan = sorted(chats, key=lambda c: c[0])
        self.sent_chat: list[tuple[int, int]] = []  # (author, seq)
        super().__init__(*args, **kwargs)

    def handle(self, node, events, limit=None) -> None:
        for ev in events:
            if isinstance(ev, Said):
                self.said.setdefault(node.seat, []).append(ev)
        super().handle(node, events, limit)

    def everyone_heard(self) -> bool:
        sent = set(self.sent_chat)
        return all(sent <= {(e.seat, e.seq) for e in self.said.get(s, [])} for s in self.seats)

    def step(self, dt: float = 0.05) -> None:
        while self.plan and self.plan[0][0] <= self.now:
            _t, seat, body = self.plan.pop(0)
            node = self.nodes[seat]
            events = node.replica.chat(body, self.now)
            assert not [e for e in events if type(e).__name__ == "Rejected"], events
            self.sent_chat += [(e.seat, e.seq) for e in events if isinstance(e, Said)]
            self.handle(node, events)
        super().step(dt)


def game_content(mesh: Mesh) -> list[tuple[int, str, object, str]]:
    """What the transcript says about the game: (seat, type, body, state) of each entry."""
    node = mesh.nodes[0]
    out = []
    for seat, frame in node.replica.transcript():
        env = open_frame(frame, mesh.roster, TABLE)
        out.append((seat, env.type, dict(env.body), env.state))
    return out


schedules = st.lists(
    st.tuples(st.floats(0.0, 6.0), st.integers(0, 2), bodies), min_size=1, max_size=12
)


@pytest.mark.slow  # soak: each example plays two whole simulated matches
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 5),
    seed=st.integers(0, 2**32 - 1),
    drop=st.sampled_from([0.0, 0.2]),
    simultaneous=st.booleans(),
    chats=schedules,
)
def test_chat_never_changes_the_game_or_its_transcript(n, seed, drop, simultaneous, chats):
    base = Mesh(n, seed, simultaneous=simultaneous)
    base.run()
    mesh = ChatMesh(
        n, seed, drop=drop, dup=0.1, max_delay=0.3, simultaneous=simultaneous, chats=chats
    )
    mesh.run()
    end = mesh.now + 10.0  # a line said as the match ended ("gg") may still be on its way
    while (mesh.plan or not mesh.everyone_heard()) and mesh.now < end:
        mesh.step()
    nodes = mesh.honest()
    for node in nodes:
        assert node.replica.halted is None and not node.cheats, node.cheats
        assert node.replica.game.finished()
    # the game state hash is the one the table reaches without any chat
    hashes = {n.replica.game.public_hash() for n in nodes}
    assert hashes == {base.nodes[0].replica.game.public_hash()}
    # the transcript's game content too: every entry's author, type, body and state
    assert game_content(mesh) == game_content(base)
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    # no chat frame is in the hash chain; chat said before its author's next move is an aside
    for node in nodes:
        for _seat, frame in node.replica.transcript():
            assert open_frame(frame, mesh.roster, TABLE).type != "chat"
    # the record (with its chat asides) verifies, and the files are identical everywhere
    assert len({tuple(n.lines) for n in nodes}) == 1
    assert verify_transcript(nodes[0].lines, mesh.roster, mesh.new_game).ok
    # every line reaches every other seat, lost frames included (feed resends)
    for node in nodes:
        heard = {(e.seat, e.seq) for e in mesh.said.get(node.seat, [])}
        assert set(mesh.sent_chat) <= heard


def test_chat_is_neutral_and_not_blamed_out_of_turn():
    """A chat signed on the current state by a seat whose turn it is not is no cheat."""
    assert "chat" in NEUTRAL_TYPES
    mesh = ChatMesh(3, 5, chats=[(0.0, s, {"phrase": "hello"}) for s in range(3)])
    mesh.run()
    for node in mesh.honest():
        assert node.replica.halted is None
        assert sorted((e.seat) for e in mesh.said[node.seat]) == [0, 1, 2]


def test_chat_asides_sit_before_the_authors_next_entry():
    mesh = ChatMesh(3, 11, chats=[(0.0, 1, {"text": "before my move"})])
    mesh.run()
    lines = mesh.nodes[0].lines[1:]
    entries = [load_entry(line) for line in lines]
    at = next(i for i, (_s, f, aside) in enumerate(entries) if aside)
    seat, frame, _aside = entries[at]
    env = open_frame(frame, mesh.roster, TABLE)
    assert (seat, env.type, dict(env.body)) == (1, "chat", {"text": "before my move"})
    after = open_frame(entries[at + 1][1], mesh.roster, TABLE)
    assert after.seat == 1 and after.seq == env.seq + 1 and not entries[at + 1][2]


def test_a_chat_flood_is_dropped_and_named_flooding_never_cheating():
    """Thousands of chat frames a second from a modified seat: excess dropped, named once."""
    mesh = Mesh(3, 3)
    target = mesh.nodes[1].replica
    flooder = identity(0)
    prev, events = "", []
    for seq in range(1, 600):
        frame = seal(
            flooder, table=TABLE, seat=0, seq=seq, prev=prev, state="",
            type="chat", body={"text": f"spam {seq}"},
        )
        prev = open_frame(frame, mesh.roster, TABLE).digest
        events += target.receive(frame, 1.0 + seq / 200, via=0)  # 200 a second
    floods = [e for e in events if isinstance(e, Flooding)]
    assert [f.seat for f in floods] == [0]
    assert target.halted is None
    assert target.stats["flood_dropped"] > 0
    assert len([e for e in events if isinstance(e, Said)]) < 200


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), crash_at=st.sampled_from([0.1, 0.4, 0.8]))
def test_a_seat_that_chatted_crashes_and_resumes_without_contradicting_itself(seed, crash_at):
    """Its chat frames are journaled like any own frame: the restored seat never reuses a seq."""
    mesh = ChatMesh(3, seed, chats=[(0.0, 1, {"text": "one"}), (0.05, 1, {"phrase": "gg"})])
    while mesh.now < crash_at:
        mesh.step()
    mesh.crash(1)
    while mesh.now < crash_at + 1.0:
        mesh.step()
    mesh.restart(1)
    mesh.run()
    nodes = mesh.honest()
    assert len(nodes) == 3
    for node in nodes:
        assert node.replica.halted is None and not node.cheats, node.cheats
        assert node.replica.game.finished()
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    assert verify_transcript(nodes[0].lines, mesh.roster, mesh.new_game).ok
