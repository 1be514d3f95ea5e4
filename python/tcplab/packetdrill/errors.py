"""The one exception the packetdrill parser raises."""

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
