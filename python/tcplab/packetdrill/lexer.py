"""Tokens of the packetdrill script language, each with its line, column and source span.

Whitespace and newlines separate tokens and carry no meaning, as in packetdrill's own
scanner; ``//`` and ``/* */`` comments are skipped. ``%{ ... }%`` code blocks, back-quoted
shell commands and double-quoted strings are single tokens. Words are kept as written: the
parser decides what a word means where it stands (a TCP flag, an option name, a constant).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tcplab.packetdrill.errors import ParseError

#: Token kinds.
INT, FLOAT, WORD, STRING, COMMAND, CODE, OPTION, ELLIPSIS, IPV4, PUNCT, EOF = (
    "integer", "number", "word", "string", "command", "code", "option", "'...'",
    "IPv4 address", "punctuation", "end of file")

_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_LINE_COMMENT = re.compile(r"//[^\n]*")
_OPTION = re.compile(r'--([A-Za-z0-9_]+)(?:=("(?:\\.|[^"\\\n])*"|\S*))?')
_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
_HEX = re.compile(r"0x[0-9A-Fa-f]+")
_FLOAT = re.compile(r"-?[0-9]*\.[0-9]+")
_INT = re.compile(r"-?[0-9]+")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"', re.S)
_COMMAND = re.compile(r"`(?:\\.|[^`\\])*`", re.S)


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text as written, its value, and where it starts and ends."""

    kind: str
    text: str
    value: object
    line: int
    column: int
    start: int
    end: int

    def describe(self) -> str:
        """The token as an error message quotes it."""
        if self.kind == EOF:
            return "end of file"
        text = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return repr(text)


class Lexer:
    """Turns a script's text into a list of tokens; errors name ``name:line:column``."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def error(self, message: str, pos: int | None = None) -> ParseError:
        """A ParseError at ``pos`` (default: the current position)."""
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return ParseError(self.name, line, column, message)

    def _advance(self, end: int) -> None:
        newlines = self.text.count("\n", self.pos, end)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.pos, end) + 1
        self.pos = end

    def _skip(self) -> None:
        """Skips whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            m = _SPACE.match(text, self.pos) or _LINE_COMMENT.match(text, self.pos)
            if m:
                self._advance(m.end())
                continue
            if text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated comment: expected '*/' before the end of file")
                self._advance(end + 2)
                continue
            return

    def tokens(self) -> list[Token]:
        """Every token of the text, ending with an EOF token."""
        out: list[Token] = []
        while True:
            self._skip()
            if self.pos >= len(self.text):
                out.append(Token(EOF, "", None, self.line, self.pos - self.line_start + 1,
                                 self.pos, self.pos))
                return out
            out.append(self._token())

    def _make(self, kind: str, end: int, value: object = None) -> Token:
        text = self.text[self.pos:end]
        token = Token(kind, text, text if value is None else value, self.line,
                      self.pos - self.line_start + 1, self.pos, end)
        self._advance(end)
        return token

    def _delimited(self, kind: str, opener: str, closer: str) -> Token:
        end = self.text.find(closer, self.pos + len(opener))
        if end < 0:
            raise self.error(
                f"unterminated %{{ }}% block: expected {closer!r} before the end of file")
        end += len(closer)
        inner = self.text[self.pos + len(opener):end - len(closer)]
        return self._make(kind, end, inner)

    def _token(self) -> Token:
        text, pos = self.text, self.pos
        if text.startswith("%{", pos):
            return self._delimited(CODE, "%{", "}%")
        if text.startswith("...", pos):
            return self._make(ELLIPSIS, pos + 3)
        char = text[pos]
        if char == "`":
            m = _COMMAND.match(text, pos)
            if not m:
                raise self.error("unterminated command: expected '`' before the end of file")
            return self._make(COMMAND, m.end(), m.group()[1:-1])
        if char == '"':
            m = _STRING.match(text, pos)
            if not m:
                raise self.error("unterminated string: expected '\"' before the end of file")
            return self._make(STRING, m.end(), m.group()[1:-1])
        m = _OPTION.match(text, pos)
        if m:
            value = m.group(2)
            if value is not None and value.startswith('"'):
                value = value[1:-1]
            return self._make(OPTION, m.end(), (m.group(1), value))
        m = _IPV4.match(text, pos)
        if m:
            return self._make(IPV4, m.end())
        m = _HEX.match(text, pos)
        if m and not _WORD.match(text, m.end()):
            return self._make(INT, m.end(), int(m.group(), 16))
        m = _FLOAT.match(text, pos)
        if m and not _WORD.match(text, m.end()):
            return self._make(FLOAT, m.end(), m.group())
        m = _INT.match(text, pos)
        if m and not _WORD.match(text, m.end()):
            return self._make(INT, m.end(), int(m.group()))
        m = _WORD.match(text, pos)
        if m:
            return self._make(WORD, m.end())
        return self._make(PUNCT, pos + 1)


def tokenize(text: str, name: str = "<script>") -> list[Token]:
    """The tokens of ``text``; a malformed comment, string or block raises ParseError."""
    return Lexer(text, name).tokens()
