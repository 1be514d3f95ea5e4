"""mahimahi's cellular traces: where tcplab finds them, and ``tcplab traces download``.

The ``cellular`` study, its figure (docs/figures/cellular.py), bench/hashes.py
and some tests replay four trace pairs of mahimahi's repository
(github.com/ravinet/mahimahi, folder traces/). The project does not ship
them. Their folder is, first found:

1. the folder named by ``--traces DIR`` (or a ``traces=`` argument);
2. the folder named by the environment variable ``TCPLAB_TRACES``;
3. the download's folder, :func:`default_dir` (``$XDG_DATA_HOME/tcplab/traces/mahimahi``,
   by default ``~/.local/share/tcplab/traces/mahimahi``), when it holds them all;
4. ``../shared/traces/mahimahi`` beside the project (what CI uses), when it holds them all.

:func:`resolve` is that rule, the one place tcplab looks them up.

``tcplab traces download [DIR]`` fetches the eight files (:data:`MAHIMAHI`)
from mahimahi's repository at a fixed commit (:data:`BASE_URL`, or
``--base-url`` / ``TCPLAB_TRACES_URL`` for a mirror), checks each against its
recorded SHA-256 and size, and renames it into DIR only then.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

#: The commit of github.com/ravinet/mahimahi the files are fetched at: the
#: files' bytes there are those recorded in :data:`MAHIMAHI`.
MAHIMAHI_COMMIT = "ae477d437615b972217498ba52be07db17a15618"

#: Where ``tcplab traces download`` fetches from: each file is BASE_URL + its name.
BASE_URL = f"https://raw.githubusercontent.com/ravinet/mahimahi/{MAHIMAHI_COMMIT}/traces/"

#: The environment variables: the traces' folder, and another base URL (a mirror).
DIR_ENV, URL_ENV = "TCPLAB_TRACES", "TCPLAB_TRACES_URL"

#: Each file the project uses: name -> (SHA-256, size in bytes), recorded from
#: ../shared/traces/mahimahi (the same bytes as mahimahi's repository at
#: :data:`MAHIMAHI_COMMIT`).
MAHIMAHI: dict[str, tuple[str, int]] = {
    "ATT-LTE-driving-2016.down":
        ("24a40538340de991e0a6595aefc381b11a3da0446176e69b51750707a57b0344", 271440),
    "ATT-LTE-driving-2016.up":
        ("ebb3d53674b77be4ed920ad91c4513a496e04e30da839e2ca8a627cb7269071e", 113062),
    "TMobile-UMTS-driving.down":
        ("c97a74e7e6cf593d93b59f73db614bc6186bef510531636ad9961a3b9fc18024", 1081622),
    "TMobile-UMTS-driving.up":
        ("f2dc7c8e57f4cf525fefaff2d68c18a9118fd1382ce9c240b1d324a2a60f8a65", 506697),
    "Verizon-EVDO-driving.down":
        ("60c9cd7b5d8be7d89d3807052a043f54787958f04cfd4c6c16fcdac6e2c3b9da", 321953),
    "Verizon-EVDO-driving.up":
        ("6055d60d234030035f59475dc1d39d99e7c2817b9fa5d485f1f0710b1aae2075", 520867),
    "Verizon-LTE-short.down":
        ("c918436fbd6246af134c76585d9395881fdd27203c59a8902b9a7c675b8a8e3e", 365580),
    "Verizon-LTE-short.up":
        ("f6cd9049f58d70f12545772a3482ded085b6d50f06a2f4ff4afcfb6fe7976dcc", 434258),
}

#: What to tell a user whose traces are missing.
HELP = ("mahimahi's cellular traces (Verizon-LTE-short.down, .up, ...): get them with "
        "`tcplab traces download` (from github.com/ravinet/mahimahi, folder traces/), or name "
        f"their folder with --traces DIR or {DIR_ENV}=DIR")

# Exit codes, as tcplab.cli's (not imported: the CLI imports this module).
_OK, _FAILED, _USAGE = 0, 1, 2
_SCHEMES = ("http://", "https://", "file://")


class DownloadError(Exception):
    """A file could not be fetched, or its bytes are not the recorded ones."""


# ---- where the traces are ---------------------------------------------------------


def default_dir() -> Path:
    """The download's folder: ``$XDG_DATA_HOME/tcplab/traces/mahimahi``.

    ``XDG_DATA_HOME`` defaults to ``~/.local/share`` (``%LOCALAPPDATA%`` on Windows).
    """
    data = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data):
        data = os.environ.get("LOCALAPPDATA", "") if os.name == "nt" else ""
        data = data or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "tcplab" / "traces" / "mahimahi"


def shared_dirs() -> list[Path]:
    """``../shared/traces/mahimahi`` from the working directory and from the source tree."""
    tail = Path("shared", "traces", "mahimahi")
    out = []
    for base in (Path.cwd().parent, Path(__file__).resolve().parents[3]):
        if base / tail not in out:
            out.append(base / tail)
    return out


def missing_files(folder: str | os.PathLike[str],
                  names: Mapping[str, object] | None = None) -> list[str]:
    """The names of :data:`MAHIMAHI` (or ``names``) that are not files in ``folder``."""
    return [n for n in (MAHIMAHI if names is None else names)
            if not (Path(folder) / n).is_file()]


def resolve(traces: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder of mahimahi's traces, by the rule of this module's docstring.

    ``traces`` (as ``--traces``) or ``$TCPLAB_TRACES`` is taken as given,
    whether or not it holds them (the caller names what is missing); the
    default places only when they hold every file. None when nothing is named
    and no default place holds them.
    """
    if traces is not None and str(traces) != "":
        return Path(traces)
    env = os.environ.get(DIR_ENV, "")
    if env:
        return Path(env)
    for d in (default_dir(), *shared_dirs()):
        if not missing_files(d):
            return d
    return None


