"""``zsy host``/``join`` import and lock a profile where there is no ``fcntl`` (Windows).

Run in a fresh interpreter with ``fcntl`` made unimportable and a stand-in
``msvcrt`` (its ``locking`` implemented with the real POSIX lock taken before
hiding it), so the Windows path of the profile lock runs here: the first
process holds the profile, a second one is refused with ``ProfileBusy``
naming the holder's pid, and after release it can be taken again.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import fcntl as _real, os, sys, types
    # the standard library tells Windows by "import msvcrt" (subprocess, asyncio):
    # load those first, so only zsy_lan.record.store meets the stand-in
    import asyncio, getpass, subprocess
    sys.modules["fcntl"] = None  # "import fcntl" now raises ImportError, as on Windows
    ms = types.ModuleType("msvcrt")
    ms.LK_NBLCK, ms.LK_UNLCK = 2, 0

    def locking(fd, mode, nbytes):
        # msvcrt locks nbytes from the current position; emulate with lockf there
        if mode == ms.LK_NBLCK:
            _real.lockf(fd, _real.LOCK_EX | _real.LOCK_NB, nbytes, 0, os.SEEK_CUR)
        else:
            _real.lockf(fd, _real.LOCK_UN, nbytes, 0, os.SEEK_CUR)

    ms.locking = locking
    sys.modules["msvcrt"] = ms
    from pathlib import Path
    import zsy_lan.cli.net_cmds  # zsy host / zsy join
    from zsy_lan.record.store import Profile, ProfileBusy
    root = Path(sys.argv[1])
    if sys.argv[2] == "hold":
        held = Profile(root, "p")  # (kept: a collected profile closes its lock file)
        held.acquire()
        print("held", flush=True)
        sys.stdin.read()  # until the test closes our stdin
    else:
        try:
            Profile(root, "p").acquire()
        except ProfileBusy as exc:
            print("busy:", exc)
        else:
            print("free")
    """
)


def _run(root: Path, mode: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), mode],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_profile_lock_without_fcntl(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path), "hold"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held", holder.stderr.read()
        out = _run(tmp_path, "try")
        assert out.startswith("busy:") and f"pid {holder.pid}" in out, out
    finally:
        holder.communicate(input="", timeout=30)
    assert _run(tmp_path, "try") == "free"
