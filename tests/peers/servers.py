"""How each kind of peer is started: a throwaway config under its directory and a command line.

`build(ctx)` returns a `Launch` for the launcher to run in a new session (process group). Servers
that serve one connection on stdin (gophernicus, leafnode, telnetd) run under
`socat TCP-LISTEN:...,fork EXEC:...,nofork`, so that the socket itself is their stdin.

leafnode and pure-ftpd read paths compiled into them (/etc/news/leafnode, /var/spool/news) or
taken from the system (the `ftp` user's home): natively they run inside `unshare --mount` with
throwaway copies bind-mounted over those paths; in a container (ANYURL_PEERS_CONTAINER=1, which
cannot mount) the paths are replaced by symbolic links, the container being throwaway itself.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pwd
import re
import shlex
import shutil
import sys
from pathlib import Path

from . import data
from .table import LOCAL_PASSWORD, LOCAL_USER, NEWS_FQDN, NEWS_GROUP, PEERS_OPT, Peer

REPO_ROOT = Path(__file__).resolve().parents[2]
ADVERTISED_HOST = "127.0.0.1"  # what servers put in PASV replies and menus


@dataclasses.dataclass
class Context:
    peer: Peer
    host: str  # address to bind
    port: int
    data_root: Path
    peer_dir: Path
    container: bool = False

    @property
    def is_root(self) -> bool:
        return os.geteuid() == 0


@dataclasses.dataclass
class Launch:
    argv: list[str]
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    cwd: Path | None = None
    extra: dict[str, object] = dataclasses.field(default_factory=dict)
    logs: dict[str, str] = dataclasses.field(default_factory=dict)


def _write(path: Path, text: str, mode: int = 0o644) -> Path:
    if not path.parent.exists():
        path.parent.mkdir(parents=True)
        os.chmod(path.parent, 0o755)  # whatever the umask: servers read it as other users
    path.write_text(text)
    os.chmod(path, mode)
    return path


def _python_env() -> dict[str, str]:
    """Let `python -m tests.peers.*` helpers import the tests package from the repo root."""
    current = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": str(REPO_ROOT) + (os.pathsep + current if current else "")}


def _with_overlays(ctx: Context, overlays: list[tuple[Path, Path]], argv: list[str]) -> list[str]:
    """argv run with each (source, target) directory bind-mounted over target, privately.

    Natively: a script run by `unshare --mount` that mounts and then execs argv, so the launched
    process is argv itself and no mount is seen outside it. In a container: symlinks, now.
    """
    if ctx.container:
        for source, target in overlays:
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.exists():
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
        return argv
    lines = ["#!/bin/sh", "set -e"]
    for source, target in overlays:
        lines.append(f"mount --bind {shlex.quote(str(source))} {shlex.quote(str(target))}")
    lines.append("exec " + shlex.join(argv))
    script = _write(ctx.peer_dir / "run-in-namespace.sh", "\n".join(lines) + "\n", 0o755)
    return ["unshare", "--mount", "--propagation", "private", "/bin/sh", str(script)]


def _socat(ctx: Context, script: Path, su: str | None = None) -> list[str]:
    """socat listening on ctx's address and running `script` with the connection as stdin/out."""
    if re.search(r"[,:!\"' ]", str(script)):
        raise ValueError(f"socat cannot run a script whose path has ',', ':' or spaces: {script}")
    listen = f"TCP4-LISTEN:{ctx.port},bind={ctx.host},reuseaddr,fork,backlog=64"
    exec_addr = f"EXEC:{script},nofork"
    if su:
        exec_addr += f",su={su}"
    return ["socat", listen, exec_addr]


def _local_user_exists() -> bool:
    try:
        pwd.getpwnam(LOCAL_USER)
    except KeyError:
        return False
    return True


# -- FTP --------------------------------------------------------------------------------------


def vsftpd(ctx: Context) -> Launch:
    options = _vsftpd_options(ctx)
    return _vsftpd_launch(ctx, options)


