"""A cursor over a script's tokens, with the helpers every grammar rule uses."""

from __future__ import annotations

from collections.abc import Callable

from tcplab.packetdrill.errors import ParseError
from tcplab.packetdrill.lexer import EOF, INT, PUNCT, WORD, Token

#: The deepest nesting of ``[...]``, ``{...}``, ``&`` and calls a value may have.
MAX_DEPTH = 64


class Cursor:
    """The parser's position in the token list; errors name ``file:line:column``."""

    def __init__(self, tokens: list[Token], name: str, text: str) -> None:
        self.tokens = tokens
        self.name = name
        self.text = text
        self.i = 0
        self.depth = 0  # of nested values, bounded by MAX_DEPTH

    def peek(self, ahead: int = 0) -> Token:
        """The token ``ahead`` places on (EOF past the end)."""
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> Token:
        """Consumes and returns the current token."""
        token = self.peek()
        if token.kind != EOF:
            self.i += 1
        return token

    def error(self, expected: str, token: Token | None = None) -> ParseError:
        """``expected X, found Y`` at ``token`` (default: the current one)."""
        token = token or self.peek()
        return ParseError(self.name, token.line, token.column,
                          f"expected {expected}, found {token.describe()}")

    def error_at(self, token: Token, offset: int, message: str) -> ParseError:
        """A message at ``offset`` characters into ``token`` (on the token's line)."""
        return ParseError(self.name, token.line, token.column + offset, message)

    def is_punct(self, char: str, ahead: int = 0) -> bool:
        """Whether the token ``ahead`` is the punctuation ``char``."""
        token = self.peek(ahead)
        return token.kind == PUNCT and token.text == char

    def is_word(self, *words: str) -> bool:
        """Whether the current token is one of ``words`` (any word if none are given)."""
        token = self.peek()
        return token.kind == WORD and (not words or token.text in words)

    def accept(self, char: str) -> bool:
        """Consumes the punctuation ``char`` if it is next."""
        if self.is_punct(char):
            self.i += 1
            return True
        return False

    def expect(self, char: str, what: str | None = None) -> Token:
        """Consumes the punctuation ``char`` or raises ``expected '<char>'``."""
        if not self.is_punct(char):
            raise self.error(what or repr(char))
        return self.next()

    def expect_int(self, what: str, bits: int | None = None) -> int:
        """Consumes an integer, or raises ``expected <what>``.

        With ``bits``, the integer must fit an unsigned field of that width.
        """
        token = self.peek()
        if token.kind != INT:
            raise self.error(what)
        value = int(token.value)  # type: ignore[call-overload]
        if bits is not None and not 0 <= value < 1 << bits:
            raise self.error(f"{what} (0 to {(1 << bits) - 1})")
        self.i += 1
        return value

    def expect_word(self, word: str, what: str | None = None) -> Token:
        """Consumes the word ``word`` or raises."""
        if not self.is_word(word):
            raise self.error(what or repr(word))
        return self.next()

    def glued(self, fits: Callable[[Token], bool]) -> list[Token]:
        """The current token and those that ``fit`` and follow with no space between, consumed."""
        out = [self.next()]
        while (self.peek().kind != EOF and self.peek().start == out[-1].end
               and fits(self.peek())):
            out.append(self.next())
        return out

    def source(self, start: Token, end: Token) -> str:
        """The source text from ``start`` to ``end`` inclusive."""
        return self.text[start.start:end.end]
