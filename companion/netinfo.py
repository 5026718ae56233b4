"""The address phones should use to reach this machine on the local network.

Read from the network interfaces themselves: no packet is sent, no outside host is asked.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct

_SIOCGIFADDR = 0x8915


def interface_addresses() -> dict[str, str]:
    """IPv4 address per network interface that has one (Linux)."""
    found = {}
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                packed = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
        found[name] = socket.inet_ntoa(packed[20:24])
    return found


def lan_address() -> str:
    """The best IPv4 address for other devices: a private LAN address first, then any non-loopback."""
    addresses = [ipaddress.IPv4Address(a) for a in interface_addresses().values()]
    usable = [a for a in addresses if not a.is_loopback and not a.is_link_local]
    usable.sort(key=lambda a: (not a.is_private, str(a)))
    return str(usable[0]) if usable else "127.0.0.1"


def base_url(host: str, port: int, public_url: str = "") -> str:
    """What to print and encode in the QR code for a server bound to `host`:`port`."""
    if public_url:
        return public_url
    if host in ("0.0.0.0", "", "::"):
        host = lan_address()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}" if port != 80 else f"http://{host}"