def _vsftpd_launch(ctx: Context, options: dict[str, object],
                   extra: dict[str, object] | None = None) -> Launch:
    conf = _write(ctx.peer_dir / "vsftpd.conf", "".join(f"{k}={v}\n" for k, v in options.items()))
    return Launch(["/usr/sbin/vsftpd", str(conf)], logs={"server": str(options["vsftpd_log_file"])},
                  extra=extra or {})


def _vsftpd_tls(ctx: Context, implicit: bool) -> Launch:
    """vsftpd with TLS as the public servers have it (RFC 4217): logins and data only in
    TLS (anonymous ones too), and each data connection's TLS session the control
    connection's (``require_ssl_reuse``, vsftpd's default, which most clients fail);
    ``implicit``: TLS from the first byte (ftps://). The certificate is of a test CA made
    now (as leafnode-tls's), the CA is ``extra["cafile"]``."""
    ca, cert, key = _test_ca(ctx)
    options = _vsftpd_options(ctx)
    options.update({
        "ssl_enable": "YES",
        "implicit_ssl": "YES" if implicit else "NO",
        "rsa_cert_file": cert,
        "rsa_private_key_file": key,
        "require_ssl_reuse": "YES",
        "force_local_data_ssl": "YES",
        "force_local_logins_ssl": "YES",
        "allow_anon_ssl": "YES",
        "force_anon_logins_ssl": "YES",
        "force_anon_data_ssl": "YES",
        "ssl_ciphers": "HIGH",
        "ssl_sslv2": "NO",
        "ssl_sslv3": "NO",
        "ssl_tlsv1": "YES",
        "debug_ssl": "YES",
        "ftpd_banner": f"anyurl test peer {ctx.peer.name} ready.",
    })
    return _vsftpd_launch(ctx, options, {"cafile": str(ca)})


def vsftpd_tls(ctx: Context) -> Launch:
    return _vsftpd_tls(ctx, implicit=False)


def vsftpd_implicit(ctx: Context) -> Launch:
    return _vsftpd_tls(ctx, implicit=True)


def _vsftpd_options(ctx: Context) -> dict[str, object]:
    lo, hi = ctx.peer.passive_ports or (0, 0)
    empty = ctx.peer_dir / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    os.chmod(empty, 0o755)
    log = ctx.peer_dir / "vsftpd.log"
    options: dict[str, object] = {
        "listen": "YES",
        "listen_ipv6": "NO",
        "listen_address": ctx.host,
        "listen_port": ctx.port,
        "background": "NO",
        "anonymous_enable": "YES",
        "no_anon_password": "YES",
        "anon_root": ctx.data_root,
        "local_enable": "YES" if ctx.is_root else "NO",
        "local_root": ctx.data_root,
        "write_enable": "NO",
        "pam_service_name": "vsftpd",
        "secure_chroot_dir": empty,
        "pasv_enable": "YES",
        "pasv_min_port": lo,
        "pasv_max_port": hi,
        "pasv_address": ADVERTISED_HOST,
        "port_enable": "YES",
        "connect_from_port_20": "NO",
        "xferlog_enable": "YES",
        "xferlog_std_format": "NO",
        "log_ftp_protocol": "YES",
        "vsftpd_log_file": log,
        # Sandboxes and containers often refuse seccomp filters and new namespaces.
        "seccomp_sandbox": "NO",
        "isolate": "NO",
        "isolate_network": "NO",
        "hide_ids": "NO",
        "use_localtime": "NO",
        "dirmessage_enable": "NO",
        "max_clients": 200,
        "max_per_ip": 200,
        "ftpd_banner": "anyurl test peer vsftpd ready.",
    }
    if not ctx.is_root:
        options["run_as_launching_user"] = "YES"
    return options


