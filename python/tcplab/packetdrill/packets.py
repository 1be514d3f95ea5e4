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
    ecn = _ecn(cur)
    if cur.is_word("icmp"):
        cur.next()
        return _icmp(cur, direction, ecn)
    if cur.is_word("udp"):
        cur.next()
        cur.expect("(", "'(' and the UDP payload length")
        length = cur.expect_int("the UDP payload length")
        cur.expect(")")
        return UdpPacket(direction, length, ecn)
    ip = _ip_fields(cur)
    flags = _flags(cur)
    seq, seq_end, length = _seq(cur)
    fields: dict[str, int] = {}
    while cur.is_word("ack", "win", "urg"):
        word = cur.next()
        if word.text in fields:
            raise cur.error_at(word, 0, f"'{word.text}' given twice in one packet")
        fields[word.text] = cur.expect_int(f"a number after '{word.text}'")
    options = tcp_options(cur) if cur.is_punct("<") else None
    return TcpPacket(direction, flags, seq, seq_end, length, fields.get("ack"),
                     fields.get("win"), fields.get("urg"), options, ecn, ip)


def _ecn(cur: Cursor) -> Ecn | None:
    """An optional ``[ect0]``-style IP ECN codepoint."""
    if not (cur.is_punct("[") and cur.peek(1).kind == WORD):
        return None
    cur.next()
    word = cur.peek()
    if word.text not in ECN_CODEPOINTS:
        raise cur.error("an ECN codepoint (" + ", ".join(ECN_CODEPOINTS) + ")")
    cur.next()
    cur.expect("]", "']' after the ECN codepoint")
    return word.text  # type: ignore[return-value]


def _ip_fields(cur: Cursor) -> tuple[tuple[str, str], ...]:
    """Optional IP header fields in parentheses: ``(tos 0x1, ttl 64, mf)``."""
    if not cur.accept("("):
        return ()
    out = []
    while True:
        if not cur.is_word():
            raise cur.error("an IP header field (tos, ttl, flowlabel, id, mf, df)")
        name = cur.next().text
        value = ""
        if cur.peek().kind in (INT, WORD):
            value = cur.next().text
        out.append((name, value))
        if cur.accept(")"):
            return tuple(out)
        cur.expect(",", "',' or ')' in the IP header fields")


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
    start = cur.expect_int(what)
    cur.expect(":", what)
    end = cur.expect_int(what)
    cur.expect("(", what)
    length = cur.expect_int("the payload length")
    cur.expect(")", "')' after the payload length")
    return start, end, length


def _icmp(cur: Cursor, direction: Literal["<", ">"], ecn: Ecn | None) -> IcmpPacket:
    """``icmp TYPE [CODE] [mtu N] [[start:end(len)]]``."""
    if not cur.is_word():
        raise cur.error("an ICMP type (unreachable, packet_too_big, time_exceeded, ...)")
    kind = cur.next().text
    code = cur.next().text if cur.is_word() and not cur.is_word("mtu") else None
    mtu = None
    if cur.is_word("mtu"):
        cur.next()
        mtu = cur.expect_int("the MTU after 'mtu'")
    seq = None
    if cur.accept("["):
        seq = _seq(cur)
        cur.expect("]", "']' after the quoted segment")
    return IcmpPacket(direction, kind, code, mtu, seq, ecn)


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
        return TcpOption(kind, value=cur.expect_int(f"a number after '{kind}'"))
    if kind == "TS":
        cur.expect_word("val", "'val' after 'TS'")
        val = cur.expect_int("the TS value after 'val'")
        cur.expect_word("ecr", "'ecr' after the TS value")
        return TcpOption(kind, value=val, ecr=cur.expect_int("the TS echo reply after 'ecr'"))
    if kind == "sack":
        blocks = []
        while cur.peek().kind == INT or not blocks:
            left = cur.expect_int("a SACK block 'left:right'")
            cur.expect(":", "':' in the SACK block")
            blocks.append((left, cur.expect_int("the SACK block's right edge")))
        return TcpOption(kind, blocks=tuple(blocks))
    if kind in ("FO", "FOEXP", "md5"):
        return TcpOption(kind, cookie=_cookie(cur))
    if kind == "ECN":
        counters = []
        while cur.is_word(*ACCECN_COUNTERS):
            name = cur.next().text
            counters.append((name, cur.expect_int(f"a byte count after '{name}'")))
        return TcpOption(kind, counters=tuple(counters))
    raise cur.error(OPTION_HELP, token)
