"""Sorting corpus scripts: their topic, and the feature that makes tcplab skip one.

``topic`` reads the layout of the two corpora: google/packetdrill keeps a folder per topic
(``gtests/net/tcp/<topic>/...``), the kernel's selftests fold it into the file name
(``tcp_<topic>_<test>.pkt``). ``feature_skip_reason`` reads what a script *uses*: its
system calls, socket options, TCP options, flags and shell commands. It names the socket
features outside a congestion-control simulator that issue 54 lists as skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tcplab.packetdrill.script import (
    AddrOf,
    Array,
    Assertion,
    BitOr,
    Call,
    Command,
    Expr,
    Int,
    Name,
    Script,
    Struct,
    Syscall,
    TcpPacket,
)

#: Topics as the corpora name them (google folders, plus the kernel's own prefixes).
TOPICS = (
    "accecn", "advmss_pmtu", "basic", "blocking", "close", "cubic", "cwnd_moderation",
    "disorder", "dsack", "ecn", "eor", "epoll", "fast_recovery", "fast_retransmit",
    "fastopen", "gro", "inq", "ioctl", "limited_transmit", "md5", "mss", "mtu_probe", "nagle",
    "notsent_lowat", "ooo", "rcv", "rto", "sack", "sendfile", "shutdown", "slow_start",
    "splice", "syncookies", "syscall_bad_arg", "tcp_info", "timestamping", "ts_recent",
    "user_timeout", "validate", "zerocopy",
)

ACCECN = "AccECN: the L4S issue"
TIMESTAMPING = "timestamping (SO_TIMESTAMPING)"
#: Every skip reason, in the order they are tried when a script uses several.
REASONS = (ACCECN, "fastopen", "zerocopy", "syscall_bad_arg", TIMESTAMPING, "epoll", "splice",
           "sendfile", "md5", "gro", "ioctl", "syncookies")
#: The reason a topic's own scripts are skipped for, when they use that feature.
_TOPIC_REASON = {"accecn": ACCECN, "timestamping": TIMESTAMPING,
                 **{r: r for r in REASONS if r in TOPICS}}


def topic(path: str | Path) -> str:
    """A corpus script's topic: ``sack``, ``fastopen``, ``slow_start``, ...

    From google/packetdrill's folder under ``tcp/`` or the kernel's ``tcp_<topic>_`` file
    name; otherwise the name of the script's folder.
    """
    p = Path(path)
    folders = p.parts[:-1]
    if "tcp" in folders:
        i = len(folders) - 1 - folders[::-1].index("tcp")
        if i + 1 < len(folders):
            return folders[i + 1]
    name = p.name
    if name.startswith("tcp_"):
        rest = name[4:]
        for t in sorted(TOPICS, key=len, reverse=True):
            if rest.startswith(t) and rest[len(t):len(t) + 1] in ("_", "-", "."):
                return t
        return rest.split("_", 1)[0].removesuffix(".pkt")
    return p.parent.name


def _walk(expr: Expr) -> Iterator[Expr]:
    """``expr`` and every expression inside it."""
    yield expr
    children: tuple[Expr, ...] = ()
    if isinstance(expr, BitOr | Array):
        children = expr.items
    elif isinstance(expr, Call):
        children = expr.args
    elif isinstance(expr, Struct):
        children = tuple(v for _, v in expr.fields)
    elif isinstance(expr, AddrOf):
        children = (expr.value,)
    for child in children:
        yield from _walk(child)


def _names(call: Syscall) -> set[str]:
    return {e.name for a in call.args for e in _walk(a) if isinstance(e, Name)}


def _bad_arg(call: Syscall) -> bool:
    """A NULL buffer that must fail (-1, EFAULT), or an iovec holding a zero-length entry."""
    fails = call.result == Int(-1, "-1") and call.errno in (None, "EFAULT")
    if fails and any(isinstance(a, Name) and a.name == "NULL" for a in call.args):
        return True
    return any(isinstance(e, Struct) and len(e.fields) == 2 and e.fields[1][0] is None
               and e.fields[1][1] == Int(0, "0") for a in call.args for e in _walk(a))


def _commands(script: Script) -> str:
    cmds = [script.init_command, script.cleanup_command]
    cmds += [e.action for e in script.events if isinstance(e.action, Command)]
    return "\n".join(c.text for c in cmds if c is not None)


def _gro(script: Script, packets: list[TcpPacket]) -> bool:
    """A GRO-merged segment whose effect on the receiver's MSS the script asserts.

    That is: an injected segment longer than any MSS announced, and an assertion on
    ``tcpi_rcv_mss``.
    """
    mss = [o.value for p in packets if "S" in p.flags
           for o in p.options or () if o.kind == "mss" and o.value]
    merged = bool(mss) and any(p.direction == "<" and p.length > max(mss) for p in packets)
    return merged and any(isinstance(e.action, Assertion) and "tcpi_rcv_mss" in e.action.code
                          for e in script.events)


def _accecn(packets: list[TcpPacket], commands: str) -> bool:
    """The AccECN option, the AE flag or an ACE count in the flags, or AccECN sysctls."""
    for p in packets:
        if any(o.kind == "ECN" for o in p.options or ()):
            return True
        if "A" in p.flags or any(c.isdigit() for c in p.flags):
            return True
    return any(f"tcp_ecn={n}" in commands for n in (3, 4, 5))


def feature_reasons(script: Script) -> list[str]:
    """Every skip reason that applies to ``script``, in :data:`REASONS` order."""
    calls = script.syscalls()
    names = set().union(*(_names(c) for c in calls)) if calls else set()
    called = {c.name for c in calls}
    packets = [p for p in script.packets() if isinstance(p, TcpPacket)]
    options = {o.kind for p in packets for o in p.options or ()}
    commands = _commands(script)
    found = {
        ACCECN: _accecn(packets, commands),
        "fastopen": bool(options & {"FO", "FOEXP"}) or "tcp_fastopen" in commands
        or any(n.startswith(("TCP_FASTOPEN", "MSG_FASTOPEN")) for n in names),
        "zerocopy": bool(names & {"SO_ZEROCOPY", "MSG_ZEROCOPY", "TCP_ZEROCOPY_RECEIVE"})
        or script.option("send_omit_free", "absent") != "absent",
        "syscall_bad_arg": any(_bad_arg(c) for c in calls),
        TIMESTAMPING: any("TIMESTAMPING" in n for n in names),
        "epoll": any(c.startswith("epoll") for c in called),
        "splice": "splice" in called,
        "sendfile": "sendfile" in called,
        "md5": "md5" in options or "TCP_MD5SIG" in names,
        "gro": _gro(script, packets),
        "ioctl": "ioctl" in called,
        "syncookies": "tcp_syncookies" in commands,
    }
    return [r for r in REASONS if found[r]]


def feature_skip_reason(script: Script) -> str | None:
    """Why tcplab skips ``script`` (None if it uses no such feature).

    When a script uses several, the one its own topic is about wins (a zerocopy test that
    also uses fastopen is skipped as "zerocopy"); otherwise the first in :data:`REASONS`.
    """
    reasons = feature_reasons(script)
    if not reasons:
        return None
    own = _TOPIC_REASON.get(topic(script.path or script.name))
    return own if own in reasons else reasons[0]
