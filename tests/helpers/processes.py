"""The processes and sockets a run leaves behind, read from ``/proc`` (Linux)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from ``/proc/<pid>/stat``)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += parents.get(p, [])
    return sorted(out)


def cmdline(pid: int) -> str:
    """A process's command line ('' once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def decode_address(hex_address: str) -> str:
    """``/proc/net/tcp{,6}``'s ``0100007F:1F90`` form to an IP address text (port dropped)."""
    host = hex_address.split(":")[0]
    words = [bytes.fromhex(host[i : i + 8])[::-1] for i in range(0, len(host), 8)]
    return str(ipaddress.ip_address(b"".join(words)))


def is_loopback(address: str) -> bool:
    """127.0.0.0/8, ::1, or an IPv4-mapped loopback (``::ffff:127.0.0.1``)."""
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def sockets(pids: list[int]) -> list[dict]:
    """Every TCP and UDP socket the processes hold: protocol, state, local, remote, owner."""
    owner = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                owner[link[8:-1]] = pid
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/net/{proto}").read_text().splitlines()[1:]:
            f = line.split()
            if f[9] in owner:
                found.append({
                    "proto": proto, "listen": proto.startswith("tcp") and f[3] == "0A",
                    "local": decode_address(f[1]), "remote": decode_address(f[2]),
                    "pid": owner[f[9]],
                })  # fmt: skip
    return found
