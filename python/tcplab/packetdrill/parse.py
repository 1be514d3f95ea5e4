"""The packetdrill script grammar: options, the leading command, and timed events.

A statement is a time followed by a system call, a packet, a ``%{ }%`` block or a
back-quoted command. Line breaks carry no meaning (as in packetdrill's own parser), so a
statement may span lines; every error names ``file:line:column`` and what was expected.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TypeVar

from tcplab.packetdrill.cursor import MAX_DEPTH, Cursor
from tcplab.packetdrill.errors import ParseError
from tcplab.packetdrill.lexer import (
    CODE,
    COMMAND,
    ELLIPSIS,
    EOF,
    FLOAT,
    INT,
    OPTION,
    PUNCT,
    STRING,
    WORD,
    Token,
    tokenize,
)
from tcplab.packetdrill.packets import packet
from tcplab.packetdrill.script import (
    Action,
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
    Int,
    Name,
    Script,
    ScriptOption,
    Str,
    Struct,
    Syscall,
    Time,
)

T = TypeVar("T")
TIME_HELP = "a time (0, 1.5, +0.1, +.3~+.310, +0...0.2 or *)"
ACTION_HELP = "a system call, a packet ('<' or '>'), a %{ }% block or a `command`"
EXPR_HELP = "a value (a number, a name, '...', a string, [...], {...} or &value)"


def usecs(token: Token, cur: Cursor) -> int:
    """A time token (seconds, as written) in integer microseconds."""
    try:
        value = Decimal(token.text) * 1_000_000
    except InvalidOperation:  # pragma: no cover - the lexer only hands numbers here
        raise cur.error(TIME_HELP, token) from None
    if value < 0:
        raise cur.error_at(token, 0, f"expected a time that is not negative, found {token.text!r}")
    if value != value.to_integral_value():
        raise cur.error_at(token, 0, f"a time finer than a microsecond: {token.text!r}")
    return int(value)


def _time_point(cur: Cursor) -> tuple[bool, int]:
    """``[+]number``: whether it is relative, and its microseconds."""
    relative = cur.accept("+")
    token = cur.peek()
    if token.kind not in (INT, FLOAT):
        raise cur.error(TIME_HELP)
    cur.next()
    return relative, usecs(token, cur)


def parse_time(cur: Cursor) -> Time:
    """An event's time: ``*``, ``0``, ``+.1``, ``+.3~+.310``, ``.3~.31`` or ``+0...0.2``.

    A range's end is written like its start (both with ``+`` or neither); a blocking end
    (``...``) is a bare number and must be followed by a system call.
    """
    if cur.accept("*"):
        return Time("any", None)
    relative, start = _time_point(cur)
    kind = "relative" if relative else "absolute"
    if cur.is_punct("~"):
        tilde = cur.next()
        if cur.is_punct("+") != relative:
            raise cur.error("'+' before the range's end, as before its start" if relative
                            else "a range end without '+', as its start", cur.peek())
        end_relative, end = _time_point(cur)
        if end < start and end_relative == relative:
            raise cur.error_at(tilde, 1, "a time range that ends before it starts")
        return Time(kind, start, end, "range", end_relative)
    if cur.peek().kind == ELLIPSIS:
        cur.next()
        if cur.is_punct("+"):
            raise cur.error("the blocking call's end time (a number without '+')")
        _, end = _time_point(cur)
        if not (cur.peek().kind == WORD and cur.is_punct("(", 1)):
            raise cur.error("a system call after a blocking time 'start...end'")
        return Time(kind, start, end, "blocking", False)
    return Time(kind, start)


# ---------------------------------------------------------------- expressions


def _bit_or(cur: Cursor) -> Expr:
    """``a|b|c`` (or a single value)."""
    items = [_primary(cur)]
    while cur.is_punct("|") and not cur.is_punct("|", 1):
        cur.next()
        items.append(_primary(cur))
    return items[0] if len(items) == 1 else BitOr(tuple(items))


def parse_expr(cur: Cursor) -> Expr:
    """A syscall argument: a value, or values joined with ``|``."""
    return _bit_or(cur)


def _list(cur: Cursor, close: str, item: Callable[[Cursor], T]) -> tuple[T, ...]:
    """Items separated by ``,`` up to ``close`` (which is consumed)."""
    out: list[T] = []
    if cur.accept(close):
        return ()
    while True:
        out.append(item(cur))
        if cur.accept(close):
            return tuple(out)
        cur.expect(",", f"',' or {close!r}")


def _field(cur: Cursor) -> tuple[str | None, Expr]:
    """A struct field: ``name=value``, ``name(n)=value`` or a bare value."""
    first = cur.peek()
    value = parse_expr(cur)
    if isinstance(value, Name | Call) and cur.is_punct("=") and not cur.is_punct("=", 1):
        name = cur.source(first, cur.tokens[cur.i - 1])
        cur.next()
        return name, parse_expr(cur)
    return None, value


def _primary(cur: Cursor) -> Expr:
    if cur.depth >= MAX_DEPTH:
        raise cur.error(f"a value nested at most {MAX_DEPTH} deep")
    cur.depth += 1
    try:
        return _value(cur)
    finally:
        cur.depth -= 1


def _value(cur: Cursor) -> Expr:
    token = cur.peek()
    kind = token.kind
    if kind == INT:
        cur.next()
        return Int(int(token.value), token.text)  # type: ignore[call-overload]
    if kind == FLOAT:
        cur.next()
        return Float(token.text)
    if kind == STRING:
        cur.next()
        if cur.peek().kind == ELLIPSIS:  # "abc"...: a string that starts so
            cur.next()
            return Str(str(token.value), prefix=True)
        return Str(str(token.value))
    if kind == ELLIPSIS:
        cur.next()
        return Elided()
    if kind == WORD:
        cur.next()
        if cur.accept("("):
            return Call(token.text, _list(cur, ")", parse_expr))
        return Name(token.text)
    if cur.accept("["):
        return Array(_list(cur, "]", parse_expr))
    if cur.accept("{"):
        return Struct(_list(cur, "}", _field))
    if cur.accept("&"):
        return AddrOf(_primary(cur))
    raise cur.error(EXPR_HELP)


def _note(cur: Cursor) -> str:
    """The parenthesised text after a result: ``(Operation now in progress)``."""
    open_ = cur.next()
    depth = 1
    while True:
        token = cur.next()
        if token.kind == EOF:
            raise cur.error("')' to close the note opened at "
                            f"{open_.line}:{open_.column}", token)
        if token.kind == PUNCT and token.text in "()":
            depth += 1 if token.text == "(" else -1
            if depth == 0:
                return cur.text[open_.end:token.start].strip()


def parse_syscall(cur: Cursor) -> Syscall:
    """``name(args) = result [ERRNO] [(note)]``."""
    name = cur.next().text
    cur.expect("(")
    args = _list(cur, ")", parse_expr)
    cur.expect("=", f"'=' and the expected result after {name}(...)")
    result = parse_expr(cur)
    errno = None
    if cur.is_word():
        errno = cur.next().text
        if not cur.is_punct("("):
            raise cur.error(f"a note in parentheses after the errno {errno}, "
                            "e.g. (Operation now in progress)")
    note = _note(cur) if cur.is_punct("(") else None
    return Syscall(name, args, result, errno, note)


# ---------------------------------------------------------------- statements


def parse_action(cur: Cursor) -> Action:
    """What follows an event's time."""
    token = cur.peek()
    if token.kind == PUNCT and token.text in "<>":
        return packet(cur)
    if token.kind == CODE:
        cur.next()
        return Assertion(str(token.value).strip(" \t"))
    if token.kind == COMMAND:
        cur.next()
        return Command(str(token.value))
    if token.kind == WORD and cur.is_punct("(", 1):
        return parse_syscall(cur)
    raise cur.error(ACTION_HELP)


