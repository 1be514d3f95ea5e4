"""Grammar rules for packet lines: ``<``/``>`` TCP segments with options, ICMP and UDP."""

from __future__ import annotations

from typing import Literal

from tcplab.packetdrill.cursor import Cursor
from tcplab.packetdrill.lexer import ELLIPSIS, FLOAT, INT, PUNCT, WORD, Token
from tcplab.packetdrill.script import Ecn, IcmpPacket, TcpOption, TcpPacket, UdpPacket

#: Letters a TCP flags field may hold: FIN SYN RST PSH URG ECE CWR (W) AE (A), ``.`` for ACK,
#: a digit for AccECN's ACE counter, ``-`` for no flags.
FLAG_CHARS = frozenset("FSRPUEWA.-01234567")
FLAG_HELP = "a TCP flag (S, F, P, R, U, ., E, W, A, an ACE digit 0-7, or -)"
ECN_CODEPOINTS = ("noecn", "ect0", "ect1", "ect01", "ce")
OPTION_HELP = "a TCP option (mss, sackOK, sack, TS, wscale, nop, eol, FO, FOEXP, md5, ECN)"
ACCECN_COUNTERS = ("e0b", "e1b", "ceb")


def packet(cur: Cursor) -> TcpPacket | IcmpPacket | UdpPacket:
    """``< ...`` or ``> ...`` after the time; the direction is the current token."""
    direction: Literal["<", ">"] = "<" if cur.next().text == "<" else ">"
    ecn, ip = _ip_info(cur)
    if cur.is_word("icmp"):
        cur.next()
        return _icmp(cur, direction, ecn, ip)
    udp = cur.is_word("udp")
    if udp:
        cur.next()
    ports = None
    if cur.peek().kind == INT and cur.is_punct(">", 1):
        src = cur.expect_int("a port", 16)
        cur.next()
        ports = (src, cur.expect_int("the destination port after '>'", 16))
    if udp:
        return UdpPacket(direction, _paren_length(cur, "the UDP payload length"), ecn, ip,
                         ports)
    flags = _flags(cur)
    seq, seq_end, length = _seq(cur)
    fields: dict[str, int] = {}
    for name, bits in (("ack", 32), ("win", 16), ("urg", 16)):
        if cur.is_word(name):
            cur.next()
            fields[name] = cur.expect_int(f"a number after '{name}'", bits)
    if cur.is_word("ack", "win", "urg"):
        raise cur.error_at(cur.peek(), 0, f"'{cur.peek().text}' given twice or out of order "
                           "(packetdrill's order is ack, win, urg)")
    options = tcp_options(cur) if cur.is_punct("<") else None
    return TcpPacket(direction, flags, seq, seq_end, length, fields.get("ack"),
                     fields.get("win"), fields.get("urg"), options, ecn, ip, ports)


def _paren_length(cur: Cursor, what: str) -> int:
    """``(N)``."""
    cur.expect("(", f"'(' and {what}")
    length = cur.expect_int(what, 16)
    cur.expect(")", f"')' after {what}")
    return length


IP_HELP = ("an IP field (" + ", ".join(ECN_CODEPOINTS) + ", tos 0x.., flowlabel 0x.. "
           "or ttl N)")


def _ip_info(cur: Cursor) -> tuple[Ecn | None, tuple[tuple[str, int], ...]]:
    """Optional IP header fields in ``[...]`` or ``(...)``: ``[ect0]``, ``(tos 0x2, ttl 9)``.

    An ECN codepoint (noecn, ect0, ect1, ect01, ce), ``tos``, ``flowlabel`` and ``ttl``.
    """
    closer = {"[": "]", "(": ")"}.get(cur.peek().text) if cur.peek().kind == PUNCT else None
    if closer is None or cur.peek(1).kind != WORD:
        return None, ()
    cur.next()
    ecn: Ecn | None = None
    fields: list[tuple[str, int]] = []
    while True:
        word = cur.peek()
        if word.kind == WORD and word.text in ECN_CODEPOINTS and ecn is None:
            ecn = cur.next().text  # type: ignore[assignment]
        elif word.kind == WORD and word.text in ("tos", "flowlabel", "ttl"):
            cur.next()
            bits = {"tos": 8, "flowlabel": 20, "ttl": 8}[word.text]
            fields.append((word.text, cur.expect_int(f"a number after '{word.text}'", bits)))
        else:
            raise cur.error(IP_HELP)
        if cur.accept(closer):
            return ecn, tuple(fields)
        cur.expect(",", f"',' or {closer!r} in the IP fields")


def _flag_token(token: Token) -> bool:
    return token.kind in (WORD, FLOAT, INT) or (token.kind == PUNCT and token.text in ".-")