def looked_in(traces: str | os.PathLike[str] | None = None) -> str:
    """Where :func:`resolve` looks, in words, for a message."""
    if traces is not None and str(traces) != "":
        return f"in {traces}"
    if os.environ.get(DIR_ENV, ""):
        return f"in {os.environ[DIR_ENV]} ({DIR_ENV})"
    return "in " + " or ".join(str(d) for d in (default_dir(), *shared_dirs()))


def missing(traces: str | os.PathLike[str] | None, name: str) -> tuple[Path | None, str | None]:
    """The traces' folder (:func:`resolve`) and what is missing from it (None if nothing).

    ``name`` is a trace pair (``Verizon-LTE-short``): missing is its ``.down``.
    """
    folder = resolve(traces)
    if folder is not None and (folder / f"{name}.down").is_file():
        return folder, None
    named = (traces is not None and str(traces) != "") or os.environ.get(DIR_ENV, "")
    where = looked_in(traces) if named or folder is None else f"in {folder}"
    return folder, f"no trace {name}.down {where}"


# ---- the download -----------------------------------------------------------------


def _sha256_of(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def _reason(e: BaseException) -> str:
    """A network error in a few words: "Connection refused", "HTTP 404 Not Found"."""
    from urllib.error import HTTPError, URLError

    if isinstance(e, HTTPError):
        return f"HTTP {e.code} {e.reason}"
    if isinstance(e, URLError):
        e = e.reason if isinstance(e.reason, BaseException) else Exception(str(e.reason))
    if isinstance(e, TimeoutError):
        return "timed out"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return " ".join(str(e).split()) or type(e).__name__


def _fetch(url: str, dest: Path, sha256: str, size: int, timeout: float) -> None:
    """Fetch ``url`` into a new file beside ``dest``, check it, rename it to ``dest``.

    Written through :func:`tcplab._files.atomic_write`: a download that
    fails or does not match its sha256 raises inside the write and leaves
    nothing behind.
    """
    import hashlib
    import http.client
    import urllib.request

    from tcplab import __version__
    from tcplab._files import atomic_write

    def download(out: IO[bytes]) -> None:
        h, n = hashlib.sha256(), 0
        req = urllib.request.Request(url, headers={"User-Agent": f"tcplab/{__version__}"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                while block := r.read(1 << 16):
                    n += len(block)
                    if n > size:
                        raise DownloadError(f"{dest.name} from {url}: more than the "
                                            f"expected {size} bytes; not written")
                    h.update(block)
                    out.write(block)
        except (OSError, http.client.HTTPException, ValueError) as e:
            if hasattr(e, "close"):  # an HTTPError holds its response open
                e.close()
            raise DownloadError(f"cannot fetch {dest.name} from {url}: {_reason(e)}; "
                                "nothing written") from None
        got = h.hexdigest()
        if got != sha256:
            raise DownloadError(f"{dest.name} from {url}: sha256 {got} ({n} bytes), expected "
                                f"{sha256} ({size} bytes); not written")

    atomic_write(dest, download, binary=True)  # replaces a symlink at dest, never follows it


def base_url(url: str | None = None) -> str:
    """The base URL: ``url``, else ``$TCPLAB_TRACES_URL``, else :data:`BASE_URL`; ends in /."""
    url = url or os.environ.get(URL_ENV, "") or BASE_URL
    if not url.lower().startswith(_SCHEMES):
        raise ValueError(f"base URL {url!r}: not http://, https:// or file://")
    return url if url.endswith("/") else url + "/"


def download(dest: str | os.PathLike[str] | None = None, *, url: str | None = None,
             files: Mapping[str, tuple[str, int]] | None = None, timeout: float = 60.0,
             report: Callable[[str], None] | None = None) -> list[Path]:
    """Fetch mahimahi's traces into ``dest`` (default :func:`default_dir`); return their paths.

    Each file of ``files`` (name -> (sha256, size); default :data:`MAHIMAHI`)
    is fetched from :func:`base_url` + name into a new file in ``dest``,
    checked against its SHA-256 and size, and only then renamed to its
    name. A file already there with the recorded SHA-256 is kept. ``report``
    gets one line per file. Raises :class:`DownloadError` (network failure,
    wrong bytes: that file is not written, the ones before it stay),
    ``ValueError`` (a base URL that is not http, https or file) and
    ``OSError`` (``dest`` cannot be written).
    """
    base = base_url(url)
    folder = Path(dest) if dest is not None else default_dir()
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(folder))
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (sha256, size) in (MAHIMAHI if files is None else files).items():
        path = folder / name
        if path.is_file() and not path.is_symlink() and _sha256_of(path) == sha256:
            if report:
                report(f"{name}: already there, sha256 ok")
        else:
            _fetch(base + name, path, sha256, size, timeout)
            if report:
                report(f"{name}: {size:,} bytes, sha256 ok")
        paths.append(path)
    return paths


# ---- the command ------------------------------------------------------------------


def seconds_arg(text: str) -> float:
    """A command-line number of seconds above 0 (argparse's ``type=``)."""
    try:
        x = float(text)
    except ValueError:
        x = float("nan")
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return x


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``tcplab traces download [DIR]`` on the CLI's subparsers; return ``traces``."""
    t = sub.add_parser("traces", help="get mahimahi's cellular traces for the cellular study "
                       "(tcplab traces download)")
    actions = t.add_subparsers(dest="traces_action", metavar="{download}", required=True)
    d = actions.add_parser(
        "download", help="fetch mahimahi's traces and check their sha256",
        description="Fetch the mahimahi traces the cellular study, its figure, bench/hashes.py "
        "and the tests use (8 files, 3.6 MB) from github.com/ravinet/mahimahi, check each "
        "against its recorded sha256, and write it into DIR. Exit 1 on a network failure or a "
        "checksum mismatch (nothing of that file written), 2 on a DIR that cannot be written.")
    d.add_argument("dir", nargs="?", metavar="DIR",
                   help=f"where to put them (default: {default_dir()}, where tcplab looks "
                   f"after --traces and {DIR_ENV})")
    d.add_argument("--base-url", metavar="URL",
                   help=f"fetch each file from URL + its name (default: ${URL_ENV}, else "
                   "mahimahi's repository on raw.githubusercontent.com)")
    d.add_argument("--timeout", type=seconds_arg, default=60.0, metavar="SECONDS",
                   help="give up on a silent connection after this long (default 60)")
    t.set_defaults(func=cmd_traces)
    return t


def cmd_traces(args: argparse.Namespace) -> int:
    """``tcplab traces download [DIR]``: fetch, check and place mahimahi's traces."""
    if getattr(args, "traces_action", "download") != "download":
        print(f"error: traces: no action {args.traces_action!r} (download)", file=sys.stderr)
        return _USAGE
    dest = Path(args.dir) if getattr(args, "dir", None) else default_dir()
    try:
        paths = download(dest, url=getattr(args, "base_url", None),
                         timeout=getattr(args, "timeout", 60.0),
                         report=lambda line: print(line, flush=True))
    except DownloadError as e:
        print(f"error: traces download: {e}", file=sys.stderr)
        return _FAILED
    except ValueError as e:
        print(f"error: traces download: {e}", file=sys.stderr)
        return _USAGE
    except OSError as e:  # dest cannot be made or written
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: traces download: {where}{e.strerror or e}", file=sys.stderr)
        return _USAGE
    where = dest.resolve()
    print(f"{len(paths)} mahimahi traces in {where}")
    found = resolve()
    if found is not None and found.resolve() == where:
        print("tcplab finds them there: tcplab reproduce cellular needs no --traces")
    else:
        print(f"to use them, pass --traces {where} or set {DIR_ENV}={where}"
              + (f" (otherwise tcplab uses {found})" if found is not None else ""))
    return _OK