def pure_ftpd(ctx: Context) -> Launch:
    lo, hi = ctx.peer.passive_ports or (0, 0)
    binary = f"{PEERS_OPT}/pure-ftpd/usr/sbin/pure-ftpd"
    log = ctx.peer_dir / "transfer.log"
    argv = [
        binary,
        "-S", f"{ctx.host},{ctx.port}",
        "-p", f"{lo}:{hi}",
        "-P", ADVERTISED_HOST,
        "-H",  # do not resolve client names
        "-l", "unix",
        "-c", "100", "-C", "100",
        "-O", f"clf:{log}",
    ]
    # Anonymous FTP serves the `ftp` user's home, local users their own: both see the data root.
    overlays = []
    for user in ("ftp", LOCAL_USER):
        try:
            home = Path(pwd.getpwnam(user).pw_dir)
        except KeyError:
            continue
        if home.is_dir() or ctx.container:
            overlays.append((ctx.data_root, home))
    extra: dict[str, object] = {}
    if ctx.peer.kind == "pure_ftpd_tls":
        # --tls=3: TLS for the login and for every data connection, or nothing; the
        # certificate and key in one PEM file (--certfile), of a test CA made now.
        ca, cert, key = _test_ca(ctx)
        pem = _write(ctx.peer_dir / "tls" / "pure-ftpd.pem", key.read_text() + cert.read_text(),
                     0o600)
        argv[1:1] = ["-Y", "3", "-2", str(pem)]
        extra["cafile"] = str(ca)
    return Launch(_with_overlays(ctx, overlays, argv), logs={"transfers": str(log)},
                  extra=extra)


def pyftpdlib(ctx: Context) -> Launch:
    log = ctx.peer_dir / "pyftpdlib-commands.log"
    lo, hi = ctx.peer.passive_ports or (0, 0)
    argv = [
        sys.executable, "-m", "tests.peers.pyftpd_server",
        "--host", ctx.host, "--port", str(ctx.port), "--root", str(ctx.data_root),
        "--user", LOCAL_USER, "--password", LOCAL_PASSWORD,
        "--passive", f"{lo}-{hi}", "--masquerade", ADVERTISED_HOST,
        "--command-log", str(log),
    ]
    return Launch(argv, env=_python_env(), cwd=REPO_ROOT, logs={"commands": str(log)},
                  extra={"command_log": str(log)})


def aioftp(ctx: Context) -> Launch:
    lo, hi = ctx.peer.passive_ports or (0, 0)
    argv = [
        sys.executable, "-m", "tests.peers.aioftp_server",
        "--host", ctx.host, "--port", str(ctx.port), "--root", str(ctx.data_root),
        "--user", LOCAL_USER, "--password", LOCAL_PASSWORD,
        "--passive", f"{lo}-{hi}", "--masquerade", ADVERTISED_HOST,
    ]
    return Launch(argv, env=_python_env(), cwd=REPO_ROOT)


# -- HTTP -------------------------------------------------------------------------------------


def nginx(ctx: Context) -> Launch:
    prefix = ctx.peer_dir
    temp = prefix / "temp"
    temp.mkdir(parents=True, exist_ok=True)
    error_log = prefix / "error.log"
    access_log = prefix / "access.log"
    user = "user nobody nogroup;\n" if ctx.is_root else ""
    conf = f"""\
daemon off;
master_process on;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {error_log} info;
{user}events {{ worker_connections 512; }}
http {{
    access_log {access_log};
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    types {{
        text/plain txt;
        text/html html;
        text/css css;
        application/octet-stream dat;
    }}
    default_type application/octet-stream;
    sendfile on;
    server {{
        listen {ctx.host}:{ctx.port};
        server_name localhost;
        root {ctx.data_root};
        autoindex on;
    }}
}}
"""
    path = _write(prefix / "nginx.conf", conf)
    argv = ["/usr/sbin/nginx", "-p", f"{prefix}/", "-c", str(path), "-e", str(error_log)]
    return Launch(argv, logs={"error": str(error_log), "access": str(access_log)})


# -- Gopher -----------------------------------------------------------------------------------


