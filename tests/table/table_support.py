"""Real ``zsy`` processes on loopback for the table tests, always cleaned up.

A :class:`Cluster` starts ``zsy host`` / ``zsy join`` processes, each in its
own session (process group), with its own profile and data directory under
the test's temporary folder, bound to ``lo`` (``--interface lo
--no-mdns``): nothing is ever sent on another interface. Output goes to one
file per process (unbuffered), which the helpers poll with deadlines.
:meth:`Cluster.close` SIGKILLs the group of every process still running, so
a failing test leaves nothing behind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from process_support import kill_group

from zsy_lan.record.replay import ReplayReport, replay_file
from zsy_lan.table.peer import game_from_header

ZSY = str(Path(sys.executable).with_name("zsy"))
URL_RE = re.compile(r"zsy join '?(tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43})")
LOOPBACK = ["--interface", "lo", "--plain", "--color", "never"]


@dataclass
class ZsyProc:
    """One zsy process: its name, command line, Popen and output file."""

    name: str
    argv: list[str]
    popen: subprocess.Popen
    out: Path

    def text(self) -> str:
        try:
            return self.out.read_text(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.popen.poll() is None

    def wait(self, timeout: float) -> int:
        return self.popen.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the whole process group (the process and anything it started)."""
        kill_group(self.popen, wait=5)

    def tail(self, n: int = 2500) -> str:
        return f"--- {self.name} ({' '.join(self.argv[1:])}) ---\n{self.text()[-n:]}"


@dataclass
class Cluster:
    """The processes of one test; ``root`` is the test's temporary folder."""

    root: Path
    procs: list[ZsyProc] = field(default_factory=list)
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. ZSY_HOLD_AFTER
    #: what runs ``zsy ARGS``: the command, or a wrapper (tests/relay/broker_only.py)
    launcher: list[str] = field(default_factory=lambda: [ZSY])

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        env.pop("ZSY_DATA_DIR", None)
        env["PYTHONUNBUFFERED"] = "1"
        tmp = self.root / "tmp"
        tmp.mkdir(exist_ok=True)
        env["TMPDIR"] = str(tmp)  # anything a process puts in a temp dir is ours to remove
        return env

    def start(self, name: str, args: list[str]) -> ZsyProc:
        argv = [*self.launcher, *args]
        out = self.root / f"{name}-{len(self.procs)}.out"
        with out.open("wb") as f:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                env=self.env(),
                cwd=self.root,
                start_new_session=True,
            )
        proc = ZsyProc(name, argv, popen, out)
        self.procs.append(proc)
        return proc

    def data_dir(self, profile: str) -> Path:
        return self.root / "data" / profile

    def host(
        self,
        players: int,
        rounds: int,
        *,
        bots: int = 0,
        rules: tuple[str, ...] = (),
        level: str = "easy",
        timeout: float = 20,
    ) -> tuple[ZsyProc, str]:
        """``zsy host --bot LEVEL`` (a bot plays the host's seat); returns it and its join URL.

        ``rules`` are extra rule arguments (``--variant NAME``, ``--option K=V``).
        """
        args = ["host", "--players", str(players), "--rounds", str(rounds), *rules]
        args += ["--bots", str(bots), "--bot-level", level, "--bot", level, "--no-mdns"]
        args += ["--nick", "host", "--name", "t", *self.profile_args("host"), *LOOPBACK]
        proc = self.start("host", args)
        return proc, self.wait_url(proc, timeout)

    def profile_args(self, profile: str) -> list[str]:
        return ["--profile", profile, "--data-dir", str(self.data_dir(profile))]

    def join(self, profile: str, url: str | None = None, level: str = "easy") -> ZsyProc:
        """``zsy join URL --bot LEVEL`` with its own profile; without URL it resumes."""
        args = ["join"] + ([url] if url else []) + ["--bot", level, "--nick", profile]
        return self.start(profile, args + self.profile_args(profile) + LOOPBACK)

    def wait_url(self, proc: ZsyProc, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = URL_RE.search(proc.text())
            if m:
                return m.group(1)
            if not proc.alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no join URL from the host\n{proc.tail()}")

    def wait_all(self, procs: list[ZsyProc], timeout: float) -> dict[str, int | None]:
        """Exit status of each process (None: still running at the deadline).

        Returns early when one exits with an error: the match cannot finish then.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            codes = [p.popen.poll() for p in procs]
            if all(c is not None for c in codes) or any(c not in (None, 0) for c in codes):
                break
            time.sleep(0.05)
        return {f"{p.name}#{self.procs.index(p)}": p.popen.poll() for p in procs}

    def tails(self) -> str:
        return "\n".join(p.tail() for p in self.procs)

    def transcripts(self) -> list[Path]:
        """Every transcript any process of this test wrote (humans', joiners' and bots')."""
        return sorted((self.root / "data").rglob("transcript.jsonl"))

    def close(self) -> None:
        for p in self.procs:
            p.kill()


def check_records(paths: list[Path], seats: int) -> list[ReplayReport]:
    """Every record verifies, every one is a finished match, all heads equal; one per seat.

    A report is a function of the file's bytes (``replay_file`` checks
    ``path.read_bytes()`` and nothing else), and most seats' records are byte for byte
    the same: each distinct content is verified once (a 6-seat record takes ~0.35 s of
    CPU), and every path still gets its report and every check below.
    """
    assert len(paths) == seats, f"expected {seats} transcripts, found {paths}"
    by_content: dict[bytes, ReplayReport] = {}
    reports = []
    for p in paths:
        data = p.read_bytes()
        if data not in by_content:
            by_content[data] = replay_file(p)
        reports.append(by_content[data])
    for path, rep in zip(paths, reports, strict=True):
        assert rep.ok, f"{path}: {rep.verdict()}"
        assert rep.finished, f"{path}: the match did not finish"
        _, rounds, _ = game_from_header(path.read_text().splitlines()[0])
        # a tie adds deciding rounds (ZSY-8.5), so at least the agreed number
        assert len(rep.results) >= rounds, f"{path}: {len(rep.results)} of {rounds} rounds"
    heads = {rep.head for rep in reports}
    assert len(heads) == 1, f"transcripts differ: {heads}"
    # The command line verdict too (the same code, through `zsy replay --verify`), in
    # this process: the command is what is checked here, not a process start (~0.5 s).
    from click.testing import CliRunner

    from zsy_lan.cli import cli

    res = CliRunner().invoke(cli, ["replay", "--verify", str(paths[0])])
    assert res.exit_code == 0 and "OK:" in res.stdout, res.output + repr(res.exception)
    return reports
