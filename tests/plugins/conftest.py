"""Plugin tests: the plugin-author fixture module, and a fresh table per test."""

from zsy_lan.testing import zsy_table  # noqa: F401  (the fixture plugin authors use)
