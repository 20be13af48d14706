"""Guards on the seams between layers (issue #18): each test fails if a shortcut comes back."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import zsy_lan
import zsy_lan.engine.canonical as engine_canonical
import zsy_lan.protocol as protocol
from zsy_lan.deal.deal_errors import MalformedMessage
from zsy_lan.deal.messages import Commit, decode, encode

SRC = Path(zsy_lan.__file__).resolve().parent

# (``zsy_lan.protocol.canonical`` the attribute is the encode function, not the module)
protocol_canonical = importlib.import_module("zsy_lan.protocol.canonical")

# --- one name per thing ---------------------------------------------------------------------


def test_one_digest_one_decode() -> None:
    """The protocol re-exports the engine's functions under the same names, no second name."""
    assert protocol_canonical.digest is engine_canonical.digest
    assert protocol_canonical.decode is engine_canonical.decode
    assert protocol.digest is engine_canonical.digest
    for mod in (engine_canonical, protocol_canonical, protocol):
        assert not hasattr(mod, "hash_obj")
        assert not hasattr(mod, "decode_strict")


@pytest.mark.parametrize("data", [b'{"a": 1}', b'{"b":1,"a":2}', b'{"a":"\\u00e9"}'])
def test_engine_decode_is_strict(data: bytes) -> None:
    """The engine's decode used to accept any spacing and order; now it is the strict one."""
    with pytest.raises(ValueError, match="not canonical"):
        engine_canonical.decode(data)


def _commit() -> Commit:
    return Commit(
        sender=1, shuffle_digest=b"\x01" * 32, key_hashes=(b"\x02" * 32,), box_pk=b"\x03" * 32
    )


def test_deal_decode_is_strict_too() -> None:
    msg = _commit()
    data = encode(msg)
    assert decode(data, sender=1) == msg
    loose = json.dumps(json.loads(data), indent=1).encode()  # same value, other bytes
    assert loose != data
    with pytest.raises(MalformedMessage, match="canonical"):
        decode(loose, sender=1)


# --- the audit in five steps ----------------------------------------------------------------


def _function_lengths(path: Path) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }


def test_audit_is_five_step_functions() -> None:
    """``audit_deal`` was one 289-line function; now it calls one function per step."""
    lengths = _function_lengths(SRC / "deal" / "audit.py")
    for step in ("_collect", "_check_reveals", "_check_deck", "_replay", "_check_stop"):
        assert step in lengths, f"audit step {step} is missing"
    assert lengths["audit_deal"] <= 40
    assert max(lengths.values()) <= 80, lengths


# --- import guards: the protocol and the deal are sans-IO -----------------------------------

SANS_IO_PACKAGES = ("protocol", "deal")
#: modules that mean a socket, an event loop, a lock file or file I/O
FORBIDDEN_MODULES = frozenset(
    {
        "zmq",
        "asyncio",
        "socket",
        "selectors",
        "ssl",
        "pathlib",
        "shutil",
        "tempfile",
        "fcntl",
        "msvcrt",
        "filelock",
        "io",
        "subprocess",
        "zeroconf",
    }
)
#: our own modules that do I/O
IO_MODULES = ("zsy_lan.record.store", "zsy_lan.net.transport")
#: ``os`` is imported for ``os.urandom`` (the default entropy) and process facts only
ALLOWED_OS = frozenset({"urandom", "cpu_count", "getpid", "path", "PathLike"})
FILE_METHODS = frozenset(
    {"read_bytes", "write_bytes", "read_text", "write_text", "open", "mkdir", "unlink"}
)


def _sans_io_files() -> list[Path]:
    return sorted(p for pkg in SANS_IO_PACKAGES for p in (SRC / pkg).glob("*.py"))


def _io_findings(path: Path) -> list[str]:
    """Every import of an I/O module and every file-touching call in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(SRC.parent) if path.is_relative_to(SRC.parent) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            names = []
        for name in names:
            top = name.split(".")[0]
            if top in FORBIDDEN_MODULES or name in IO_MODULES:
                found.append(f"{where}:{node.lineno} imports {name}")
        # relative imports may not leave zsy_lan.protocol / zsy_lan.deal for an I/O module
        if (
            isinstance(node, ast.ImportFrom)
            and node.level >= 2
            and (node.module or "").split(".")[0] in ("store", "transport", "peer")
        ):
            found.append(f"{where}:{node.lineno} imports ..{node.module}")
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id == "open":
                found.append(f"{where}:{node.lineno} calls open()")
            if isinstance(fn, ast.Attribute):
                base = fn.value
                if isinstance(base, ast.Name) and base.id == "os" and fn.attr not in ALLOWED_OS:
                    found.append(f"{where}:{node.lineno} calls os.{fn.attr}")
                elif fn.attr in FILE_METHODS and not (
                    isinstance(base, ast.Name) and base.id in ("self", "cls")
                ):
                    found.append(f"{where}:{node.lineno} calls .{fn.attr}()")
    return found


def test_protocol_and_deal_sources_do_no_io() -> None:
    """AST walk: no zmq/asyncio/socket/file-I/O import, no open(), no os file calls."""
    files = _sans_io_files()
    assert len(files) >= 15  # both packages were found
    findings = [f for p in files for f in _io_findings(p)]
    assert not findings, "\n".join(findings)


def test_the_guard_sees_the_old_key_file_code(tmp_path: Path) -> None:
    """The AST guard would have caught identity.py reading and writing its key file."""
    old = tmp_path / "probe.py"
    source = (
        "import os\nfrom pathlib import Path\n"
        "def save(p, pem):\n    fd = os.open(p, os.O_WRONLY)\n    os.write(fd, pem)\n"
        "def load(p):\n    return Path(p).read_bytes()\n"
    )
    old.write_text(source, encoding="utf-8")
    found = _io_findings(old)
    assert any("imports pathlib" in f for f in found)
    assert any("os.open" in f for f in found) and any("os.write" in f for f in found)
    assert any(".read_bytes()" in f for f in found)


def test_importing_protocol_and_deal_loads_no_io_module() -> None:
    """In a fresh interpreter, every module of both packages imports without zmq or sockets."""
    mods = [
        f"zsy_lan.{pkg}.{p.stem}" if p.stem != "__init__" else f"zsy_lan.{pkg}"
        for pkg in SANS_IO_PACKAGES
        for p in sorted((SRC / pkg).glob("*.py"))
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n    importlib.import_module(m)\n"
        "bad = sorted(m for m in ('zmq', 'asyncio', 'socket', 'selectors', 'fcntl', "
        "'zsy_lan.record.store', 'zsy_lan.net.transport', 'zsy_lan.table.peer')\n"
        "    if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == ""


# --- the table asks the rules, not a plugin's option by name --------------------------------


def test_kitty_shown_is_a_rule_not_an_option_read_by_name() -> None:
    """DDZ-2.4: whether the kitty is shown comes from ``Rules.kitty_shown`` (DealLayout)."""
    from zsy_lan.engine.ruleset import build_rules

    assert build_rules(3, ["doudizhu"], {"show_kitty": True}).kitty_shown
    assert not build_rules(3, ["doudizhu"]).kitty_shown
    assert not build_rules(4).kitty_shown
    source = (SRC / "deal" / "private_game.py").read_text(encoding="utf-8")
    assert '"show_kitty"' not in source and '"doudizhu"' not in source
