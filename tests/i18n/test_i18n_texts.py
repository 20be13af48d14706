"""Texts the program shows but does not write itself get into the catalogues too.

The built-in plugins cannot import zsy_lan.text.i18n (the engine and plugins stay
pure), so their descriptions and option help are repeated with N_() where the
program shows them; these tests keep the two lists in step.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from zsy_lan.cli import choose_language, cli
from zsy_lan.cli.plugin_cmds import BUILTIN_PLUGIN_TEXTS, plugins_data
from zsy_lan.text.i18n import set_language


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    set_language("en")
    choose_language("en")


def test_every_builtin_plugin_text_is_marked_for_translation() -> None:
    shown = []
    for plugin in plugins_data():
        if plugin["source"].startswith("zsy-lan"):
            shown.append(plugin["description"])
            shown += [o["help"] for o in plugin["options"]]
    unmarked = [text for text in shown if text not in BUILTIN_PLUGIN_TEXTS]
    assert not unmarked, (
        f"add these to BUILTIN_PLUGIN_TEXTS in zsy_lan/cli/plugin_cmds.py: {unmarked}"
    )


def test_zsy_plugins_speaks_german() -> None:
    result = CliRunner().invoke(cli, ["--lang", "de", "plugins"])
    assert result.exit_code == 0, result.output
    assert "Grundherr" in result.output  # Dou Dizhu's description (DDZ-1..6)
    assert "(Spiel)" in result.output
    assert "--option" in result.output  # what the player types stays as typed