def pygopherd(ctx: Context) -> Launch:
    conf = Path("/etc/pygopherd/pygopherd.conf").read_text()

    def setting(text: str, key: str, value: str) -> str:
        new, count = re.subn(rf"(?m)^#?\s*{key}\s*=.*$", f"{key} = {value}", text, count=1)
        if not count:
            raise ValueError(f"pygopherd.conf has no {key!r} setting to replace")
        return new

    conf = setting(conf, "port", str(ctx.port))
    conf = setting(conf, "interface", ctx.host)
    conf = setting(conf, "servername", ADVERTISED_HOST)
    conf = setting(conf, "root", str(ctx.data_root))
    conf = setting(conf, "usechroot", "no")
    conf = setting(conf, "detach", "no")
    conf = setting(conf, "pidfile", str(ctx.peer_dir / "pygopherd.pid"))
    conf = setting(conf, "logmethod", "none")
    # A cache file in a missing directory is never written, so menus are never stale.
    conf = setting(conf, "cachefile", str(ctx.peer_dir / "no-such-dir" / "cache"))
    path = _write(ctx.peer_dir / "pygopherd.conf", conf)
    return Launch(["/usr/sbin/pygopherd", str(path)])


def gophernicus(ctx: Context) -> Launch:
    log = ctx.peer_dir / "access.log"
    log.touch()
    su = LOCAL_USER if ctx.is_root else None
    if su:
        entry = pwd.getpwnam(su)
        os.chown(log, entry.pw_uid, entry.pw_gid)
    argv = [
        "/usr/sbin/gophernicus", "-h", ADVERTISED_HOST, "-p", str(ctx.port),
        "-r", str(ctx.data_root), "-l", str(log),
        "-nm",  # no shared memory: with it, it throttles the many connections of a test run
        "-ns", "-nv",
    ]
    script = _write(ctx.peer_dir / "gophernicus.sh", "#!/bin/sh\nexec " + shlex.join(argv) + "\n",
                    0o755)
    return Launch(_socat(ctx, script, su=su), logs={"access": str(log)},
                  extra={"runs_as": su or pwd.getpwuid(os.geteuid()).pw_name})


# -- NNTP -------------------------------------------------------------------------------------


def _leafnode_spool(ctx: Context) -> tuple[Path, Path, int]:
    """The throwaway /etc/news/leafnode and /var/spool/news of one leafnode peer, with
    the test group's articles: (etc, spool, article count)."""
    etc = ctx.peer_dir / "etc"
    spool = ctx.peer_dir / "spool"
    for sub in ("leaf.node", "out.going", "failed.postings", "interesting.groups", "temp.files"):
        (spool / sub).mkdir(parents=True, exist_ok=True)
    for i in range(1000):
        (spool / "message.id" / f"{i:03d}").mkdir(parents=True, exist_ok=True)
    group_dir = spool.joinpath(*NEWS_GROUP.split("."))
    group_dir.mkdir(parents=True, exist_ok=True)
    count = len(data.NEWS_ARTICLES)
    for number in range(1, count + 1):
        (group_dir / str(number)).write_bytes(data.news_article(NEWS_GROUP, NEWS_FQDN, number))
    # groupinfo: name, high, low, creation time, description
    _write(spool / "leaf.node" / "groupinfo",
           f"{NEWS_GROUP} {count} 1 946684800 anyurl test group\n")
    config = _write(etc / "config",
                    f"server = localhost\nexpire = 36500\nhostname = {NEWS_FQDN}\n", 0o640)
    filters = _write(etc / "filters", "")
    if ctx.is_root:
        news = pwd.getpwnam("news")
        for dirpath, _dirnames, filenames in os.walk(spool):
            os.chown(dirpath, news.pw_uid, news.pw_gid)
            for name in filenames:
                os.chown(os.path.join(dirpath, name), news.pw_uid, news.pw_gid)
        os.chown(config, 0, news.pw_gid)
        os.chown(filters, 0, news.pw_gid)
    return etc, spool, count