def parse_tokens(cur: Cursor, name: str, path: str | None = None) -> Script:
    """A whole script: options and an init command (before any event), then events."""
    options: list[ScriptOption] = []
    init: Command | None = None
    while cur.peek().kind in (OPTION, COMMAND):
        token = cur.next()
        if token.kind == COMMAND:
            if init is not None:
                raise cur.error("a time before this second command", token)
            init = Command(str(token.value))
        else:
            opt_name, opt_value = token.value  # type: ignore[misc]
            options.append(ScriptOption(opt_name, opt_value, token.line))
    events = []
    cleanup: Command | None = None
    while cur.peek().kind != EOF:
        token = cur.peek()
        if token.kind == COMMAND and events and cur.peek(1).kind == EOF:
            cleanup = Command(str(cur.next().value))
            break
        if token.kind == OPTION:
            raise cur.error_at(token, 0, f"option {token.text!r} after the first event: "
                               "options must come before every event")
        time = parse_time(cur)
        events.append(Event(time, parse_action(cur), token.line))
    return Script(name, tuple(options), init, tuple(events), cleanup, path)


def parse_text(text: str, name: str = "<script>", path: str | None = None) -> Script:
    """Parses a script's text; ``name`` is what errors call the file."""
    tokens = tokenize(text, name)
    return parse_tokens(Cursor(tokens, name, text), name, path)


def parse(source: str | Path, name: str | None = None) -> Script:
    """Parses a script from a path or from its text.

    ``source`` is a path if it is a ``Path`` or a one-line string ending in ``.pkt``;
    otherwise it is the script's text.

    Raises :class:`ParseError` (``file:line:column: expected ..., found ...``) on bad input,
    and OSError if a path cannot be read.
    """
    is_path = isinstance(source, Path) or (
        "\n" not in source and source.endswith(".pkt"))
    if is_path:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise ParseError(name or str(path), 1, 1, f"not UTF-8 text: {e.reason}") from None
        return parse_text(text, name or str(path), str(path))
    return parse_text(str(source), name or "<script>")
