"""Shared test settings: hypothesis profiles sized for CI's 2 cores; English text."""

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60
)
settings.load_profile("default")

# Tests read the game's English text: a developer's locale (LANG=de_DE...) or ZSY_LANG must not
# translate the CLI or the `zsy` processes they start (tests/i18n choose languages explicitly).
os.environ["ZSY_LANG"] = "en"

# pytest keeps the test modules it rewrote (assertions that explain themselves) as bytecode
# beside them, unless PYTHONDONTWRITEBYTECODE is set, as on some machines and in CI: then
# each xdist worker rewrites all ~290 test files on every run (about 5 s of CPU each). The
# test files imported after this one are cached again.
sys.dont_write_bytecode = False

# A test that forgets --data-dir must neither touch the developer's own profiles nor meet
# the other xdist worker's: each test process gets a data home of its own, removed at the end.
_DATA_HOME = tempfile.mkdtemp(prefix="zsy-tests-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
os.environ.pop("ZSY_DATA_DIR", None)

# A suite started in the background of a non-interactive shell (`cmd &`, as some CI runners
# and scripts do) inherits SIGINT ignored, and so would every `zsy` process the tests start:
# the tests of Ctrl-C would wait for a signal nobody hears. Hear it again; a Python handler
# is reset to the default on exec, so the children get Python's own KeyboardInterrupt.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The developer tools (tools/i18n_tools.py) are not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))


def pytest_sessionstart(session) -> None:
    """Compile the game's own modules once, so the `zsy` processes the tests start load
    bytecode instead of compiling ~200 modules each (0.2-0.5 s of CPU a process).

    pip compiled the dependencies when it installed them; the editable install of this
    checkout is compiled by nobody, and PYTHONDONTWRITEBYTECODE (set on some machines,
    CI's among them) stops each process from caching its own work. compileall writes the
    cache files regardless, and only where they are missing or stale.
    """
    import compileall
    from pathlib import Path

    import zsy_lan
    import zsy_lan.engine
    import zsy_lan.plugins

    for pkg in (zsy_lan, zsy_lan.engine, zsy_lan.plugins):
        compileall.compile_dir(Path(pkg.__file__).parent, quiet=1, workers=1)


def pytest_collection_modifyitems(config, items) -> None:
    """Start the slow files first, so that the xdist workers end on short tests.

    A 20-second test handed out last keeps one worker busy while the other idles; run
    first, it overlaps everything else. Whole files move together (a module-scoped
    fixture is set up once) and the order stays stable, so every worker collects the
    same list, as xdist requires.
    """
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_DATA_HOME, ignore_errors=True)
