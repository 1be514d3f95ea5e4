"""`tcplab traces download` and where tcplab finds mahimahi's traces (tcplab.traces).

Every download here is from an HTTP server on 127.0.0.1 in a thread, serving
a temporary copy of the traces the tests use (../shared/traces/mahimahi in
CI), or from a closed port on 127.0.0.1: no test contacts another address.
The real URLs (raw.githubusercontent.com) are not fetched by any test.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tcplab import traces

LAST = list(traces.MAHIMAHI)[-1]  # the last file fetched


@pytest.fixture(autouse=True)
def local_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy (127.0.0.1 is fetched directly), no user's settings, a private default folder."""
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                "ALL_PROXY", traces.DIR_ENV, traces.URL_ENV):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.requests.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 serving ``folder``: (base URL, paths requested)."""
    requests: list[str] = []
    handler = type("Handler", (_Quiet,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def mirror(tmp_path: Path, mahimahi_traces: Path) -> Path:
    """A copy of the traces the tests use, to serve (and to damage)."""
    folder = tmp_path / "served"
    folder.mkdir()
    for name in traces.MAHIMAHI:
        shutil.copyfile(mahimahi_traces / name, folder / name)
    return folder


@pytest.fixture
def server(mirror: Path) -> Iterator[tuple[str, list[str]]]:
    with serve(mirror) as s:
        yield s


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def command(argv: list[str]) -> int:
    """``tcplab traces ...`` through the module's own parser, as cli.py registers it."""
    p = argparse.ArgumentParser(prog="tcplab")
    traces.add_parser(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    return args.func(args)


# ---- the recorded files ---------------------------------------------------------


def test_the_recorded_sha256s_are_those_of_the_traces_tcplab_uses(mahimahi_traces: Path) -> None:
    from tcplab import presets

    for name, (digest, size) in traces.MAHIMAHI.items():
        assert sha256(mahimahi_traces / name) == digest, name
        assert (mahimahi_traces / name).stat().st_size == size, name
    # Every trace pair the cellular study runs is among them, and nothing else is needed.
    pairs = {n.rsplit(".", 1)[0] for n in traces.MAHIMAHI}
    assert pairs == set(presets.CELLULAR_TRACES)
    assert traces.MAHIMAHI_COMMIT in traces.BASE_URL
    assert traces.BASE_URL.startswith("https://raw.githubusercontent.com/ravinet/mahimahi/")


# ---- the download -----------------------------------------------------------------


def test_download_fetches_checks_and_places_every_trace(tmp_path: Path, server, capsys) -> None:
    url, requests = server
    dest = tmp_path / "out" / "mahimahi"  # made, parents too
    assert command(["traces", "download", str(dest), "--base-url", url]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in dest.iterdir()) == sorted(traces.MAHIMAHI)  # no temp files
    for name, (digest, _) in traces.MAHIMAHI.items():
        assert sha256(dest / name) == digest
        assert f"{name}: " in out and "sha256 ok" in out
    assert sorted(requests) == sorted(f"/{n}" for n in traces.MAHIMAHI)
    # Where they went, and how to use them.
    assert f"8 mahimahi traces in {dest.resolve()}" in out
    assert f"--traces {dest.resolve()}" in out and f"{traces.DIR_ENV}={dest.resolve()}" in out
    # Again: the files there are checked and kept, nothing fetched.
    assert command(["traces", "download", str(dest), "--base-url", url]) == 0
    assert len(requests) == len(traces.MAHIMAHI)
    assert capsys.readouterr().out.count("already there, sha256 ok") == len(traces.MAHIMAHI)


def test_a_damaged_file_in_the_folder_is_fetched_again_and_a_symlink_replaced(
        tmp_path: Path, server) -> None:
    url, requests = server
    dest = tmp_path / "dest"
    dest.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not to be touched\n")
    (dest / LAST).symlink_to(elsewhere)
    first = list(traces.MAHIMAHI)[0]
    (dest / first).write_text("1\n")
    paths = traces.download(dest, url=url)
    assert paths == [dest / n for n in traces.MAHIMAHI]
    assert not (dest / LAST).is_symlink() and sha256(dest / LAST) == traces.MAHIMAHI[LAST][0]
    assert sha256(dest / first) == traces.MAHIMAHI[first][0]
    assert elsewhere.read_text() == "not to be touched\n"


def test_the_default_folder_is_where_tcplab_then_finds_them(tmp_path: Path, server,
                                                          monkeypatch, capsys) -> None:
    url, _ = server
    monkeypatch.setenv(traces.URL_ENV, url)  # the base URL from the environment
    monkeypatch.chdir(tmp_path)  # no ../shared from here
    default = tmp_path / "xdg" / "tcplab" / "traces" / "mahimahi"
    assert traces.default_dir() == default
    assert command(["traces", "download"]) == 0
    out = capsys.readouterr().out
    assert f"in {default}" in out and "tcplab finds them there" in out
    assert not traces.missing_files(default)
    assert traces.resolve() == default


@pytest.mark.parametrize("damage", ["a changed byte", "a longer file", "a shorter file"])
def test_a_checksum_mismatch_is_one_line_naming_the_file_expected_and_got(
        tmp_path: Path, mirror: Path, damage: str, capsys) -> None:
    data = bytearray((mirror / LAST).read_bytes())
    if damage == "a changed byte":
        data[100] ^= 1
    elif damage == "a longer file":
        data += b"99999\n"
    else:
        del data[-20:]
    (mirror / LAST).write_bytes(bytes(data))
    dest = tmp_path / "dest"
    with serve(mirror) as (url, _):
        assert command(["traces", "download", str(dest), "--base-url", url]) == 1
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: traces download: ")
    assert f"{LAST} from {url}{LAST}: " in lines[0]
    if damage != "a longer file":
        assert f"sha256 {hashlib.sha256(bytes(data)).hexdigest()}" in lines[0]
        assert f"expected {traces.MAHIMAHI[LAST][0]}" in lines[0]
    else:
        assert f"more than the expected {traces.MAHIMAHI[LAST][1]} bytes" in lines[0]
    # That file is not written, and no temporary file is left; the ones before it are.
    assert sorted(p.name for p in dest.iterdir()) == sorted(set(traces.MAHIMAHI) - {LAST})


def test_an_unreachable_server_is_one_line_and_exit_1(tmp_path: Path, capsys) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    dest = tmp_path / "dest"
    assert command(["traces", "download", str(dest), "--base-url", url, "--timeout", "5"]) == 1
    err = capsys.readouterr().err
    first = list(traces.MAHIMAHI)[0]
    assert err == (f"error: traces download: cannot fetch {first} from {url}{first}: "
                   "Connection refused; nothing written\n")
    assert list(dest.iterdir()) == []


def test_a_silent_server_times_out_in_one_line(tmp_path: Path, capsys) -> None:
    with socket.socket() as s:  # listens, never answers
        s.bind(("127.0.0.1", 0))
        s.listen()
        url = f"http://127.0.0.1:{s.getsockname()[1]}/"
        code = command(["traces", "download", str(tmp_path / "d"), "--base-url", url,
                        "--timeout", "0.3"])
    assert code == 1
    assert capsys.readouterr().err.endswith(": timed out; nothing written\n")
    assert list((tmp_path / "d").iterdir()) == []


def test_a_missing_file_on_the_server_is_one_line_and_exit_1(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    with serve(tmp_path / "empty") as (url, _):
        assert command(["traces", "download", str(tmp_path / "d"), "--base-url", url]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: traces download: cannot fetch ") and "HTTP 404" in err
    assert err.count("\n") == 1


def test_bad_arguments_exit_2(tmp_path: Path, capsys) -> None:
    assert command(["traces", "download", str(tmp_path), "--base-url", "ftp://x/"]) == 2
    assert "not http://, https:// or file://" in capsys.readouterr().err
    for bad in ("0", "-1", "nan", "x"):
        with pytest.raises(SystemExit):  # argparse's own exit 2 (tcplab's parser: one line)
            command(["traces", "download", "--timeout", bad])
    capsys.readouterr()
    (tmp_path / "file").write_text("")
    url = f"http://127.0.0.1:{closed_port()}/"
    assert command(["traces", "download", str(tmp_path / "file"), "--base-url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: traces download: {tmp_path / 'file'}: ") and \
        err.count("\n") == 1


def test_ctrl_c_mid_file_leaves_no_partial_file(tmp_path: Path, monkeypatch) -> None:
    import urllib.request

    class Interrupted:
        def __init__(self) -> None:
            self.blocks = 0

        def __enter__(self) -> Interrupted:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def read(self, n: int) -> bytes:
            self.blocks += 1
            if self.blocks > 1:
                raise KeyboardInterrupt
            return b"1\n" * 100

    monkeypatch.setattr(urllib.request, "urlopen", lambda req, timeout: Interrupted())
    with pytest.raises(KeyboardInterrupt):  # the CLI's main turns it into exit 130
        traces.download(tmp_path / "d", url="http://127.0.0.1:9/")
    assert list((tmp_path / "d").iterdir()) == []


def test_a_file_url_serves_a_local_mirror(tmp_path: Path, mirror: Path) -> None:
    paths = traces.download(tmp_path / "d", url=mirror.as_uri())
    assert [sha256(p) for p in paths] == [d for d, _ in traces.MAHIMAHI.values()]


# ---- where tcplab finds them -------------------------------------------------------


def test_the_folder_resolves_through_the_argument_the_environment_then_the_defaults(
        tmp_path: Path, mirror: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    default = traces.default_dir()
    shared = [d for d in traces.shared_dirs() if not traces.missing_files(d)]
    # Nothing downloaded: ../shared/traces/mahimahi, where CI has them (or nothing).
    assert traces.resolve() == (shared[0] if shared else None)
    # Downloaded: the download's folder comes first.
    shutil.copytree(mirror, default)
    assert traces.resolve() == default
    # An incomplete download's folder is passed over.
    (default / LAST).unlink()
    assert traces.resolve() == (shared[0] if shared else None)
    # TCPLAB_TRACES, then the argument (--traces), taken as given.
    monkeypatch.setenv(traces.DIR_ENV, str(tmp_path / "env"))
    assert traces.resolve() == tmp_path / "env"
    assert traces.resolve(mirror) == mirror
    folder, missing = traces.missing(None, "Verizon-LTE-short")
    assert folder == tmp_path / "env"
    assert missing == f"no trace Verizon-LTE-short.down in {tmp_path / 'env'} (TCPLAB_TRACES)"
    assert traces.missing(mirror, "Verizon-LTE-short") == (mirror, None)
    # XDG_DATA_HOME decides the download's folder; a relative one is ignored.
    monkeypatch.setenv("XDG_DATA_HOME", "relative")
    assert traces.default_dir() == Path.home() / ".local/share/tcplab/traces/mahimahi"


def test_the_cellular_study_finds_its_traces_through_the_resolver(
        tmp_path: Path, mirror: Path, monkeypatch) -> None:
    from tcplab import studies

    monkeypatch.setenv(traces.DIR_ENV, str(mirror))
    assert studies._traces(None) == str(mirror.resolve())
    assert studies._traces(mirror) == str(mirror.resolve())
    monkeypatch.setenv(traces.DIR_ENV, str(tmp_path / "none"))
    with pytest.raises(FileNotFoundError, match="tcplab traces download") as e:
        studies._traces(None)
    assert "TCPLAB_TRACES" in str(e.value) and "--traces" in str(e.value)


# ---- bench/hashes.py without the traces ----------------------------------------------


def test_hashes_reports_the_trace_cases_as_skipped_and_exits_0(
        tmp_path: Path, monkeypatch, capsys, bench_script) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # hashes.py adds bench/ and examples/
    monkeypatch.setenv(traces.DIR_ENV, str(tmp_path / "none"))
    m = bench_script("hashes")
    names = [n for n, _ in m.cases()]
    assert names and not any("cellular" in n for n in names)
    assert "tcplab traces download" in m.SKIPPED["quick study cellular run "]

    # The comparison: one case run, three cellular ones skipped.
    expected = {"example a.toml": {"flows.csv": "0123"},
                **{f"quick study cellular run {i}": {"flows.csv": "4567"} for i in range(3)}}
    monkeypatch.setattr(m, "EXPECTED", tmp_path / "hashes.json")
    monkeypatch.setattr(m, "cases", lambda: iter([("example a.toml", lambda: None)]))
    monkeypatch.setattr(m, "digest", lambda res: {"flows.csv": "0123"})

    def main(*argv: str) -> int:
        m.EXPECTED.write_text(json.dumps(expected))
        monkeypatch.setattr(sys, "argv", ["hashes.py", *argv])
        with pytest.raises(SystemExit) as e:
            m.main()
        return e.value.code or 0

    assert main() == 0
    out = capsys.readouterr().out
    assert "SKIPPED    quick study cellular run... (3 cases): no mahimahi traces" in out
    assert "MISSING" not in out and "1 of 1 cases identical to bench/hashes.json, 3 skipped" in out
    # Anything else missing still fails; so does recording without every case.
    expected["example b.toml"] = {"flows.csv": "89ab"}
    assert main() == 1
    assert "MISSING    example b.toml" in capsys.readouterr().out
    assert main("--record") != 0
    assert "example b.toml" in json.loads(m.EXPECTED.read_text())  # not overwritten


# ---- the real command, once cli.py registers it ------------------------------------


def _registered() -> bool:
    out = subprocess.run([sys.executable, "-m", "tcplab.cli", "--help"], capture_output=True,
                         text=True, check=False).stdout
    return re.search(r"\{[^}]*\btraces\b[^}]*\}", out) is not None


needs_cli = pytest.mark.skipif(not _registered(), reason="tcplab traces is not in cli.py yet")


def tcplab(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TCPLAB_TRACEBACK": ""}
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *argv], capture_output=True,
                          text=True, env=env, check=False, timeout=120)


@needs_cli
def test_tcplab_traces_download_on_the_command_line(tmp_path: Path, server, mirror) -> None:
    url, _ = server
    dest = tmp_path / "dest"
    r = tcplab("traces", "download", str(dest), "--base-url", url)
    assert r.returncode == 0, r.stderr
    assert f"8 mahimahi traces in {dest.resolve()}" in r.stdout
    assert [sha256(dest / n) for n in traces.MAHIMAHI] == \
        [d for d, _ in traces.MAHIMAHI.values()]
    # A mismatch and an unreachable server: exit 1, one line, no traceback.
    (mirror / LAST).write_text("1\n")
    r = tcplab("traces", "download", str(tmp_path / "d2"), "--base-url", url)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"{LAST} from {url}{LAST}: sha256 " in r.stderr
    r = tcplab("traces", "download", str(tmp_path / "d3"), "--base-url",
               f"http://127.0.0.1:{closed_port()}/")
    assert r.returncode == 1 and "Connection refused" in r.stderr
    assert r.stderr.count("\n") == 1
    # No action is a usage error.
    assert tcplab("traces").returncode == 2
