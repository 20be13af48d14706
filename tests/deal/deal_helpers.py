"""Shared helpers of the private-deal tests (a plain module: no conftest name clash)."""

from __future__ import annotations

from zsy_lan.deal.mental import FACE_UP, STOCK


def ddz_layout(kitty: int = FACE_UP) -> list[int]:
    """3 seats x 17 cards, then a 3-card kitty (face up, or kept in the stock)."""
    return [i % 3 for i in range(51)] + [kitty] * 3


def round_robin(n: int, m: int) -> list[int]:
    return [i % n for i in range(m)]


SCENARIOS = {
    "ddz-3x54": (3, list(range(54)), ddz_layout()),
    "zsy-4x54": (4, list(range(54)), round_robin(4, 54)),
    "zsy-6x108": (6, list(range(108)), round_robin(6, 108)),
}


def stock_layout() -> list[int]:
    """Dou Dizhu with the kitty kept face down in the stock."""
    return ddz_layout(STOCK)