def _flags(cur: Cursor) -> str:
    """The flags field, e.g. ``S.``, ``P.5``, ``SEWA``, ``-`` (glued tokens, checked per char)."""
    first = cur.peek()
    if not _flag_token(first):
        raise cur.error(FLAG_HELP)
    tokens = cur.glued(_flag_token)
    text = "".join(t.text for t in tokens)
    for i, char in enumerate(text):
        if char not in FLAG_CHARS:
            # glued tokens are contiguous, so the character's column is first's + i
            raise cur.error_at(first, i, f"expected {FLAG_HELP}, found {char!r}")
    return text


def _seq(cur: Cursor) -> tuple[int, int, int]:
    """``start:end(length)``."""
    what = "a sequence range 'start:end(length)'"
    first = cur.peek()
    start = cur.expect_int(what, 32)
    cur.expect(":", what)
    end = cur.expect_int("the sequence range's end", 32)
    cur.expect("(", "'(' and the payload length")
    length = cur.expect_int("the payload length", 32)
    last = cur.expect(")", "')' after the payload length")
    if (end - start) % (1 << 32) != length:
        raise cur.error_at(first, 0, f"the sequence range {cur.source(first, last)} spans "
                           f"{(end - start) % (1 << 32)} bytes, not {length}")
    return start, end, length


def _icmp(cur: Cursor, direction: Literal["<", ">"], ecn: Ecn | None,
          ip: tuple[tuple[str, int], ...]) -> IcmpPacket:
    """``icmp TYPE [CODE] [mtu N] [id N] [[start:end(len)] | [udp (N)] | [raw (N)]]``."""
    if not cur.is_word():
        raise cur.error("an ICMP type (unreachable, packet_too_big, time_exceeded, ...)")
    kind = cur.next().text
    code = cur.next().text if cur.is_word() and not cur.is_word("mtu", "id") else None
    numbers: dict[str, int] = {}
    for name in ("mtu", "id"):
        if cur.is_word(name):
            cur.next()
            numbers[name] = cur.expect_int(f"a number after '{name}'", 16)
    echoed: Literal["tcp", "udp", "raw"] | None = None
    seq, length = None, None
    if cur.accept("["):
        if cur.is_word("udp", "raw"):
            echoed = cur.next().text  # type: ignore[assignment]
            length = _paren_length(cur, f"the echoed {echoed} length")
        else:
            echoed = "tcp"
            seq = _seq(cur)
        cur.expect("]", "']' after the echoed packet")
    return IcmpPacket(direction, kind, code, numbers.get("mtu"), seq, ecn, ip,
                      numbers.get("id"), echoed, length)


def tcp_options(cur: Cursor) -> tuple[TcpOption, ...]:
    """``<opt, opt, ...>``; ``<>`` is empty and ``<...>`` any options."""
    cur.expect("<")
    if cur.accept(">"):
        return ()
    if cur.peek().kind == ELLIPSIS:
        cur.next()
        cur.expect(">", "'>' after '<...'")
        return (TcpOption("..."),)
    out = [_option(cur)]
    while cur.accept(","):
        out.append(_option(cur))
    cur.expect(">", "',' or '>' in the TCP options")
    return tuple(out)


def _cookie(cur: Cursor) -> str | None:
    """An FO/FOEXP cookie or an MD5 digest: hex digits or a macro name, glued together."""
    if cur.peek().kind not in (INT, WORD):
        return None
    return "".join(t.text for t in cur.glued(lambda t: t.kind in (INT, WORD)))


def _option(cur: Cursor) -> TcpOption:
    token = cur.peek()
    if token.kind != WORD:
        raise cur.error(OPTION_HELP)
    kind = cur.next().text
    if kind in ("nop", "eol", "sackOK"):
        return TcpOption(kind)
    if kind in ("mss", "wscale"):
        bits = 16 if kind == "mss" else 8
        return TcpOption(kind, value=cur.expect_int(f"a number after '{kind}'", bits))
    if kind == "TS":
        cur.expect_word("val", "'val' after 'TS'")
        val = cur.expect_int("the TS value after 'val'", 32)
        cur.expect_word("ecr", "'ecr' after the TS value")
        ecr = cur.expect_int("the TS echo reply after 'ecr'", 32)
        return TcpOption(kind, value=val, ecr=ecr)
    if kind == "sack":
        blocks = []
        while cur.peek().kind == INT or not blocks:
            left = cur.expect_int("a SACK block 'left:right'", 32)
            cur.expect(":", "':' in the SACK block")
            blocks.append((left, cur.expect_int("the SACK block's right edge", 32)))
        return TcpOption(kind, blocks=tuple(blocks))
    if kind in ("FO", "FOEXP"):
        return TcpOption(kind, cookie=_cookie(cur))
    if kind == "md5":
        digest = _cookie(cur)
        if digest is None:
            raise cur.error("an MD5 digest (hex) after 'md5'")
        return TcpOption(kind, cookie=digest)
    if kind == "ECN":
        counters = []
        while cur.is_word(*ACCECN_COUNTERS):
            name = cur.next().text
            counters.append((name, cur.expect_int(f"a byte count after '{name}'", 24)))
        return TcpOption(kind, counters=tuple(counters))
    raise cur.error(OPTION_HELP, token)
