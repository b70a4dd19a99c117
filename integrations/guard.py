"""Outbound requests to an address someone other than the operator chose: they may reach public addresses only.

The check is made on the addresses a host name resolves to, when the connection is opened, and the socket then
connects to an address that was checked (no second lookup that could answer otherwise). Every connection of
the session goes through it, so a redirect to an internal address is refused like a first request to one.
Loopback, link-local, private, shared, reserved and multicast addresses are refused unless they lie in a
network the operator allows."""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Forbidden(Exception):
    """The host is, or resolves to, an address outbound requests may not reach; nothing was sent to it."""


def networks(text: str) -> tuple[Network, ...]:
    """Networks from a comma-separated list of addresses or CIDR blocks ("10.0.0.5, 192.168.1.0/24")."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _kind(ip: Address) -> str:
    for kind in ("loopback", "link_local", "private", "multicast", "reserved", "unspecified"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return "non-public"


@dataclass(frozen=True)
class AddressGuard:
    allowed: tuple[Network, ...] = ()

    def refusal(self, ip: Address) -> str:
        """Why `ip` may not be reached ("" when it may)."""
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if any(ip in net for net in self.allowed):
            return ""
        if ip.is_global and not ip.is_multicast:
            return ""
        return f"{ip} is a {_kind(ip)} address"

    def addresses(self, host: str, port: int) -> list[tuple[int, str]]:
        """Every (family, address) `host` resolves to, each checked; Forbidden if any may not be reached."""
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise Forbidden(f"{host} does not resolve ({exc.strerror})") from exc
        out: list[tuple[int, str]] = []
        for family, _, _, _, sockaddr in found:
            ip = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
            why = self.refusal(ip)
            if why:
                raise Forbidden(f"{host} resolves to {ip}: {why}, which requests from here may not reach")
            if (family, sockaddr[0]) not in out:
                out.append((family, sockaddr[0]))
        return out


def _new_conn(self) -> socket.socket:
    checked = self.guard.addresses(self._dns_host, self.port)
    # Connect to the address just checked: urllib3 would otherwise look the name up again.
    self._dns_host = checked[0][1]
    return super(type(self), self)._new_conn()


def _guarded_pool(pool: type, connection: type, guard: AddressGuard) -> type:
    checked = type(f"Guarded{connection.__name__}", (connection,), {"guard": guard, "_new_conn": _new_conn})
    return type(f"Guarded{pool.__name__}", (pool,), {"ConnectionCls": checked})


class GuardedAdapter(HTTPAdapter):
    """A transport whose every connection, redirects included, goes through `guard`."""

    def __init__(self, guard: AddressGuard, **kwargs):
        self.guard = guard
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _guarded_pool(HTTPConnectionPool, HTTPConnection, self.guard),
            "https": _guarded_pool(HTTPSConnectionPool, HTTPSConnection, self.guard),
        }
