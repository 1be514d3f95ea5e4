"""packetdrill scripts: a strict parser of the script language (issue 54's first piece).

``run(path)`` runs scripts (files or folders) against a tcplab connection under the linux
profile and returns a :class:`Report` of outcomes (pass, fail, known, kernel, skip, error).
``parse(path_or_text)`` returns a typed :class:`Script` of timed events; a malformed script
raises :class:`ParseError` naming ``file:line:column`` and what was expected. ``topic`` and
``feature_skip_reason`` sort corpus scripts by topic and by the features tcplab does not
model. See docs/packetdrill.md.
"""

from tcplab.packetdrill.classify import feature_skip_reason, topic
from tcplab.packetdrill.errors import ParseError
from tcplab.packetdrill.parse import parse, parse_text
from tcplab.packetdrill.report import KNOWN, Outcome, Report, run, run_script
from tcplab.packetdrill.script import (
    AddrOf,
    Array,
    Assertion,
    BitOr,
    Call,
    Command,
    Elided,
    Event,
    Expr,
    Float,
    IcmpPacket,
    Int,
    Name,
    Script,
    ScriptOption,
    Str,
    Struct,
    Syscall,
    TcpOption,
    TcpPacket,
    Time,
    UdpPacket,
)

__all__ = [
    "KNOWN", "Outcome", "Report", "run", "run_script",
    "AddrOf", "Array", "Assertion", "BitOr", "Call", "Command", "Elided", "Event",
    "Expr", "Float", "IcmpPacket", "Int", "Name", "ParseError", "Script", "ScriptOption", "Str",
    "Struct", "Syscall", "TcpOption", "TcpPacket", "Time", "UdpPacket", "feature_skip_reason",
    "parse", "parse_text", "topic",
]
