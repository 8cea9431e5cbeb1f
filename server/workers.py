"""`gradwalk serve --workers N`: uvicorn's worker processes on one listening socket, with
TCP_NODELAY on every connection.

uvicorn (0.54) binds the socket it shares with its workers as `socket.socket(family)`, leaving
the protocol number at 0. Accepted connections inherit it, and asyncio turns on TCP_NODELAY only
for sockets whose protocol is IPPROTO_TCP, so Nagle's algorithm held the body of every
keep-alive response back until the client's delayed ACK: about 45 ms per request (uvicorn issue
3149; bench/load.py measured 20 answers per second for one client against 175 with one
process). A single process is not affected: asyncio binds it from getaddrinfo, with IPPROTO_TCP.
"""
from __future__ import annotations

import socket

import uvicorn
from uvicorn.supervisors import Multiprocess


def listener(config: uvicorn.Config) -> socket.socket:
    """The bound listening socket of config, its protocol set to IPPROTO_TCP when it is TCP
    (the same file descriptor; accepted sockets and the workers' copies inherit the number)."""
    sock = config.bind_socket()
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto != socket.IPPROTO_TCP:
        return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    return sock


def run_workers(config: uvicorn.Config) -> None:
    """Run config.workers processes until a signal stops them (what uvicorn.run does for
    workers > 1, on our listener)."""
    Multiprocess(config, sockets=[listener(config)]).run()