def _leafnode_launch(ctx: Context, serve: list[str], logs: dict[str, str],
                     extra: dict[str, object]) -> Launch:
    """texpire, then ``serve`` (which runs leafnode per connection), in a namespace
    where this peer's spool is leafnode's."""
    etc, spool, count = _leafnode_spool(ctx)
    # texpire -r indexes the articles (message.id links, active file) before serving them.
    texpire_log = ctx.peer_dir / "texpire.log"
    inner = _write(
        ctx.peer_dir / "serve.sh",
        "#!/bin/sh\nset -e\n"
        f"/usr/sbin/texpire -r -v > {shlex.quote(str(texpire_log))} 2>&1\n"
        "exec " + shlex.join(serve) + "\n",
        0o755,
    )
    overlays = [(etc, Path("/etc/news/leafnode")), (spool, Path("/var/spool/news"))]
    argv = _with_overlays(ctx, overlays, ["/bin/sh", str(inner)])
    return Launch(argv, logs={"texpire": str(texpire_log), **logs},
                  extra={"group": NEWS_GROUP, "articles": count, "fqdn": NEWS_FQDN,
                         "spool": str(spool), **extra})


def leafnode(ctx: Context) -> Launch:
    server = _write(ctx.peer_dir / "leafnode.sh", "#!/bin/sh\nexec /usr/sbin/leafnode\n", 0o755)
    return _leafnode_launch(ctx, _socat(ctx, server), {}, {})


def _test_ca(ctx: Context) -> tuple[Path, Path, Path]:
    """A CA made now (openssl), and a certificate it signed for 127.0.0.1 and localhost:
    (the CA's certificate, the server's certificate, its key)."""
    import subprocess

    d = ctx.peer_dir / "tls"
    d.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (d / n for n in ("ca.key", "ca.pem", "server.key",
                                                   "server.csr", "server.pem"))
    ext = _write(d / "server.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                 "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    for argv in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", ca_key,
         "-out", ca, "-subj", "/CN=anyurl test CA"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
         "-subj", "/CN=localhost"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
         "-days", "2", "-out", cert, "-extfile", ext],
    ):
        subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True)
    return ca, cert, key


def leafnode_tls(ctx: Context) -> Launch:
    """nntps: stunnel on the peer's port runs leafnode for each connection (exec), with a
    certificate of a test CA made now; the CA is ``extra["cafile"]``."""
    ca, cert, key = _test_ca(ctx)
    log = ctx.peer_dir / "stunnel.log"
    conf = _write(ctx.peer_dir / "stunnel.conf", f"""\
foreground = yes
pid =
output = {log}
debug = 5
[nntps]
accept = {ctx.host}:{ctx.port}
cert = {cert}
key = {key}
exec = /usr/sbin/leafnode
execArgs = leafnode
""")
    return _leafnode_launch(ctx, ["/usr/bin/stunnel4", str(conf)], {"server": str(log)},
                            {"cafile": str(ca)})


INN = f"{PEERS_OPT}/inn2"  # scripts/install-peers.sh unpacks inn2 here (it conflicts with leafnode)
INN_BIN = f"{INN}/usr/lib/news/bin"


