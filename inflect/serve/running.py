"""Starting and stopping the service's HTTP server (uvicorn): the address checked before any
model loads, and the way it ended told to the command line, so that ``inflect serve`` exits
with the README's statuses (a port in use or a bad ``--host``: one line and status 1; Ctrl-C:
130) instead of uvicorn's own (3 for a failed start, 0 after Ctrl-C).

:func:`check_address` binds the address as uvicorn will (``SO_REUSEADDR``; IPv6 where the
host has a ``:``) and lets it go; :func:`run_server` runs uvicorn's server (one process, or
``workers`` processes sharing one socket) and raises :class:`KeyboardInterrupt` after a Ctrl-C
has stopped it, once the requests in flight are answered.
"""

from __future__ import annotations

import errno
import signal
import socket
from typing import Any

__all__ = ["ServerError", "check_address", "run_server"]


class ServerError(OSError):
    """The server cannot listen on its address, or did not start; the message is one line that
    names the address (and what to do)."""


def _family(host: str) -> socket.AddressFamily:
    """uvicorn's choice: IPv6 for a host with a ``:``, else IPv4."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def shown_address(host: str, port: int) -> str:
    """``host:port``, an IPv6 host in brackets (``[::1]:8000``)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def check_address(host: str, port: int) -> None:
    """Bind ``host:port`` the way uvicorn binds it, then let it go: a port another program
    listens on, a host that is no address of this machine or that does not resolve, a port
    below 1024 without the privilege, are found before a model is loaded.

    Args:
        host: the address or name given (``--host``).
        port: the port (``--port``; 0: any free port, always bindable).

    Raises:
        ServerError: one line naming the address, the cause and what to do.
    """
    where = shown_address(host, port)
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except socket.gaierror as exc:
        raise ServerError(
            f"cannot listen on {where}: --host {host!r} is no address or name this machine "
            f"resolves ({exc.strerror}); give an address such as 127.0.0.1 or 0.0.0.0"
        ) from None
    except OverflowError:  # a port outside 0-65535 (the option already refuses it)
        raise ServerError(f"cannot listen on {where}: no such port") from None
    except OSError as exc:
        raise ServerError(f"cannot listen on {where}: {_why(exc, host, port)}") from None
    finally:
        sock.close()


def _why(exc: OSError, host: str, port: int) -> str:
    """The cause of a failed bind, in words, with what to do."""
    if exc.errno == errno.EADDRINUSE:
        return (f"port {port} is in use (another program listens on it); choose another with "
                "--port, or --port 0 for any free port")
    if exc.errno == errno.EADDRNOTAVAIL:
        return (f"{host} is not an address of this machine; give one of its addresses, "
                "127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (f"port {port} needs privileges this user lacks (ports below 1024); choose a "
                "port above 1023 with --port")
    return exc.strerror or str(exc)


def run_server(app: Any, *, workers: int = 1, **options: Any) -> None:
    """Run uvicorn's server until a signal stops it (it answers the requests in flight first).

    Args:
        app: the ASGI application, or with ``workers > 1`` its import string (a factory with
            ``factory=True`` in ``options``).
        workers: processes sharing the listening socket.
        **options: :class:`uvicorn.Config`'s (host, port, log_level, ...).

    Raises:
        KeyboardInterrupt: Ctrl-C (SIGINT) stopped the server.
        ServerError: the server did not start (the log says why: the app's start failed, or the
            address was taken after :func:`check_address`).

    After SIGTERM the server stops the way uvicorn stops: the signal is raised again at its
    default, ending the process as a stopped service (what service managers expect).
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(app, workers=workers, **options)
    stopped: list[int] = []

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            stopped.append(sig)
            super().handle_exit(sig, frame)

    class Supervisor(Multiprocess):
        def handle_int(self) -> None:
            stopped.append(signal.SIGINT)
            super().handle_int()

        def handle_term(self) -> None:
            stopped.append(signal.SIGTERM)
            super().handle_term()

    server = Server(config)
    try:
        if workers > 1:
            try:
                sock = config.bind_socket()
            except SystemExit:  # uvicorn's status 3: it logged the cause
                raise ServerError(_not_started(config)) from None
            Supervisor(config, sockets=[sock]).run()
        else:
            server.run()
    except KeyboardInterrupt:
        stopped.append(signal.SIGINT)
    except SystemExit as exc:  # uvicorn's status 3 (STARTUP_FAILURE): it logged the cause
        if exc.code in (0, None) and stopped:
            pass
        else:
            raise ServerError(_not_started(config)) from None
    if signal.SIGINT in stopped:
        raise KeyboardInterrupt
    if signal.SIGTERM in stopped:  # the multiprocess supervisor swallowed it: end as uvicorn does
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
    if workers == 1 and not server.started:
        raise ServerError(_not_started(config))


def _not_started(config: Any) -> str:
    return (f"the server on {shown_address(config.host, config.port)} did not start (the log "
            "above says why)")
