"""Shared test settings: hypothesis profiles sized for CI's 2 cores; English text."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60
)
settings.load_profile("default")

# Tests read the game's English text: a developer's locale (LANG=de_DE...) or ZSY_LANG must not
# translate the CLI or the `zsy` processes they start (tests/i18n choose languages explicitly).
os.environ["ZSY_LANG"] = "en"