def _inn_spool(ctx: Context) -> tuple[Path, Path, Path]:
    """The throwaway tree of one INN peer (etc, db, spool, run, log, tmp), the test
    group's articles stored as tradspool files: (the tree, its inn.conf, the test CA)."""
    root = ctx.peer_dir / "inn"
    names = ("etc", "db", "run", "log", "tmp", "http", "spool/articles", "spool/overview")
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
    group_dir = root.joinpath("spool", "articles", *NEWS_GROUP.split("."))
    group_dir.mkdir(parents=True, exist_ok=True)
    count = len(data.NEWS_ARTICLES)
    for number in range(1, count + 1):
        (group_dir / str(number)).write_bytes(data.news_article(NEWS_GROUP, NEWS_FQDN, number))
    _write(root / "db" / "active", f"{NEWS_GROUP} {count:010d} 0000000001 y\n")
    _write(root / "db" / "newsgroups", f"{NEWS_GROUP}\tanyurl test group\n")
    _write(root / "db" / "history", "")
    ca, cert, key = _test_ca(ctx)
    paths = {f"path{name}": root / name for name in ("etc", "db", "run", "log", "tmp", "http")}
    paths.update(pathnews=root, pathspool=root / "spool",
                 patharticles=root / "spool" / "articles",
                 pathoverview=root / "spool" / "overview",
                 pathoutgoing=root / "spool" / "outgoing",
                 pathincoming=root / "spool" / "incoming",
                 patharchive=root / "spool" / "archive",
                 pathbin=INN_BIN, pathcontrol=f"{INN_BIN}/control",
                 pathfilter=f"{INN_BIN}/filter", tlscertfile=cert, tlskeyfile=key)
    conf = _write(root / "etc" / "inn.conf", "".join(
        [f'mta: "/bin/true %s"\norganization: "anyurl test peer"\n'
         f"pathhost: {NEWS_FQDN}\ndomain: anyurl-tests.internal\nserver: 127.0.0.1\n"
         "ovmethod: tradindexed\nhismethod: hisv6\nenableoverview: true\n"
         "wireformat: false\nnnrpdloadlimit: 0\n"]
        + [f"{key}: {value}\n" for key, value in paths.items()]))
    _write(root / "etc" / "storage.conf", "method tradspool {\n newsgroups: *\n class: 0\n}\n")
    shutil.copy(f"{INN}/etc/news/inn-secrets.conf", root / "etc" / "inn-secrets.conf")
    # Logins (ckpasswd against a file of its own) only inside TLS, as public servers
    # have it: before STARTTLS no auth group matches, and AUTHINFO USER is not offered.
    salt = hashlib.sha256(str(ctx.peer_dir).encode()).hexdigest()[:16]
    _write(root / "etc" / "passwd", f"{LOCAL_USER}:{_sha512_crypt(LOCAL_PASSWORD, salt)}\n")
    _write(root / "etc" / "readers.conf", f"""\
auth "login" {{
    auth: "ckpasswd -f {root / 'etc' / 'passwd'}"
    require_encryption: true
}}
access "readers" {{
    users: "{LOCAL_USER}"
    newsgroups: "*"
    access: "R"
}}
""")
    news = pwd.getpwnam("news")
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chown(dirpath, news.pw_uid, news.pw_gid)
        for name in filenames:
            os.chown(os.path.join(dirpath, name), news.pw_uid, news.pw_gid)
    os.chown(key, news.pw_uid, news.pw_gid)
    os.chmod(key, 0o600)
    return root, conf, ca


