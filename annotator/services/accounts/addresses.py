"""The client's address, counted against by the log-in throttle: the connection's own, or behind trusted proxies
the one ``X-Forwarded-For`` names."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from annotator.errors import UserError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted_proxies(value: object, where: str) -> tuple[Network, ...]:
    """The trusted proxies' addresses or networks (``10.0.0.5``, ``10.0.0.0/24``, ``::1``) from a comma- or
    space-separated string or a list; a ``UserError`` naming ``where`` and the entry when one is not an address."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        entries: Iterable[object] = value.replace(",", " ").split()
    elif isinstance(value, list | tuple):
        entries = value
    else:
        raise UserError(f'{where}: trusted_proxies must be a list of addresses, e.g. ["127.0.0.1", "10.0.0.0/24"].')
    networks = []
    for entry in entries:
        text = str(entry).strip()
        if text.lower() == "localhost":
            networks += [ipaddress.ip_network("127.0.0.1"), ipaddress.ip_network("::1")]
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise UserError(
                f"{where}: trusted proxy {text!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)."
            ) from None
    return tuple(networks)


def _is_trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str | None, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The address to count log-in failures against.

    ``peer`` is the connection's own address (None: localhost, as Streamlit reports it). ``X-Forwarded-For`` is
    believed only when the peer is a trusted proxy, and then read from the right: the last entry that is not
    itself a trusted proxy is the one our proxy saw (anything left of it the browser may have made up).
    """
    peer = peer or "127.0.0.1"
    if not forwarded_for or not _is_trusted(peer, trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            return hop[:100]
    return hops[0][:100] if hops else peer
