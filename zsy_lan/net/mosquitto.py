"""Mosquitto for ``zsy relay`` when it is installed: the configuration we write, the process we run.

Why a configuration of our own rather than the system's: ``zsy relay`` is the convenience
for a group without a broker, so it starts one that listens where it was asked, keeps
nothing on disk (``persistence false``), publishes no ``$SYS`` statistics and bounds what it
can. Everything lives in a private temporary folder removed when the broker stops.

What Mosquitto bounds: connections in all (``max_connections``), the size of one packet
(``max_packet_size``), messages and bytes queued for one client. What it cannot: connections
from one address, or the rate of one client (``zsy relay --broker amqtt`` has both).
"""

from __future__ import annotations

import getpass
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from zsy_lan.net.broker_server import BrokerError, BrokerLimits
from zsy_lan.text.i18n import _


def mosquitto_path() -> str | None:
    """The ``mosquitto`` program on PATH, if any."""
    return shutil.which("mosquitto")


@dataclass(frozen=True)
class MosquittoSetup:
    """Where and how ``zsy relay`` runs Mosquitto."""

    address: str
    port: int
    limits: BrokerLimits
    certfile: Path | None = None
    keyfile: Path | None = None
    users: dict[str, str] | None = None

    def config(self, folder: Path) -> str:
        """The text of ``mosquitto.conf`` (its password file, if any, is ``folder/passwd``)."""
        lines = [
            "# Written by `zsy relay`; removed when it stops.",
            # run as whoever runs zsy relay: started as root, Mosquitto would switch to
            # the user "mosquitto", who cannot read this private folder
            f"user {getpass.getuser()}",
            "per_listener_settings false",
            "persistence false",
            # Nagle off, as the zsy client does: with it a small frame waits for the
            # previous one's delayed ACK (bench_relay.py: p50 31 ms against 6 ms)
            "set_tcp_nodelay true",
            "sys_interval 0",
            "connection_messages false",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            f"max_packet_size {self.limits.max_packet}",
            "max_queued_messages 1000",
            f"max_queued_bytes {self.limits.byte_burst:.0f}",
            f"persistent_client_expiration {max(1, self.limits.session_expiry // 60)}m",
        ]
        if self.users:
            lines += ["allow_anonymous false", f"password_file {folder / 'passwd'}"]
        else:
            lines.append("allow_anonymous true")
        lines += [
            f"listener {self.port} {self.address}",
            f"max_connections {self.limits.max_connections}",
        ]
        if self.certfile and self.keyfile:
            lines += [f"certfile {self.certfile.resolve()}", f"keyfile {self.keyfile.resolve()}"]
        return "\n".join(lines) + "\n"

    def write(self, folder: Path) -> Path:
        """Write the configuration (and the hashed password file) into ``folder``; its path."""
        if self.users:
            passwd = folder / "passwd"
            passwd.touch(mode=0o600)
            passwd.write_text("".join(f"{u}:{p}\n" for u, p in self.users.items()), "utf-8")
            tool = shutil.which("mosquitto_passwd")
            if tool is None:
                raise BrokerError(_("mosquitto_passwd is not installed: it hashes the passwords"))
            done = subprocess.run([tool, "-U", str(passwd)], capture_output=True, text=True)
            if done.returncode:
                raise BrokerError(
                    _("mosquitto_passwd failed: {why}").format(why=done.stderr.strip())
                )
        conf = folder / "mosquitto.conf"
        conf.write_text(self.config(folder), "utf-8")
        return conf
