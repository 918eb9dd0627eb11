"""Where a cluster is, checked before connecting: scheduler and dashboard addresses, how long to
wait for them, and the error when one cannot be used. Light on purpose: ``cluster`` (which connects)
and ``clients`` (which imports distributed) both build on it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from alc_dask.errors import ClusterError, OptionError

CONNECT_TIMEOUT = "10s"
WORKERS_TIMEOUT = 120
PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
ADDRESS = re.compile(r"(?:(?P<protocol>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})")
EXPECTED_ADDRESS = f"expected PROTOCOL://HOST:PORT with PROTOCOL one of {', '.join(PROTOCOLS)} (e.g. tcp://10.0.0.5:8786), or the path of a scheduler file"
DEFAULT_DASHBOARD = "127.0.0.1:8787"
"""Where a local cluster's dashboard binds without an address: this machine only, Dask's usual port
(if it is taken, distributed warns and binds a free one; the link printed is the real one)."""
DASHBOARD_ADDRESS = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)?:(?P<port>\d{1,5})")


class EngineError(ClusterError, RuntimeError):
    """The cluster cannot be reached or used."""


def scheduler_address(scheduler: str) -> str:
    """The address of ``scheduler``, an address or a scheduler file; ``OptionError`` when it is neither.

    Checked before connecting: distributed turns a malformed address into a traceback after a
    long wait.
    """
    path = Path(scheduler)
    if path.is_file():
        return _address_in_file(path)
    if not _is_address(scheduler):
        raise OptionError(f"scheduler {scheduler!r}: not a scheduler address nor an existing scheduler file; {EXPECTED_ADDRESS}")
    return scheduler


def check_dashboard(dashboard: bool | str, scheduler: str | None = None) -> None:
    """``OptionError`` unless ``dashboard`` is a bool, or an address (HOST:PORT, or :PORT for every interface) for a local cluster."""
    if not isinstance(dashboard, str):
        return
    if not is_dashboard_address(dashboard):
        raise OptionError(f"dashboard address {dashboard!r}: expected HOST:PORT or :PORT (e.g. 127.0.0.1:8790)")
    if scheduler is not None:
        raise OptionError(
            f"dashboard address {dashboard!r}: an address binds a local cluster's dashboard; a running cluster's is where its scheduler serves it "
            "(--dashboard without an address prints its link)"
        )


def is_dashboard_address(text: str) -> bool:
    match = DASHBOARD_ADDRESS.fullmatch(text)
    return bool(match) and int(match["port"]) < 65536


def _is_address(text: str) -> bool:
    match = ADDRESS.fullmatch(text)
    return bool(match) and (match["protocol"] or "tcp") in PROTOCOLS and 0 < int(match["port"]) < 65536


def _address_in_file(path: Path) -> str:
    try:
        address = json.loads(path.read_text()).get("address")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as error:
        raise OptionError(f"scheduler file {path}: cannot be read as a Dask scheduler file (JSON with an 'address'): {error}") from None
    if not isinstance(address, str) or not _is_address(address):
        raise OptionError(f"scheduler file {path}: 'address' is {address!r}; {EXPECTED_ADDRESS}")
    return address
