"""Use zsy-lan's fixtures for plugin authors (the ``zsy_table`` factory)."""

pytest_plugins = ["zsy_lan.testing"]
