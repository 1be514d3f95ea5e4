"""Writing output files safely: never through a symlink, never half-written.

Every file tcplab writes for a user (results, tables, traces, figures) goes
through :func:`atomic_write`: the data goes to a new file in the same
directory, created exclusively (so a name planted there in advance, a symlink
included, is never opened), and is then renamed over the destination. A
rename replaces a symlink itself, not the file it points to, and a reader
never sees a file half written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[Any]], Any], *,
                 binary: bool = False) -> Path:
    """Create or replace ``path`` with what ``write(file)`` writes; return the path."""
    dest = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"newline": ""})) as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return dest


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Create or replace ``path`` with ``text`` (UTF-8)."""
    return atomic_write(path, lambda f: f.write(text.encode()), binary=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