def _sha512_crypt(password: str, salt: str) -> str:
    """crypt(3)'s SHA-512 form of ``password`` (what ckpasswd's file holds), by openssl."""
    import subprocess

    done = subprocess.run(["openssl", "passwd", "-6", "-salt", salt, "-stdin"],
                          input=password, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def inn(ctx: Context) -> Launch:
    """INN's nnrpd as a standalone daemon (-D -f), reading a tradspool of the test
    group, with STARTTLS (RFC 4642: a certificate of a test CA made now, the CA in
    ``extra["cafile"]``) and AUTHINFO USER/PASS for the local test user only inside TLS.

    The overview and history are built (makehistory, makedbz) before it starts. With no
    syslog, INN writes its log to /dev/console: natively a file of the peer is
    bind-mounted over it in a private mount namespace."""
    root, conf, ca = _inn_spool(ctx)
    console = ctx.peer_dir / "console.log"
    _write(console, "", 0o666)
    bind = ["-b", ctx.host] if ":" not in ctx.host else ["-6", ctx.host]
    script = _write(ctx.peer_dir / "serve.sh", "#!/bin/sh\nset -e\n"
                    f"cd {shlex.quote(str(root / 'db'))}\n"
                    f"{INN_BIN}/makehistory -O\n{INN_BIN}/makedbz -i -o\n"
                    "exec " + shlex.join([f"{INN_BIN}/nnrpd", "-D", "-f", "-n",
                                          "-p", str(ctx.port), *bind]) + "\n", 0o755)
    overlays = [] if ctx.container else [(console, Path("/dev/console"))]
    env = {"INNCONF": str(conf), "LD_LIBRARY_PATH": f"{INN}/usr/lib/news"}
    return Launch(_with_overlays(ctx, overlays, ["/bin/sh", str(script)]), env=env,
                  logs={"console": str(console)},
                  extra={"group": NEWS_GROUP, "articles": len(data.NEWS_ARTICLES),
                         "fqdn": NEWS_FQDN, "cafile": str(ca)})


# -- SOCKS ------------------------------------------------------------------------------------


def dante(ctx: Context) -> Launch:
    """danted relaying to anything on loopback; with the peer's user, RFC 1929 logins
    checked against the system's passwords (the local test user's)."""
    log = ctx.peer_dir / "danted.log"
    method = "username" if ctx.peer.user else "none"
    privileged = "root" if ctx.is_root else pwd.getpwuid(os.geteuid()).pw_name
    # In a container the clients come from Docker's network and the targets are the other
    # containers; natively both are loopback, as the proxy's own address.
    clients, external = ("0.0.0.0/0", "eth0") if ctx.container else ("127.0.0.0/8", ctx.host)
    conf = f"""\
logoutput: {log}
internal: {ctx.host} port = {ctx.port}
external: {external}
clientmethod: none
socksmethod: {method}
user.privileged: {privileged}
user.unprivileged: {"nobody" if ctx.is_root else privileged}
client pass {{
    from: {clients} to: 0.0.0.0/0
}}
socks pass {{
    from: {clients} to: 0.0.0.0/0
    command: connect
    log: connect error
}}
"""
    path = _write(ctx.peer_dir / "danted.conf", conf)
    return Launch(["/usr/sbin/danted", "-f", str(path), "-p", str(ctx.peer_dir / "danted.pid")],
                  logs={"server": str(log)})


def openssh_socks(ctx: Context) -> Launch:
    """OpenSSH's dynamic forwarding (``ssh -D``) on the peer's port: a SOCKS4, 4a and 5
    proxy (dante speaks no 4a). The ssh client logs in as root, with a key made now, to
    an ``sshd -i`` it runs itself as its ProxyCommand (no second port), with a host key
    made now too; each SOCKS request is a ``direct-tcpip`` channel that sshd opens.

    ``ssh -vv`` logs every request (``dynamic request: socks4 host NAME port N``: the
    name as the client gave it) to the peer's output log. sshd wants its privilege
    separation directory /run/sshd: natively it gets one on a tmpfs over /run in a
    private mount namespace."""
    d = ctx.peer_dir
    import subprocess

    for name in ("host_key", "client_key"):
        for old in (d / name, d / f"{name}.pub"):
            old.unlink(missing_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "anyurl-peer",
                        "-f", str(d / name)], check=True, capture_output=True)
    shutil.copy(d / "client_key.pub", d / "authorized_keys")
    _write(d / "known_hosts", "anyurl-peer " + (d / "host_key.pub").read_text())
    sshd_config = _write(d / "sshd_config", f"""\
HostKey {d / "host_key"}
AuthorizedKeysFile {d / "authorized_keys"}
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
AllowTcpForwarding local
PermitOpen any
AllowAgentForwarding no
X11Forwarding no
PermitTTY no
LogLevel VERBOSE
""")
    ssh = ["/usr/bin/ssh", "-vv", "-N", "-F", "/dev/null", "-D", f"{ctx.host}:{ctx.port}",
           "-i", str(d / "client_key"), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
           "-o", "HostKeyAlias=anyurl-peer", "-o", "StrictHostKeyChecking=yes",
           "-o", f"UserKnownHostsFile={d / 'known_hosts'}", "-o", "ExitOnForwardFailure=yes",
           "-o", f"ProxyCommand=/usr/sbin/sshd -i -e -f {d / 'sshd_config'}",
           "root@anyurl-peer"]
    privsep = ("mkdir -p /run/sshd" if ctx.container else
               "mount -t tmpfs -o mode=755 anyurl-sshd /run\nmkdir -m 755 /run/sshd")
    script = _write(d / "serve.sh", f"#!/bin/sh\nset -e\n{privsep}\nexec {shlex.join(ssh)}\n",
                    0o755)
    argv = ["/bin/sh", str(script)]
    if not ctx.container:
        argv = ["unshare", "--mount", "--propagation", "private", *argv]
    return Launch(argv, extra={"config": str(sshd_config)})


# -- Telnet -----------------------------------------------------------------------------------


def telnetd(ctx: Context) -> Launch:
    script = _write(ctx.peer_dir / "telnetd.sh", "#!/bin/sh\nexec /usr/sbin/telnetd -h\n", 0o755)
    return Launch(_socat(ctx, script))


