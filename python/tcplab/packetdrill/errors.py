"""The packetdrill parser's exception, and how a run stops: a skip or a failure."""

from __future__ import annotations

from tcplab.errors import TcplabError


class ParseError(TcplabError):
    """A malformed packetdrill script: ``file:line:column: what was expected, found what``."""

    def __init__(self, name: str, line: int, column: int, message: str) -> None:
        self.name = name
        self.line = line
        self.column = column
        self.detail = message
        super().__init__(f"{name}:{line}:{column}: {message}")


class Skip(Exception):
    """The script uses something tcplab does not model: the reason."""


class Fail(Exception):
    """The first line where the connection and the script disagree."""

    def __init__(self, line: int, reason: str, expected: str | None = None,
                 actual: str | None = None) -> None:
        super().__init__(reason)
        self.line, self.reason, self.expected, self.actual = line, reason, expected, actual
