"""Shared test settings: hypothesis profiles sized for CI's 2 cores; English text."""

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest
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
# each xdist worker rewrites all ~290 test files and pytest's own plugins on every run
# (about 5 s of CPU each). The test files imported after this one are cached again, and
# the processes started from here on (the xdist workers, the `zsy` processes of the
# tests) cache theirs: bytecode is a cache, correct whoever writes it.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

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
    """Compile once, before the xdist workers start, what every one of them would compile.

    The game's own modules: the `zsy` processes the tests start then load bytecode
    instead of compiling ~200 modules each (0.2-0.5 s of CPU a process). pip compiled
    the dependencies when it installed them; the editable install of this checkout is
    compiled by nobody. compileall writes only what is missing or stale.

    The test modules, rewritten for pytest's assertions: on a fresh clone each of the
    three workers would rewrite all ~290 of them at once (9 s of CPU each instead of 3).
    This runs in the controller only; xdist starts the workers after it.
    """
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    import compileall

    import zsy_lan
    import zsy_lan.engine
    import zsy_lan.plugins

    for pkg in (zsy_lan, zsy_lan.engine, zsy_lan.plugins):
        compileall.compile_dir(Path(pkg.__file__).parent, quiet=1, workers=1)
    if session.config.getoption("numprocesses", None):
        _rewrite_test_modules(session.config)


def _rewrite_test_modules(config) -> None:
    """Write pytest's rewritten bytecode of every test module that lacks a fresh one.

    pytest's rewriting is internal (``_pytest.assertion.rewrite``): if a pytest release
    renames it, this does nothing and the workers rewrite the modules themselves.
    """
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        for source in sorted(Path(__file__).parent.rglob("*.py")):
            if not (source.name.startswith("test_") or source.name == "conftest.py"):
                continue
            pyc = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(source, pyc) is None:
                stat, code = rewrite._rewrite_test(source, config)
                pyc.parent.mkdir(exist_ok=True)
                rewrite._write_pyc(state, code, stat, pyc)
    except (AttributeError, ImportError, KeyError, TypeError, OSError, SyntaxError):
        return


@pytest.fixture(autouse=True)
def _english_again_after_each_test():
    """Each test starts in English, whatever the one before it chose.

    A test of another language (``set_language("zh")``, ``zsy --lang de`` through
    CliRunner) that fails, or forgets to switch back, would otherwise leave its
    language to the next test of the same xdist worker, which then fails on words
    it never chose: seen as "unrelated" failures in Chinese.
    """
    yield
    from zsy_lan.text.i18n import current_language, set_language

    if current_language() != "en":
        set_language("en")


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
