"""Scenario data in and out.

Scenario values as plain JSON data (fields named in every message), the JSON
text the core reads, reading a text file with one clear error, and the line
of a field in a TOML file.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.errors import ScenarioError

if TYPE_CHECKING:
    pass



# ---- scenario data as the core reads it ------------------------------------------

#: What a scenario value may be, for messages.
_ALLOWED_VALUES = "numbers, strings (with units), booleans, lists and tables"


def _field(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def plain(value: Any, path: str = "") -> Any:
    """Scenario data as plain JSON data, or a ScenarioError naming the field.

    Numbers of other types (numpy scalars and arrays, ``Decimal``,
    ``Fraction``) become Python numbers and lists, and paths become strings;
    JSON has no NaN or infinity, so a non-finite float becomes ``"NaN"``,
    ``"Infinity"`` or ``"-Infinity"``, which the core refuses with the range
    the field allows. Anything else (bytes, dates, objects) is refused.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(f"{path or 'scenario'}: key {k!r} is not a string",
                                    path, f"key {k!r} is not a string", "string keys")
            out[k] = plain(v, _field(path, k))
        return out
    if isinstance(value, list | tuple):
        return [plain(v, _field(path, i)) for i, v in enumerate(value)]
    if type(value).__module__ == "numpy":
        if hasattr(value, "tolist"):  # a numpy scalar or array
            return plain(value.tolist(), path)
    if _is_exact_number(value):
        if value == int(value):
            return int(value)
        return plain(float(value), path)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    name = type(value).__name__
    if type(value).__module__ == "datetime":
        problem = (f"a date/time ({value}) is not a scenario value; write a duration as "
                   "'45ms' or a number of seconds")
    else:
        problem = f"a value of type {name} is not a scenario value"
    raise ScenarioError(f"{path or 'scenario'}: {problem} (allowed: {_ALLOWED_VALUES})",
                        path, problem, _ALLOWED_VALUES)


def _is_exact_number(value: Any) -> bool:
    """A ``Decimal`` or ``Fraction`` (checked by module: importing them costs `tcplab run` 5 ms)."""
    return type(value).__module__ in ("decimal", "_decimal", "_pydecimal", "fractions")


def _fast_default(value: Any) -> Any:
    """json.dumps's hook for numbers of other types (numpy, Decimal) and paths."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        out = value.tolist()
        if isinstance(out, float) and not math.isfinite(out):
            raise ValueError("non-finite")
        return out
    if _is_exact_number(value):
        if value == int(value):
            return int(value)
        out = float(value)
        if not math.isfinite(out):
            raise ValueError("non-finite")
        return out
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(type(value).__name__)


def scenario_json(data: dict[str, Any]) -> str:
    """Scenario data as the JSON text the core reads (see :func:`plain`)."""
    try:
        # Plain data straight through; anything else takes the careful walk,
        # which converts it or names the field that holds it.
        return json.dumps(data, allow_nan=False, default=_fast_default)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return json.dumps(plain(data), allow_nan=False)
    except RecursionError:
        raise ScenarioError("scenario: nested too deeply", "", "nested too deeply",
                            "at most a few hundred levels") from None



def python_flows(data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(index in ``flows``, flow) of every flow whose cc is written in Python."""
    out: list[tuple[int, dict[str, Any]]] = []
    flows = data.get("flows") if isinstance(data, dict) else None
    if not isinstance(flows, list):
        return out  # the core refuses it, naming the field
    for i, f in enumerate(flows):
        cc = f.get("cc") if isinstance(f, dict) else None
        if cc == "python" or (isinstance(cc, dict) and cc.get("name") == "python"):
            out.append((i, f))
    return out


def read_text_file(path: Path, what: str) -> str:
    """A UTF-8 text file's contents, or a ScenarioError saying why it cannot be read.

    A FIFO, a device or a socket is refused before it is opened: reading
    one could wait forever.
    """
    from tcplab._files import special_kind

    kind = special_kind(path)
    if kind is not None:
        raise ScenarioError(f"{path} is {kind}, not a {what}", "", f"{kind}, not a {what}")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"no such {what}: {path}", "", f"no such {what}") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path} is a directory, not a {what}", "",
                            f"a directory, not a {what}") from None
    except OSError as e:
        raise ScenarioError(f"cannot read {path}: {e.strerror or e}", "",
                            f"cannot read: {e.strerror or e}") from None
    for bom, enc in ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                     (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16")):
        if raw.startswith(bom):
            raise ScenarioError(f"{path} is {enc} text; save it as UTF-8 ({what}s are UTF-8)",
                                "", f"{enc} text, not UTF-8")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ScenarioError(
            f"{path} is not UTF-8 text (byte 0x{raw[e.start]:02x} on line {line}); save it as "
            f"UTF-8 ({what}s are UTF-8)", "", "not UTF-8 text") from None


def _path_parts(path: str) -> list[str | int]:
    """``links[1].loss.per`` as ``["links", 1, "loss", "per"]``."""
    parts: list[str | int] = []
    for piece in path.split("."):
        name, _, rest = piece.partition("[")
        if name:
            parts.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            if not index.isdigit():
                return []
            parts.append(int(index))
            rest = rest.lstrip("[")
    return parts


def toml_line(text: str, path: str) -> int | None:
    """The line of a TOML file that sets the field ``path`` (``links[1].rate``), if found.

    Understands top-level keys, ``[table]`` and ``[[array]]`` headers and keys
    inside them (an inline table counts as the line of its key); anything else
    gives None.
    """
    want = _path_parts(path)
    if not want:
        return None
    header: list[str | int] = []
    counts: dict[str, int] = {}
    best: tuple[int, int] | None = None  # (matched parts, line)
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("[["):
            name = s[2:s.find("]]")].strip()
            counts[name] = counts.get(name, 0) + 1
            header = [*name.split("."), counts[name] - 1]
            key: list[str | int] = []
        elif s.startswith("["):
            header = list(s[1:s.find("]")].strip().split("."))
            key = []
        else:
            name, eq, _ = s.partition("=")
            if not eq:
                continue
            key = [k.strip().strip('"') for k in name.split(".")]
        here = header + key
        n = 0
        while n < min(len(here), len(want)) and here[n] == want[n]:
            n += 1
        # A header line counts only once the whole header matches.
        if n == len(here) and n > 0 and (best is None or n > best[0]):
            best = (n, lineno)
    if best is None or best[0] < min(2, len(want)):
        return None
    return best[1]


def resolve_trace_paths(data: dict[str, Any], base: Any) -> None:
    """Make each ``links[i].rate = { trace = ... }`` path absolute, from ``base``."""
    links = data.get("links")
    for link in links if isinstance(links, list) else []:
        for key in ("rate", "reverse_rate"):
            rate = link.get(key) if isinstance(link, dict) else None
            if isinstance(rate, dict) and isinstance(rate.get("trace"), str) and rate["trace"]:
                path = os.path.expanduser(rate["trace"])
                rate["trace"] = os.path.abspath(os.path.join(os.fspath(base), path))
