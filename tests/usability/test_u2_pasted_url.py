"""``zsy join`` takes the host's tcp:// line as it is copied, bracket and all.

The host prints ``Others join with:  zsy join NAME    (or: zsy join tcp://...)``; copying
that line took the ")" along and ``zsy join`` answered "'b5b7eb47a50f)' is not a table id"
(session 7, helper U2, at a relay table).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.cli.options import pasted_url

URL = "tcp://127.0.0.1:4000#" + "A" * 43 + ",relay=mqtt://127.0.0.1:1883"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        (URL + ",table=b5b7eb47a50f)", URL + ",table=b5b7eb47a50f"),
        (URL + ".", URL),
        (URL + "'", URL),  # the closing quote of a copied command
        (" " + URL + ")  ", URL),
        (URL, URL),
        ("friday (2)", "friday (2)"),  # a table NAME is kept as typed
        (None, None),
    ],
)
def test_pasted_url_drops_what_was_copied_after_it(typed, meant) -> None:
    assert pasted_url(typed) == meant


def test_join_reads_the_key_without_the_bracket(tmp_path) -> None:
    result = CliRunner().invoke(
        cli,
        ["--lang", "en", "join", "tcp://127.0.0.1:1#abc)", "--interface", "lo",
         "--data-dir", str(tmp_path)],
    )
    assert result.exit_code == 1
    assert "'abc' is not a valid table key" in result.output
