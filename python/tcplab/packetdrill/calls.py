"""A packetdrill script's system calls, mapped onto a tcplab connection's application.

The socket calls (``socket``, ``listen``, ``accept``, ``connect``, ``write`` and its kin,
``read`` and its kin, ``close``, ``shutdown``) and the socket options tcplab models, with
what Linux does at each: EPIPE after the sending side is shut, a RST on ``close`` with data
unread, TCP_INQ's control message, TCP_USER_TIMEOUT's end. See docs/packetdrill.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcplab.packetdrill import wire
from tcplab.packetdrill.errors import Fail, Skip
from tcplab.packetdrill.script import (
    Array,
    Elided,
    Expr,
    Name,
    Str,
    Struct,
    Syscall,
    int_value,
    names,
)
from tcplab.packetdrill.writes import Writes

if TYPE_CHECKING:
    from tcplab import _core
    from tcplab.packetdrill.env import Env

_SKIP_SOCKOPTS = {
    "TCP_INFO": "TCP_INFO read by getsockopt",
    "SO_LINGER": "SO_LINGER", "TCP_REPAIR": "TCP_REPAIR", "TCP_SAVE_SYN": "TCP_SAVE_SYN",
    "TCP_DEFER_ACCEPT": "TCP_DEFER_ACCEPT", "TCP_QUICKACK": "TCP_QUICKACK",
    "SO_MAX_PACING_RATE": "SO_MAX_PACING_RATE (pacing: issue 55)",
    "TCP_TX_DELAY": "TCP_TX_DELAY",
}


class Calls(Writes):
    """The system-call half of :class:`tcplab.packetdrill.run.Runner`."""

    d: _core.Drill
    env: Env
    queue: list[wire.Out]
    now_us: int
    state: str
    conn_fd: int | None
    listen_fd: int | None
    syn_at_us: int
    read_bytes: int
    written: int
    shut_rd: bool
    shut_wr: bool
    last_ack: bool
    gone: bool
    inq: bool
    error: str | None
    user_timeout_ns: int
    retrans_stamp: int | None
    local_mss: int
    closed_fds: set[int]
    pending: tuple[int, Syscall, int] | None

    def syscall(self, line: int, c: Syscall, blocking: bool = False) -> None:
        """A system call, mapped onto the connection's application.

        ``blocking``: the script lets it block (``a...b``); a write then waits for room.
        """
        want = int_value(c.result)
        now = self.ns(self.now_us)
        name = c.name
        if name in ("setsockopt", "getsockopt"):
            self.sockopt(line, c)
            return
        if name == "socket":
            if any(isinstance(a, Name) and a.name == "SOCK_DGRAM" for a in c.args):
                raise Skip("UDP sockets")
            if self.conn_fd is not None or self.listen_fd is not None:
                self._next_socket()
            self.conn_fd = want
            return
        if name == "fcntl":
            if len(c.args) > 2 and isinstance(c.args[1], Name) and c.args[1].name == "F_SETFL":
                self.nonblock = "O_NONBLOCK" in names(c.args[2])
            return
        if name == "bind":
            return
        if name == "poll":
            self.poll_check(line, c)
            return
        if name == "listen":
            self.state = "listen"
            self.listen_fd, self.conn_fd = self.conn_fd, None
            return
        if name == "accept":
            if self.state != "established":
                raise Fail(line, "accept: no connection established", None, self.state)
            if self.conn_fd is not None:
                raise Skip("more than one connection")
            self.conn_fd = want
            return
        if name == "connect":
            self._connect()
            return
        if name in ("write", "send", "sendmsg", "sendto", "writev"):
            flags = {n for a in c.args[2:] for n in names(a)}
            if self.error is not None:  # the connection died: the error, once
                if want is None or want >= 0 or c.errno != self.error:
                    raise Fail(line, f"{name}: the connection died ({self.error})",
                               f"{want} {c.errno or ''}".strip(), f"-1 {self.error}")
                self.error = None  # sock_error consumed it: EPIPE from now on
                self.shut_wr = True
                return
            if want is not None and want < 0 and c.errno == "EPIPE":
                if not (self.shut_wr or self.gone):
                    raise Fail(line, f"{name}: the sending side is open", "EPIPE",
                               "bytes queued")
                return
            if want is not None and want < 0 and c.errno in ("ETIMEDOUT", "ECONNRESET"):
                raise Fail(line, f"{name}: the connection is alive", f"-1 {c.errno}",
                           "bytes queued")
            if want is not None and want < 0 and c.errno != "EAGAIN":
                raise Skip(f"{name} that fails with {c.errno}")
            if self.shut_wr or self.gone:
                raise Fail(line, f"{name} after the sending side was shut", str(want),
                           "-1 EPIPE")
            self.write_call(line, c, want, flags, blocking)
            return
        if name in ("read", "recv", "recvmsg", "recvfrom", "readv"):
            self._read(line, name, want)
            if name == "recvmsg" and len(c.args) > 1:
                self._cmsgs(line, c.args[1])
            return
        if name in ("close", "shutdown"):
            fd = int_value(c.args[0]) if c.args else None
            if name == "close" and fd is not None:
                self.closed_fds.add(fd)
            if fd is not None and fd == self.listen_fd:
                return
            how = c.args[1] if name == "shutdown" and len(c.args) > 1 else None
            how_name = how.name if isinstance(how, Name) else ""
            if how_name in ("SHUT_RD", "SHUT_RDWR") or name == "close":
                self.shut_rd = True
            if how_name == "SHUT_RD" or self.gone or self.state in ("listen", "closed"):
                return
            if self.state == "syn_sent" and name == "close":
                # tcp_close in SYN_SENT: the socket goes, with no RST.
                self.gone, self.state = True, "closed"
                return
            if name == "close" and self._unread() > 0:
                # tcp_close with data unread: a RST, not a FIN (RFC 2525 2.17).
                self.d.reset(now, True)
                self._pull()
                self.gone, self.state = True, "closed"
                return
            if not self.shut_wr:
                self.shut_wr = True
                self.last_ack = bool((self.d.info() or {}).get("fin_received"))
                self.d.close(now)
                self._pull()
            return
        raise Skip(f"system call {name}")

    def _next_socket(self) -> None:
        """A new socket once the script closed every earlier one.

        Its connection starts fresh, with the script's sysctls and none of the old
        socket's options. The old connection is dropped with what it sent and no line
        asked for: packetdrill follows only the newest socket from then on (its
        ``socket_under_test``), matching packets to that socket's addresses.
        """
        fds = {self.conn_fd, self.listen_fd} - {None}
        if not fds <= self.closed_fds or self.pending is not None:
            raise Skip("more than one socket open at once")
        self.listen_fd = self.conn_fd = None
        self.env.maxseg = self.env.rcvbuf = None
        self._connection_init()

    def _connect(self) -> None:
        env = self.env
        self.state = "syn_sent"
        self.syn_at_us = self.now_us
        flags = wire.SYN | (0xC0 if env.ecn == 1 else 0)
        rcv = env.rcvbuf * 2 if env.rcvbuf else env.rmem[1]
        self.queue.append(wire.Out(self.ns(self.now_us), "sender", 0, 0, flags, 0,
                                   min(rcv, 65535), self.ns(self.now_us) if env.timestamps
                                   else 0, 0))

    def _cmsgs(self, line: int, msg: Expr) -> None:
        """The control messages a ``recvmsg`` expects: TCP_CM_INQ, the bytes left to read."""
        if not isinstance(msg, Struct):
            return
        control = dict(msg.fields).get("msg_control")
        for cm in control.items if isinstance(control, Array) else ():
            fields = dict(cm.fields) if isinstance(cm, Struct) else {}
            kind = fields.get("cmsg_type")
            if not (isinstance(kind, Name) and kind.name == "TCP_CM_INQ"):
                raise Skip(f"control message {kind}")
            want = int_value(fields.get("cmsg_data", Elided()))
            if not self.inq:
                raise Fail(line, "recvmsg: TCP_CM_INQ without TCP_INQ", str(want), "none")
            # tcp_inq_hint: rcv_nxt - copied_seq, and rcv_nxt counts the peer's
            # FIN: the bytes queued, plus 1 once the FIN has arrived (so 0 means
            # "more may come", 1 with nothing queued "end of stream").
            left = self._unread()
            if (self.d.info() or {}).get("fin_received"):
                left += 1
            if want is not None and want != left:
                raise Fail(line, f"recvmsg: TCP_CM_INQ {left}", str(want), str(left))

    def _unread(self) -> int:
        info = self.d.info() or {}
        return int(info.get("received", 0)) - self.read_bytes

    def _read(self, line: int, name: str, want: int | None) -> None:
        info = self.d.info() or {}
        have = int(info.get("received", 0)) - self.read_bytes
        if want is None:
            return
        if want < 0:
            if have > 0:
                raise Fail(line, f"{name}: {have} bytes were ready", "EAGAIN", str(have))
            return
        if want == 0 and not info.get("fin_received") and not self.shut_rd:
            raise Fail(line, f"{name}: no FIN received", "0 (end of stream)", "no FIN")
        if have < want:
            raise Fail(line, f"{name}: {have} bytes ready, expected {want}", str(want),
                       str(have))
        self.read_bytes += want

    def sockopt(self, line: int, c: Syscall) -> None:
        """The socket options tcplab models (set or read), else a skip."""
        opt = c.args[2] if len(c.args) > 2 else None
        name = opt.name if isinstance(opt, Name) else str(opt)
        val = c.args[3] if len(c.args) > 3 else Elided()
        if c.name == "getsockopt":
            if name == "SO_ERROR":
                return
            if name == "TCP_MAXSEG":
                # Linux's mss_cache once connected (the MSS less the options
                # every segment carries), else the user's TCP_MAXSEG or 536.
                info = self.d.info()
                have = (int(info["mss"]) if info is not None
                        else self.env.maxseg or 536)
                asked = int_value(val)
                if asked != have:
                    raise Fail(line, f"getsockopt TCP_MAXSEG: {have}", str(asked), str(have))
                return
            if name in ("SO_SNDBUF", "TCP_NOTSENT_LOWAT"):
                have = self.send_buffer().sndbuf if name == "SO_SNDBUF" else self.lowat_opt
                if int_value(val) is not None and int_value(val) != have:
                    raise Fail(line, f"getsockopt {name}: {have}", str(int_value(val)), str(have))
                return
            raise Skip(_SKIP_SOCKOPTS.get(name, f"getsockopt {name}"))
        # Read and ignored: IP_TOS cannot
        # touch a TCP socket's ECN bits (Linux keeps them, do_ip_setsockopt),
        # and its other bits do not change TCP. Without ICMP nothing lowers
        # the path MTU, so IP_MTU_DISCOVER changes nothing.
        if name in ("SO_REUSEADDR", "SO_KEEPALIVE", "SO_REUSEPORT", "IP_TOS",
                    "IP_MTU_DISCOVER"):
            return
        now = self.ns(self.now_us)
        if name == "SO_SNDBUF":
            self.send_buffer().set_sndbuf(int_value(val) or 0, self.env.wmem_max)
            return
        if name == "TCP_NOTSENT_LOWAT":
            self.lowat_opt = int_value(val) or 0
            self.write_space()  # do_tcp_setsockopt calls sk_write_space
            return
        if name == "TCP_NODELAY":
            self.d.set_nodelay(now, bool(int_value(val)))
            self._pull()
        elif name == "TCP_CORK":
            self.d.set_cork(now, bool(int_value(val)))
            self._pull()
        elif name == "TCP_MAXSEG":
            self.env.maxseg = int_value(val)
            self.local_mss = self.env.local_mss()
        elif name == "TCP_USER_TIMEOUT":
            self.user_timeout_ns = (int_value(val) or 0) * 1_000_000
            if not self.user_timeout_ns:
                self.retrans_stamp = None
            else:
                self._retrans_stamp()
        elif name == "TCP_INQ":
            self.inq = bool(int_value(val))
        elif name == "SO_RCVBUF":
            self.env.rcvbuf = int_value(val)
        elif name == "TCP_CONGESTION" and isinstance(val, Str):
            self.env.sysctl("tcp_congestion_control", val.value)
            if self.env.unmodelled:
                raise Skip(self.env.unmodelled[-1])
        else:
            raise Skip(_SKIP_SOCKOPTS.get(name, f"socket option {name}"))

