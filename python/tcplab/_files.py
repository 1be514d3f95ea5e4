"""Writing output files safely, and reading only regular files.

Writing: never through a symlink, never half-written.

Every file tcplab writes for a user (results, tables, traces, figures) goes
through :func:`atomic_write`: the data goes to a new file in the same
directory, created exclusively (so a name planted there in advance, a symlink
included, is never opened), and is then renamed over the destination. A
rename replaces a symlink itself, not the file it points to, and a reader
never sees a file half written.

Reading: a file a scenario names (a CDF file, a scenario file) is read only
if it is a regular file (:func:`special_kind`). Opening a FIFO blocks until
something writes to it, and a device may never end, out of reach of Ctrl-C.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[Any]], Any], *,
                 binary: bool = False) -> Path:
    """Create or replace ``path`` with what ``write(file)`` writes; return the path."""
    dest = Path(path)
    import tempfile  # here: it loads shutil, which `tcplab run` never needs otherwise

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


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is if it exists and is not a regular file ("a FIFO (named pipe)", ...).

    None for a regular file (through symlinks) and for a path that cannot be
    looked at: the reader then says why it cannot be read.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"
