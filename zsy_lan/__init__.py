"""zsy-lan: Zheng Shangyou and Dou Dizhu peer to peer on a LAN; ``hookimpl`` marks rule plugins."""

from zsy_lan.engine.hookspecs import hookimpl as hookimpl