def telnetlib3(ctx: Context) -> Launch:
    log = ctx.peer_dir / "telnetlib3.log"
    argv = [sys.executable, "-m", "telnetlib3.server", ctx.host, str(ctx.port),
            "--logfile", str(log)]
    return Launch(argv, logs={"server": str(log)})


# -- SMTP -------------------------------------------------------------------------------------


def aiosmtpd(ctx: Context) -> Launch:
    maildir = ctx.peer_dir / "maildir"
    argv = [sys.executable, "-m", "tests.peers.smtp_server", "--host", ctx.host,
            "--port", str(ctx.port), "--maildir", str(maildir)]
    return Launch(argv, env=_python_env(), cwd=REPO_ROOT, extra={"maildir": str(maildir)})


# -- anyurl's own loopback servers --------------------------------------------------------------


def module(ctx: Context) -> Launch:
    values = {"host": ctx.host, "port": str(ctx.port), "data_root": str(ctx.data_root),
              "peer_dir": str(ctx.peer_dir)}
    args = [arg.format(**values) for arg in ctx.peer.args]
    assert ctx.peer.module is not None
    return Launch([sys.executable, "-m", ctx.peer.module, *args], env=_python_env(),
                  cwd=REPO_ROOT)


BUILDERS = {
    "vsftpd": vsftpd,
    "vsftpd_tls": vsftpd_tls,
    "vsftpd_implicit": vsftpd_implicit,
    "pure_ftpd_tls": pure_ftpd,
    "pure_ftpd": pure_ftpd,
    "pyftpdlib": pyftpdlib,
    "aioftp": aioftp,
    "nginx": nginx,
    "pygopherd": pygopherd,
    "gophernicus": gophernicus,
    "leafnode": leafnode,
    "leafnode_tls": leafnode_tls,
    "inn": inn,
    "dante": dante,
    "openssh_socks": openssh_socks,
    "telnetd": telnetd,
    "telnetlib3": telnetlib3,
    "aiosmtpd": aiosmtpd,
    "module": module,
}


def build(ctx: Context) -> Launch:
    return BUILDERS[ctx.peer.kind](ctx)


def missing(peer: Peer) -> str | None:
    """Why `peer` cannot start here, or None. Says how to install what is missing."""
    import importlib.util

    for binary in peer.binaries:
        found = Path(binary).is_file() if os.path.isabs(binary) else shutil.which(binary)
        if not found:
            return f"peer {peer.name!r} needs {binary}, which is missing: {peer.install}"
    for name in peer.python_modules:
        if importlib.util.find_spec(name) is None:
            return f"peer {peer.name!r} needs the Python module {name}: {peer.install}"
    if peer.module is not None:
        try:
            spec = importlib.util.find_spec(peer.module)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            return (f"peer {peer.name!r} runs `python -m {peer.module}`, which does not exist"
                    f" yet: {peer.install}")
    logs_in = ("vsftpd", "vsftpd_tls", "vsftpd_implicit", "pure_ftpd", "pure_ftpd_tls",
               "telnetd")
    if peer.user and peer.kind in logs_in and not _local_user_exists():
        return f"peer {peer.name!r} needs the local user {LOCAL_USER!r}: {peer.install}"
    if peer.kind == "dante" and peer.user and (os.geteuid() != 0 or not _local_user_exists()):
        return (f"peer {peer.name!r} checks the local user {LOCAL_USER!r}'s password, "
                f"which needs root and that user: {peer.install}")
    if peer.kind == "openssh_socks" and os.geteuid() != 0:
        return f"peer {peer.name!r} logs in to its own sshd as root: {peer.install}"
    if peer.kind == "inn" and os.geteuid() != 0:
        return f"peer {peer.name!r} runs INN as the news user, which needs root: {peer.install}"
    if peer.kind == "gophernicus" and os.geteuid() == 0 and not _local_user_exists():
        return f"peer {peer.name!r} runs as the local user {LOCAL_USER!r}: {peer.install}"
    return None

