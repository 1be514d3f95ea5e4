"""Linux's packetdrill scripts on this machine's real kernel: the baseline of issue 54.

Builds google/packetdrill from a local clone (never vendored: ``--src DIR``, default
``~/.cache/tcplab/packetdrill``), then runs both reference corpora against the running
kernel, each script in a network namespace of its own (``unshare -n``, loopback up, as the
kernel's ``ksft_runner.sh`` does), IPv4 unless the script pins its IP version:

* google: ``../shared/reference/packetdrill/google/gtests/net/tcp/**/*.pkt`` (the scripts
  source google's ``gtests/net/common/defaults.sh`` themselves);
* linux: ``../shared/reference/packetdrill/linux/*.pkt`` (they source ``./defaults.sh``).

Each script ends as pass, fail (packetdrill's first error line) or error (a reason that is
the machine's, not the script's: a refused sysctl, a missing feature, a timeout). The corpora
are copied to a scratch folder first, so that a link stored as a text file can be made a
link again and nothing is written next to the reference files.

A non-initial namespace may only make a congestion control the default if it is in the main
namespace's ``net.ipv4.tcp_allowed_congestion_control``: where that list lacks cubic,
defaults.sh's ``tcp_congestion_control=cubic`` is refused and the scripts run on the host's
default. ``--allow-cubic`` adds cubic to that list for the run and restores it afterwards.

    sudo python bench/packetdrill_kernel.py --src ~/.cache/tcplab/packetdrill --allow-cubic
    python bench/packetdrill_kernel.py --only sack --jobs 2 --json /tmp/pd.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

REF = Path(__file__).resolve().parents[2] / "shared" / "reference" / "packetdrill"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tcplab"
DEFAULT_SRC = CACHE / "packetdrill"
DEFAULT_JSON = CACHE / "packetdrill_kernel.json"
UPSTREAM = "https://github.com/google/packetdrill"
ALLOWED_CC = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")

# The addresses and defines of the kernel's ksft_runner.sh, per IP version.
IP_ARGS = {
    "ipv4": ["--ip_version=ipv4", "--local_ip=192.168.0.1", "--gateway_ip=192.168.0.1",
             "--netmask_ip=255.255.0.0", "--remote_ip=192.0.2.1",
             "-D", "TFO_COOKIE=3021b9d889017eeb", "-D", "TFO_COOKIE_ZERO=b7c12350a90dc8f5",
             "-D", "CMSG_LEVEL_IP=SOL_IP", "-D", "CMSG_TYPE_RECVERR=IP_RECVERR"],
    "ipv6": ["--ip_version=ipv6", "--mtu=1520", "--local_ip=fd3d:0a0b:17d6::1",
             "--gateway_ip=fd3d:0a0b:17d6:8888::1", "--remote_ip=fd3d:fa7b:d17d::1",
             "-D", "TFO_COOKIE=c1d1e9742a47a9bc", "-D", "TFO_COOKIE_ZERO=82af1a8f9a205c34",
             "-D", "CMSG_LEVEL_IP=SOL_IPV6", "-D", "CMSG_TYPE_RECVERR=IPV6_RECVERR"],
}
# What google's own run_all.py adds: zerocopy buffers are not reused, ICMP code for IPv4.
GOOGLE_EXTRA = {"ipv4": ["--send_omit_free", "-D", "CODE=host_unreachable"],
                "ipv6": ["--send_omit_free"]}
ADDRESS_OPTS = {"local_ip", "remote_ip", "gateway_ip", "netmask_ip"}
LINUX_ONLY_TOPICS = ("accecn", "advmss_pmtu", "basic", "disorder", "dsack", "ooo", "rcv", "rto",
                     "syncookies")

# Runs inside the new namespace: refuse to go on in the main one, bring lo up, exec packetdrill.
NS_WRAP = ('ns=$(readlink /proc/self/ns/net); '
           '[ -n "$ns" ] && [ -n "$TCPLAB_MAIN_NETNS" ] && [ "$ns" != "$TCPLAB_MAIN_NETNS" ] || '
           '{ echo "tcplab: not in a new network namespace, refusing" >&2; exit 97; }; '
           'ip link set lo up || exit 98; exec "$0" "$@"')
NS_REFUSED = 97
SLOW_USECS = 14000

ERRNO_MISSING = ("Operation not supported", "Protocol not available", "Function not implemented",
                 "Protocol not supported")
ENV_COMMANDS = ("sysctl", "tc", "ip", "ethtool")
CC_REFUSED = re.compile(r'setting key "net\.ipv4\.tcp_congestion_control": Operation not permitted')
SYSCTL_WARN = re.compile(r"^sysctl: .*$", re.M)
QDISC_UNKNOWN = "Specified qdisc kind is unknown"
NOT_FOUND = re.compile(r"^sh: (?:\d+: )?(\S+): (?:command )?not found", re.M)
LOC = re.compile(r"^\S+\.pkt:(\d+): ")


@dataclass
class Script:
    """One .pkt file of a corpus, as staged in the scratch folder."""

    corpus: str
    topic: str
    name: str
    path: Path
    ip_version: str = "ipv4"
    pinned: dict[str, str] = field(default_factory=dict)  # the script's own --name=value lines


@dataclass
class Outcome:
    """How one script ended on the real kernel."""

    corpus: str
    topic: str
    script: str
    ip_version: str
    pinned: dict[str, str]
    outcome: str  # pass | fail | error
    reason: str = ""
    line: int | None = None
    first_error: str = ""
    detail: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    retry_slow: str = ""  # a timing failure rerun at ksft's slow-machine tolerance


def need_tools() -> None:
    """Stop with an install hint when a build or run tool is missing."""
    missing = [t for t in ("make", "bison", "flex", "unshare", "ip", "tc", "git", "ethtool")
               if shutil.which(t) is None]
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        missing.append("gcc")
    if missing:
        sys.exit(f"missing tools: {', '.join(missing)}\n"
                 "  install them, e.g.: apt-get install -y gcc make bison flex iproute2 "
                 "util-linux git ethtool")
    if os.geteuid() != 0:
        sys.exit("packetdrill needs root (a tun device, sysctls and namespaces)")
    if not Path("/dev/net/tun").exists():
        sys.exit("no /dev/net/tun: packetdrill injects its packets through a tun device")


def git_out(*args: str) -> str | None:
    """A git command's output, or None if it fails."""
    r = subprocess.run(["git", *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def prepare_source(src: Path) -> tuple[Path, str]:
    """The packetdrill source folder to build in, and the commit it is from.

    ``src`` is a clone of google/packetdrill (or its packetdrill folder), or a bare mirror:
    a bare one is exported (``git archive``) into the cache, keyed by commit.
    """
    src = src.expanduser().resolve()
    if not src.exists():
        sys.exit(f"no packetdrill source at {src}\n  get it once with:  git clone {UPSTREAM} {src}"
                 "\n  (or pass --src DIR: a clone, its gtests/net/packetdrill, or a bare mirror)")
    if git_out("--git-dir", str(src), "rev-parse", "--is-bare-repository") == "true":
        commit = git_out("--git-dir", str(src), "rev-parse", "HEAD") or "unknown"
        out = CACHE / f"packetdrill-{commit[:12]}"
        pd = out / "gtests" / "net" / "packetdrill"
        if not (pd / "packetdrill.c").exists():
            out.mkdir(parents=True, exist_ok=True)
            archive = subprocess.run(["git", "--git-dir", str(src), "archive", "HEAD",
                                      "gtests/net/packetdrill"], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
        return pd, commit
    pd = src / "gtests" / "net" / "packetdrill" if (src / "gtests").is_dir() else src
    if not (pd / "packetdrill.c").exists():
        sys.exit(f"{src} holds no packetdrill source (no gtests/net/packetdrill/packetdrill.c)")
    commit = git_out("-C", str(pd), "rev-parse", "HEAD") or "unknown (not a git checkout)"
    return pd, commit


def build(pd: Path) -> Path:
    """Build packetdrill with its own configure and Makefile; skip if it is up to date."""
    binary = pd / "packetdrill"
    sources = [p for p in pd.iterdir() if p.suffix in (".c", ".h", ".y", ".l")]
    if binary.exists() and all(p.stat().st_mtime <= binary.stat().st_mtime for p in sources):
        return binary
    print(f"building packetdrill in {pd}", flush=True)
    subprocess.run(["sh", "./configure"], cwd=pd, check=True)
    r = subprocess.run(["make", f"-j{os.cpu_count() or 2}", "packetdrill"], cwd=pd,
                       capture_output=True, text=True)
    if r.returncode != 0 or not binary.exists():
        sys.exit(f"packetdrill build failed:\n{(r.stdout + r.stderr)[-3000:]}")
    return binary


def fix_link_texts(root: Path) -> None:
    """A defaults.sh stored as the text of its symlink's target becomes that symlink again."""
    for p in root.rglob("defaults.sh"):
        if p.is_symlink() or p.stat().st_size > 200:
            continue
        target = p.read_text().strip()
        if target and "\n" not in target and (p.parent / target).is_file():
            p.unlink()
            p.symlink_to(target)


def make_runnable(root: Path) -> None:
    """Shell and Python helpers the scripts call must be executable in the staged copy."""
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            mode = p.stat().st_mode | 0o600
            if p.suffix in (".sh", ".py"):
                mode |= 0o700
            p.chmod(mode)


def topic_of_linux(name: str, known: set[str]) -> str:
    """``tcp_<topic>_<test>.pkt``: the longest known topic, else the first word."""
    rest = name.removeprefix("tcp_")
    best = ""
    for t in known:
        if rest.startswith(t) and rest[len(t):len(t) + 1] in ("_", "-") and len(t) > len(best):
            best = t
    return best or re.split(r"[_-]", rest, maxsplit=1)[0]


def pinned(path: Path) -> dict[str, str]:
    """The script's option lines (``--name=value`` or ``--name``), comments stripped."""
    opts = {}
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"--(\w+)(?:=(\S*))?", line.strip())
        if m:
            opts[m.group(1)] = m.group(2) or ""
    return opts


def ip_version(opts: dict[str, str], path: Path, corpus: str) -> str:
    """The script's ``--ip_version=`` line wins; google's runner also reads v4/v6 names."""
    if opts.get("ip_version") in ("ipv4", "ipv6"):
        return opts["ip_version"]
    return "ipv6" if corpus == "google" and path.name.endswith("v6.pkt") else "ipv4"


def new_script(corpus: str, topic: str, name: str, path: Path) -> Script:
    """A staged script with its pinned options and IP version."""
    opts = pinned(path)
    return Script(corpus, topic, name, path, ip_version(opts, path, corpus), opts)


def stage_own(own: Path, linux: Path, scratch: Path) -> list[Script]:
    """Copy tcplab's own scripts (tests/packetdrill) to ``scratch``, each reading the
    kernel selftests' defaults.sh from its own folder, and list them."""
    out = scratch / "own"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(linux / "defaults.sh", out / "defaults.sh")
    (out / "defaults.sh").chmod(0o755)
    scripts = []
    for p in sorted(own.glob("*.pkt")):
        text = re.sub(r"`[./]*shared/reference/packetdrill/linux/defaults\.sh",
                      "`./defaults.sh", p.read_text())
        (out / p.name).write_text(text)
        scripts.append(new_script("own", "own", p.name, out / p.name))
    return scripts


def stage(google: Path, linux: Path, scratch: Path) -> list[Script]:
    """Copy both corpora to ``scratch`` and list their scripts with topics."""
    scripts: list[Script] = []
    g_root = scratch / "google"
    if google.is_dir():
        shutil.copytree(google / "gtests" / "net", g_root / "gtests" / "net", symlinks=True)
        tcp = g_root / "gtests" / "net" / "tcp"
        fix_link_texts(g_root)
        make_runnable(g_root)
        for p in sorted(tcp.rglob("*.pkt")):
            rel = p.relative_to(tcp)
            scripts.append(new_script("google", rel.parts[0], str(rel), p))
    known = {p.name for p in (g_root / "gtests/net/tcp").iterdir() if p.is_dir()} \
        if google.is_dir() else set()
    known |= set(LINUX_ONLY_TOPICS)
    if linux.is_dir():
        shutil.copytree(linux, scratch / "linux", symlinks=True)
        make_runnable(scratch / "linux")
        for p in sorted((scratch / "linux").glob("*.pkt")):
            scripts.append(new_script("linux", topic_of_linux(p.stem, known), p.name, p))
    return scripts


def command(script: Script, binary: Path, tolerance: int | None) -> list[str]:
    """unshare -n, then packetdrill with the runner's addresses and defines.

    packetdrill lets its command line override a script's option lines; here an option the
    script sets itself is not passed, so the script's value holds. A script that sets its own
    addresses gets none of the runner's: packetdrill's defaults fill in the rest (gateway,
    netmask), as the script's own routes expect.
    """
    drop = set(script.pinned)
    if drop & {"local_ip", "remote_ip"}:
        drop |= ADDRESS_OPTS
    args = [a for a in IP_ARGS[script.ip_version]
            if a.split("=")[0].removeprefix("--") not in drop]
    if script.corpus == "google":
        args += GOOGLE_EXTRA[script.ip_version]
    if tolerance is not None:
        own = int(script.pinned.get("tolerance_usecs") or 0)
        args.append(f"--tolerance_usecs={max(tolerance, own)}")
    return ["unshare", "-n", "--", "sh", "-c", NS_WRAP, str(binary), *args, script.path.name]


def first_error(err: str) -> tuple[str, int | None, list[str]]:
    """packetdrill's first error line (without its file prefix), its script line, the rest."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        m = LOC.match(ln)
        if m:
            more = [x.strip() for x in lines[i + 4:] if re.match(r"\w*(Error|Exception)\b", x)]
            return ln[m.end():].strip(), int(m.group(1)), lines[i + 1:i + 4] + more[-1:]
    others = [ln for ln in lines if not ln.startswith("sysctl: ")]
    return (others[0].strip() if others else ""), None, others[1:4]


def set_up_command(cmd: str) -> bool:
    """A script's shell command that configures the machine (not one that checks a counter)."""
    words = re.findall(r"(?:^|[;&|]\s*)(\S+)", cmd)
    return any(w in ENV_COMMANDS or w.endswith(("defaults.sh", "set_sysctls.py"))
               or w.startswith("/tmp/sysctl_restore") for w in words)


def refused_sysctls(warnings: list[str], text: str = "") -> str:
    """The sysctls this kernel lacks or this namespace refused, from sysctl's complaints.

    A refused key is shown with the value the script asks for, where the script names it.
    """
    refused = []
    for w in warnings:
        if "setting key" in w and "tcp_congestion_control" not in w:
            key = w.split('"')[1]
            m = re.search(re.escape(key) + r"=(\S+)", text)
            refused.append(f"{key}{'=' + m.group(1) if m else ''} ({w.rsplit(': ', 1)[-1]})")
    absent = [w.split("/proc/sys/", 1)[1].split(":")[0].replace("/", ".") for w in warnings
              if "cannot stat /proc/sys/" in w]
    parts = ([f"sysctl refused: {', '.join(refused)}"] if refused else []) + \
        ([f"sysctl not in this kernel: {', '.join(absent)}"] if absent else [])
    return "; ".join(parts)


def classify(o: Outcome, rc: int, err: str, text: str = "") -> None:
    """Fill in outcome and reason from packetdrill's exit code and error text."""
    msg, o.line, o.detail = first_error(err)
    o.first_error = msg
    o.warnings = sorted(set(SYSCTL_WARN.findall(err))
                        | {f"tool not found: {t}" for t in NOT_FOUND.findall(err)})
    if QDISC_UNKNOWN in err:
        kinds = set(re.findall(r"qdisc (?:add|replace) dev \S+ root (\w+)", text)) - {"pfifo"}
        o.warnings.append(f"qdisc not in this kernel: {', '.join(sorted(kinds)) or '?'}")
    cc_refused = bool(CC_REFUSED.search(err))
    if rc == 0:
        o.outcome = "pass"
        notes = (["defaults.sh's cubic refused"] if cc_refused else []) + \
            ([refused_sysctls(o.warnings, text)] if refused_sysctls(o.warnings, text) else []) + \
            [w for w in o.warnings if w.startswith("qdisc not in")]
        o.reason = f"passed although: {'; '.join(notes)}" if notes else ""
        return
    o.outcome = "error"
    cmd = re.search(r"error executing `([^`]*)` command", msg)
    sys_err = re.search(r"Expected result .* but got -1 with errno \d+ \(([^)]*)\)", msg)
    if rc == NS_REFUSED or rc == 98:
        o.reason = "namespace set-up failed"
    elif msg.startswith("error executing route command"):
        o.reason = "packetdrill's route set-up failed for the script's own addresses"
    elif NOT_FOUND.search(err):
        o.reason = f"tool not installed: {', '.join(sorted(set(NOT_FOUND.findall(err))))}"
    elif QDISC_UNKNOWN in err:
        o.reason = next(w for w in o.warnings if w.startswith("qdisc not in"))
    elif refused_sysctls(o.warnings, text):
        o.reason = refused_sysctls(o.warnings, text)
    elif (cmd and set_up_command(cmd.group(1))) or "error executing init command" in msg:
        what = f"`{cmd.group(1).strip()}`" if cmd else "the script's first command"
        o.reason = f"set-up command failed: {what}"
    elif re.search(r"syntax error|unknown symbol|parse error|undeclared|not supported by this",
                   msg, re.I) and o.line is not None and "runtime error" not in msg:
        o.reason = f"this packetdrill cannot read the script: {msg}"
    elif sys_err and sys_err.group(1) in ERRNO_MISSING:
        o.reason = f"feature missing in this kernel: {sys_err.group(1)}"
    elif "TCP_CONGESTION" in msg and "No such file" in msg:
        o.reason = "congestion control not built in"
    elif cc_refused:
        o.reason = ("namespace refused tcp_congestion_control=cubic (not in the main namespace's "
                    "tcp_allowed_congestion_control); ran on the host default")
    else:
        o.outcome = "fail"
        o.reason = fail_kind(msg)


def fail_kind(msg: str) -> str:
    """A short class of a failure, for counting: the message with its numbers taken out."""
    rules = [
        (r"timing error", "timing: packet outside its time window"),
        (r"live packet field (\S+):", "packet field {0} differs"),
        (r"bad outbound TCP options", "TCP options differ"),
        (r"(\w+) call: Expected result", "{0}() result differs"),
        (r"runtime error in (\w+) call", "{0}() result differs"),
        (r"error executing `", "script's shell check failed"),
        (r"error in Python code", "tcp_info assertion failed"),
        (r"live packet payload", "payload length differs"),
        (r"bad value in outbound TCP option \(kind=(\d+)\)", "TCP option {0} differs"),
        (r"Timed out waiting for packet", "expected packet never sent"),
        (r"[Ee]xpected outbound packet|unexpected (out|in)bound", "unexpected packet"),
        (r"inbound data", "inbound packet rejected"),
    ]
    for pattern, label in rules:
        m = re.search(pattern, msg)
        if m:
            return label.format(*m.groups())
    return re.sub(r"\d+(\.\d+)?", "N", msg)[:100] or "failed without a message"


def run_one(script: Script, binary: Path, timeout: float, tolerance: int | None) -> Outcome:
    """Run one script in a fresh network namespace; kill its process group on timeout."""
    o = Outcome(script.corpus, script.topic, script.name, script.ip_version,
                {k: v for k, v in script.pinned.items() if k != "ip_version"}, "error")
    env = dict(os.environ, TCPLAB_MAIN_NETNS=os.readlink("/proc/self/ns/net"))
    t0 = time.monotonic()
    proc = subprocess.Popen(command(script, binary, tolerance), cwd=script.path.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        classify(o, proc.returncode, out + "\n" + err, script.path.read_text(errors="replace"))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        o.reason = f"timeout after {timeout:g} s"
        o.first_error, o.line, o.detail = first_error(err)
    finally:
        restore = Path(f"/tmp/sysctl_restore_{proc.pid}.sh")
        if restore.exists():
            restore.unlink()
    o.seconds = round(time.monotonic() - t0, 2)
    return o


def retry_timing(results: list[Outcome], scripts: list[Script], binary: Path, timeout: float,
                 pool: ThreadPoolExecutor) -> None:
    """Rerun each timing failure once at 14000 us, ksft_runner's KSFT_MACHINE_SLOW tolerance.

    The outcome stays the first run's; ``retry_slow`` says whether the rerun passed.
    """
    by_name = {(s.corpus, s.name): s for s in scripts}
    todo = [o for o in results if o.outcome == "fail" and o.reason.startswith("timing")]
    reruns = [pool.submit(run_one, by_name[(o.corpus, o.script)], binary, timeout, SLOW_USECS)
              for o in todo]
    for o, fut in zip(todo, reruns, strict=True):
        r = fut.result()
        o.retry_slow = r.outcome if r.outcome == "pass" else f"{r.outcome}: {r.first_error}"
    print(f"timing failures rerun at {SLOW_USECS} us: {len(todo)}, passed "
          f"{sum(o.retry_slow == 'pass' for o in todo)}", flush=True)


def config_gaps(linux: Path) -> dict[str, str]:
    """Options of the kernel selftests' ``config`` this kernel sets otherwise (/proc/config.gz)."""
    want_file, have_file = linux / "config", Path("/proc/config.gz")
    if not want_file.exists() or not have_file.exists():
        return {}
    have = {}
    for line in gzip.decompress(have_file.read_bytes()).decode(errors="replace").splitlines():
        m = re.match(r"(CONFIG_\w+)=(.*)|# (CONFIG_\w+) is not set", line)
        if m:
            have[m.group(1) or m.group(3)] = m.group(2) if m.group(1) else "n"
    gaps = {}
    for line in want_file.read_text().splitlines():
        key, _, value = line.strip().partition("=")
        if key.startswith("CONFIG_") and have.get(key, "n") != value:
            gaps[key] = f"wants {value}, kernel has {have.get(key, 'n')}"
    return gaps


@contextmanager
def cubic_allowed(enable: bool) -> Iterator[dict[str, str]]:
    """Optionally add cubic to the main namespace's allowed list, restoring it on exit."""
    before = ALLOWED_CC.read_text().strip() if ALLOWED_CC.exists() else ""
    info = {"tcp_allowed_congestion_control": before, "widened_to": ""}
    if enable and "cubic" not in before.split():
        info["widened_to"] = f"{before} cubic".strip()
        ALLOWED_CC.write_text(info["widened_to"] + "\n")
    try:
        yield info
    finally:
        if info["widened_to"]:
            ALLOWED_CC.write_text(before + "\n")


def table(results: list[Outcome]) -> str:
    """Markdown table: per topic, pass/fail/error for each corpus and both."""
    counts: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for o in results:
        for key in (o.corpus, "total"):
            counts[o.topic][key][o.outcome] += 1
            counts["**total**"][key][o.outcome] += 1

    def cell(c: Counter[str]) -> str:
        return f"{c['pass']}/{c['fail']}/{c['error']}" if c else "-"

    rows = ["| topic | google p/f/e | linux p/f/e | scripts | pass | fail | error |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for topic in sorted(counts, key=lambda t: (t == "**total**", t)):
        c = counts[topic]
        tot = c["total"]
        rows.append(f"| {topic} | {cell(c['google'])} | {cell(c['linux'])} | "
                    f"{sum(tot.values())} | {tot['pass']} | {tot['fail']} | {tot['error']} |")
    return "\n".join(rows)


def reasons(results: list[Outcome], top: int) -> str:
    """The most frequent fail and error reasons, each with up to three example scripts."""
    out = []
    for kind in ("fail", "error"):
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in results:
            if o.outcome == kind:
                groups[o.reason].append(o)
        out.append(f"{kind}: {sum(map(len, groups.values()))}")
        for reason, items in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]:
            ex = "; ".join(f"{o.corpus}:{o.script}:{o.line or '-'} {o.first_error[:90]}"
                           for o in items[:3])
            out.append(f"  {len(items):3d}  {reason}\n       e.g. {ex}")
    return "\n".join(out)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC,
                    help=f"google/packetdrill clone or bare mirror (default {DEFAULT_SRC})")
    ap.add_argument("--google", type=Path, default=REF / "google",
                    help="google/packetdrill checkout holding gtests/net/tcp (the corpus)")
    ap.add_argument("--linux", type=Path, default=REF / "linux",
                    help="the kernel's tools/testing/selftests/net/packetdrill folder")
    ap.add_argument("--only", default="", help="run scripts whose corpus:path contains this")
    ap.add_argument("--own", type=Path, default=None,
                    help="also run tcplab's own scripts from this folder (tests/packetdrill), "
                    "as corpus 'own'")
    ap.add_argument("--jobs", type=int, default=2, help="scripts run at once (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per script")
    ap.add_argument("--tolerance-usecs", type=int, default=None,
                    help="pass --tolerance_usecs to packetdrill (ksft's slow-machine mode: 14000)")
    ap.add_argument("--retry-slow", action="store_true",
                    help=f"rerun timing failures once with --tolerance_usecs={SLOW_USECS}")
    ap.add_argument("--allow-cubic", action="store_true",
                    help="add cubic to the main namespace's tcp_allowed_congestion_control "
                         "for the run (restored afterwards), so defaults.sh can select it")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write results")
    ap.add_argument("--reasons", type=int, default=12, help="how many reasons to list")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="also write the scripts the kernel does not pass, with why, where "
                    "tcplab's runner reads them (python/tcplab/packetdrill/kernel_baseline.json)")
    return ap.parse_args(argv)


def write_baseline(doc: dict, path: Path) -> None:
    """The kernel's verdict on each script it does not pass, for tcplab's runner: those
    scripts leave the denominator of tcplab's pass rate (issue 54)."""
    failing = {s["script"]: {"outcome": s["outcome"], "reason": s["reason"]}
               for s in doc["scripts"] if s["outcome"] != "pass"}
    base = {"kernel": doc["kernel"], "packetdrill_commit": doc["packetdrill_commit"],
            "command": doc["command"], "scripts_run": doc["summary"]["scripts"],
            "not_passing": dict(sorted(failing.items()))}
    path.write_text(json.dumps(base, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Build, stage, run, report."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so --allow-cubic is undone
    need_tools()
    pd, commit = prepare_source(args.src)
    binary = build(pd)
    print(f"packetdrill {commit} at {binary}", flush=True)
    gaps = config_gaps(args.linux)
    for key, what in gaps.items():
        print(f"kernel config differs from the selftests' config: {key} {what}", flush=True)
    with tempfile.TemporaryDirectory(prefix="tcplab-pd-") as tmp:
        staged = stage(args.google, args.linux, Path(tmp))
        if args.own is not None:
            staged += stage_own(args.own, args.linux, Path(tmp))
        scripts = [s for s in staged if args.only in f"{s.corpus}:{s.name}"]
        if not scripts:
            sys.exit("no scripts matched")
        print(f"{len(scripts)} scripts, {args.jobs} at a time", flush=True)
        t0 = time.monotonic()
        results: list[Outcome] = []
        with cubic_allowed(args.allow_cubic) as cc_info, ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_one, s, binary, args.timeout, args.tolerance_usecs)
                       for s in scripts]
            for i, fut in enumerate(futures, 1):
                o = fut.result()
                results.append(o)
                print(f"[{i}/{len(scripts)}] {o.outcome:5s} {o.corpus}:{o.script} "
                      f"{o.reason[:70]}", flush=True)
            if args.retry_slow:
                retry_timing(results, scripts, binary, args.timeout, pool)
    summary = dict(Counter(o.outcome for o in results))
    doc = {
        "packetdrill_commit": commit,
        "kernel": platform.release(),
        "command": " ".join(["python", "bench/packetdrill_kernel.py", *(argv or sys.argv[1:])]),
        "host": cc_info,
        "kernel_config_gaps": gaps,
        "wall_seconds": round(time.monotonic() - t0, 1),
        "summary": {"scripts": len(results), "passed": summary.get("pass", 0),
                    "failed": summary.get("fail", 0), "errors": summary.get("error", 0),
                    "timing_fails_passing_at_14000us": sum(o.retry_slow == "pass"
                                                           for o in results)},
        "scripts": [asdict(o) for o in results],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(doc, indent=1) + "\n")
    if args.baseline is not None:
        write_baseline(doc, args.baseline)
    print(f"\n{table(results)}\n\n{reasons(results, args.reasons)}\n")
    print(f"summary: {doc['summary']}  ({doc['wall_seconds']} s)  json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
