"""Bots written by anyone, in any language: a child process speaking JSON lines.

Why an adapter with this much care: an external program is untrusted and
may be slow, crash, print garbage or pick an illegal move. The table must
never hang or desync because of it, so every answer is awaited with a
per-move timeout, parsed, and checked against the legal actions; every
failure raises :class:`ExternalBotError` naming the program and what it did
(with the tail of its stderr), and :class:`FallbackBot` turns that into a
builtin bot's move so the seat keeps playing. The child is killed on close
(and after a timeout, then restarted for the next move, so a late answer can
never be taken for the next one; answers also echo the observation ``id``).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from zsy_lan.bots.base import Bot, Observation
from zsy_lan.bots.wire import WireError, action_text, decode_action, encode_observation
from zsy_lan.engine.state import Action


class ExternalBotError(RuntimeError):
    """An external bot misbehaved; ``program`` names it, ``problem`` says how."""

    def __init__(self, program: str, problem: str) -> None:
        super().__init__(f"external bot '{program}' {problem}")
        self.program = program
        self.problem = problem


class ExternalBot(Bot):
    """Plays by asking a program (``zsy bot --stdio`` or anything that speaks the protocol).

    ``command``: a string (split like a POSIX shell, no shell is run) or an
    argument list. ``timeout``: seconds per move; ``start_timeout``: extra
    seconds allowed for the first answer after a (re)start (interpreters need
    time to start). After a timeout or exit the program is restarted for the
    next move, at most ``max_restarts`` times.
    """

    level = "external"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 5.0,
        start_timeout: float = 10.0,
        max_restarts: int = 2,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        seed: bytes | int | str = 0,
    ) -> None:
        super().__init__(seed)
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("an external bot needs a command")
        self.program = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.max_restarts = max_restarts
        self.cwd = cwd
        self.env = env
        self.restarts = -1
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._request = 0
        self._fresh = False

    @property
    def name(self) -> str:
        """``bot:<program>``: everyone sees which program plays the seat."""
        return f"bot:{os.path.basename(self.argv[0])}"

    # --- process management -------------------------------------------------------

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._kill()
        self.restarts += 1
        if self.restarts > self.max_restarts:
            raise ExternalBotError(self.program, f"failed too often ({self.max_restarts} restarts)")
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                cwd=self.cwd,
                env=self.env,
            )
        except OSError as exc:
            raise ExternalBotError(self.program, f"could not be started: {exc}") from exc
        self._proc = proc
        self._lines = queue.Queue()
        assert proc.stdout is not None and proc.stderr is not None
        _pump(proc.stdout, self._lines.put, end=lambda: self._lines.put(None))
        _pump(proc.stderr, lambda line: self._stderr.append(line.rstrip("\n")))
        self._fresh = True
        return proc

    def _kill(self) -> None:
        proc = self._proc
        self._proc = None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # a kill that did not land
            proc.wait(timeout=2.0)

    def close(self) -> None:
        """Kill the program (if running) and reap it."""
        self._kill()

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort: never leave a child behind
        with contextlib.suppress(Exception):  # interpreter shutdown
            self._kill()

    def _stderr_tail(self) -> str:
        tail = " | ".join(list(self._stderr)[-3:])
        return f"; stderr: {tail}" if tail else ""

    def _fail(self, problem: str, kill: bool = False) -> ExternalBotError:
        if kill:
            time.sleep(0.05)  # let a crashing program's last stderr lines arrive
            self._kill()
        return ExternalBotError(self.program, problem + self._stderr_tail())

    # --- the protocol -------------------------------------------------------------

    def choose(self, obs: Observation) -> Action:
        """Send the observation, wait for one legal action (or raise ExternalBotError)."""
        proc = self._start()
        self._request += 1
        rid = self._request
        line = json.dumps(encode_observation(obs, rid), separators=(",", ":"))
        try:
            assert proc.stdin is not None
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = proc.poll()
            raise self._fail(f"is not reading its input (exit code {code})", kill=True) from None
        wait = self.timeout + (self.start_timeout if self._fresh else 0.0)
        self._fresh = False
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            try:
                answer = self._lines.get(timeout=max(0.0, left))
            except queue.Empty:
                raise self._fail(f"did not answer within {wait:g}s", kill=True) from None
            if answer is None:
                code = proc.wait(timeout=2.0)
                raise self._fail(f"exited (code {code}) instead of answering", kill=True)
            text = answer.strip()
            if not text:
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                raise self._fail(f"answered garbage (not JSON): {_clip(text)}") from None
            try:
                action, answer_id = decode_action(data)
            except WireError as exc:
                if isinstance(data, dict) and data.get("id") not in (None, rid):
                    continue  # a late error about an earlier request
                raise self._fail(f"answered garbage: {exc}: {_clip(text)}") from None
            if answer_id is not None and answer_id != rid:
                continue  # a stale answer to an earlier observation
            if action not in obs.legal:
                legal = ", ".join(action_text(a) for a in obs.legal[:8])
                more = "" if len(obs.legal) <= 8 else f" (+{len(obs.legal) - 8} more)"
                raise self._fail(
                    f"answered an illegal action {action_text(action)} for seat {obs.seat}; "
                    f"legal: {legal}{more}"
                )
            return action


def _clip(text: str, n: int = 120) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


def _pump(stream: IO[str], put: Callable[[str], Any], end: Callable[[], Any] | None = None) -> None:
    """Copy lines from a pipe on a daemon thread (works on every OS, unlike select on pipes)."""

    def run() -> None:
        try:
            for line in stream:
                put(line)
        except (OSError, ValueError):
            pass
        finally:
            if end is not None:
                end()

    threading.Thread(target=run, daemon=True, name="zsy-external-bot-pipe").start()


class FallbackBot(Bot):
    """An external bot that never stalls the table: on any failure a builtin bot moves.

    Every failure is kept in ``errors`` (and passed to ``on_error``, e.g. to
    tell the table); after ``give_up_after`` failures the program is closed
    and the builtin bot keeps the seat.
    """

    def __init__(
        self,
        primary: Bot,
        fallback: Bot,
        *,
        give_up_after: int = 3,
        on_error: Callable[[ExternalBotError], None] | None = None,
    ) -> None:
        super().__init__(primary.seed)
        self.primary = primary
        self.fallback = fallback
        self.give_up_after = give_up_after
        self.on_error = on_error
        self.errors: list[ExternalBotError] = []
        self.level = primary.level

    @property
    def name(self) -> str:
        """The primary's label (the fallback is an implementation detail)."""
        return self.primary.name

    @property
    def gave_up(self) -> bool:
        """True once the builtin bot holds the seat for good."""
        return len(self.errors) >= self.give_up_after

    def choose(self, obs: Observation) -> Action:
        """The primary's action, or the fallback's when the primary fails."""
        if not self.gave_up:
            try:
                return self.primary.choose(obs)
            except ExternalBotError as exc:
                self.errors.append(exc)
                if self.on_error is not None:
                    self.on_error(exc)
                if self.gave_up:
                    self.primary.close()
        return self.fallback.choose(obs)

    def close(self) -> None:
        """Close both bots."""
        self.primary.close()
        self.fallback.close()
