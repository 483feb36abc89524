"""The peers table: the one list of test servers, read by the native launcher and the compose file.

Every real server that anyurl's integration tests talk to is one `Peer` here. The native launcher
(`python -m tests.peers start`) starts each on 127.0.0.1 on a free port; `docker/docker-compose.yml`
is generated from the same rows (`python -m tests.peers compose`), where each peer listens on its
`docker_port`, published on the host at the same number so that addresses a server puts in its own
replies (FTP passive replies, Gopher menus) stay right.

Nothing here installs anything: `install` says how a missing server is installed.
"""

from __future__ import annotations

import dataclasses

# The local test user (vsftpd/pure-ftpd local login, telnet login, the unprivileged user that
# gophernicus runs as). scripts/install-peers.sh creates it with this password.
LOCAL_USER = "anyurl"
LOCAL_PASSWORD = "anyurl-peer-pw"

# The anonymous FTP login the tests use.
ANONYMOUS_USER = "anonymous"
ANONYMOUS_PASSWORD = "anyurl@example.org"

# Where scripts/install-peers.sh unpacks the pure-ftpd .deb (it conflicts with vsftpd).
PEERS_OPT = "/opt/anyurl-peers"

INSTALL_SCRIPT = "bash scripts/install-peers.sh"

# The news group leafnode serves, and its fully qualified name (leafnode refuses to run without
# one, and rejects example.com, .invalid, .localdomain and friends).
NEWS_GROUP = "anyurl.test"
NEWS_FQDN = "peers.anyurl-tests.internal"


@dataclasses.dataclass(frozen=True)
class Peer:
    """One test server.

    `kind` names the function in `tests.peers.servers` that builds its command line; `python -m`
    peers (kind "module") run `module` with `args`, in which `{host}`, `{port}`, `{data_root}` and
    `{peer_dir}` are replaced.
    """

    name: str
    scheme: str
    kind: str
    docker_port: int
    install: str
    transport: str = "tcp"
    binaries: tuple[str, ...] = ()
    python_modules: tuple[str, ...] = ()
    passive_ports: tuple[int, int] | None = None
    module: str | None = None
    args: tuple[str, ...] = ()
    user: str | None = None
    password: str | None = None
    note: str = ""

    @property
    def env_var(self) -> str:
        """The variable of the env file that holds this peer's `host:port`."""
        return "ANYURL_PEER_" + self.name.upper().replace("-", "_")

    @property
    def port_var(self) -> str:
        """The compose variable that moves this peer to another host port (8080 is often
        taken): `ANYURL_NGINX_PORT=18080 docker compose up`."""
        return "ANYURL_" + self.name.upper().replace("-", "_") + "_PORT"

    @property
    def passive_var(self) -> str:
        """The compose variable for an FTP peer's passive port range, `LO-HI`."""
        return "ANYURL_" + self.name.upper().replace("-", "_") + "_PASV"


def _apt(package: str) -> str:
    return f"run `{INSTALL_SCRIPT}` as root (or: apt-get install --no-install-recommends {package})"


def _pip(package: str) -> str:
    return f"run `{INSTALL_SCRIPT}` (or: python -m pip install {package})"


_LOCAL = {"user": LOCAL_USER, "password": LOCAL_PASSWORD}

PEERS: tuple[Peer, ...] = (
    # FTP
    Peer("vsftpd", "ftp", "vsftpd", 2121, _apt("vsftpd"),
         binaries=("/usr/sbin/vsftpd",), passive_ports=(30000, 30019), **_LOCAL),
    Peer("pure-ftpd", "ftp", "pure_ftpd", 2122,
         f"run `{INSTALL_SCRIPT}` as root (it unpacks `apt-get download pure-ftpd` with"
         f" dpkg-deb -x into {PEERS_OPT}/pure-ftpd; the package conflicts with vsftpd)",
         binaries=(f"{PEERS_OPT}/pure-ftpd/usr/sbin/pure-ftpd", "/usr/bin/unshare"),
         passive_ports=(30020, 30039), **_LOCAL),
    # FTP over TLS (RFC 4217), each with a certificate of a test CA made when the peer
    # starts (extra["cafile"]): vsftpd with AUTH TLS required for logins and data and
    # require_ssl_reuse; vsftpd with implicit TLS (ftps://); pure-ftpd with --tls=3
    Peer("vsftpd-tls", "ftp", "vsftpd_tls", 2125, _apt("vsftpd openssl"),
         binaries=("/usr/sbin/vsftpd", "/usr/bin/openssl"), passive_ports=(30080, 30099),
         **_LOCAL),
    Peer("vsftpd-implicit", "ftps", "vsftpd_implicit", 2990, _apt("vsftpd openssl"),
         binaries=("/usr/sbin/vsftpd", "/usr/bin/openssl"), passive_ports=(30100, 30119),
         **_LOCAL),
    Peer("pure-ftpd-tls", "ftp", "pure_ftpd_tls", 2126,
         f"run `{INSTALL_SCRIPT}` as root (pure-ftpd unpacked into {PEERS_OPT}/pure-ftpd, "
         "and openssl)",
         binaries=(f"{PEERS_OPT}/pure-ftpd/usr/sbin/pure-ftpd", "/usr/bin/unshare",
                   "/usr/bin/openssl"),
         passive_ports=(30120, 30139), **_LOCAL),
    Peer("pyftpdlib", "ftp", "pyftpdlib", 2123, _pip("pyftpdlib"),
         python_modules=("pyftpdlib",), passive_ports=(30040, 30059), **_LOCAL),
    Peer("aioftp", "ftp", "aioftp", 2124, _pip("aioftp"),
         python_modules=("aioftp",), passive_ports=(30060, 30079), **_LOCAL),
    # HTTP
    Peer("nginx", "http", "nginx", 8080, _apt("nginx-light"), binaries=("/usr/sbin/nginx",)),
    # Gopher
    Peer("pygopherd", "gopher", "pygopherd", 7070, _apt("pygopherd"),
         binaries=("/usr/sbin/pygopherd",)),
    Peer("gophernicus", "gopher", "gophernicus", 7071, _apt("gophernicus socat"),
         binaries=("/usr/sbin/gophernicus", "/usr/bin/socat"),
         note="runs as the local test user: gophernicus refuses to run as root"),
    # NNTP
    Peer("leafnode", "news", "leafnode", 1119, _apt("leafnode socat"),
         binaries=("/usr/sbin/leafnode", "/usr/sbin/texpire", "/usr/bin/socat",
                   "/usr/bin/unshare")),
    # NNTP over TLS (nntps://, snews:): stunnel in front of its own leafnode, with a server
    # certificate of a test CA made when the peer starts (extra["cafile"])
    Peer("leafnode-tls", "nntps", "leafnode_tls", 1563, _apt("leafnode stunnel4 openssl"),
         binaries=("/usr/sbin/leafnode", "/usr/sbin/texpire", "/usr/bin/stunnel4",
                   "/usr/bin/openssl", "/usr/bin/unshare")),
    # NNTP with STARTTLS (RFC 4642): INN's nnrpd, standalone, a certificate of a test CA
    # made when the peer starts (extra["cafile"]); AUTHINFO for the local user only in TLS
    Peer("inn", "news", "inn", 1120,
         f"run `{INSTALL_SCRIPT}` as root (it unpacks `apt-get download inn2` with dpkg-deb -x"
         f" into {PEERS_OPT}/inn2 and installs its libraries; inn2 conflicts with leafnode)",
         binaries=(f"{PEERS_OPT}/inn2/usr/lib/news/bin/nnrpd", "/usr/bin/openssl",
                   "/usr/bin/unshare"),
         **_LOCAL, note="runs as the news user: needs root"),
    # Telnet
    Peer("telnetd", "telnet", "telnetd", 2323, _apt("inetutils-telnetd socat"),
         binaries=("/usr/sbin/telnetd", "/usr/bin/socat"), **_LOCAL),
    Peer("telnetlib3", "telnet", "telnetlib3", 2324, _pip("telnetlib3"),
         python_modules=("telnetlib3",)),
    # SMTP (mailto)
    Peer("aiosmtpd", "mailto", "aiosmtpd", 2525, _pip("aiosmtpd"),
         python_modules=("aiosmtpd",)),
    # SOCKS5 proxies (anyurl's -x socks5h://): dante, without a login and with the local
    # user's (RFC 1929 checked against the system's passwords: danted runs as root)
    Peer("dante", "socks5h", "dante", 1080, _apt("dante-server"),
         binaries=("/usr/sbin/danted",)),
    Peer("dante-login", "socks5h", "dante", 1081, _apt("dante-server"),
         binaries=("/usr/sbin/danted",), **_LOCAL,
         note="checks the local user's password: needs root and the local user"),
    # SOCKS4, 4a and 5 (dante has no 4a): OpenSSH's dynamic forwarding, `ssh -D` logged in
    # to an sshd of its own with keys made when the peer starts
    Peer("openssh-socks", "socks4a", "openssh_socks", 1082,
         _apt("openssh-client openssh-server"),
         binaries=("/usr/bin/ssh", "/usr/sbin/sshd", "/usr/bin/ssh-keygen", "/usr/bin/unshare"),
         note="logs in to its own sshd as root: needs root"),
    # Schemes with no packaged server: anyurl's own loopback servers, started when they exist.
    Peer("prospero", "prospero", "module", 1525,
         "comes with anyurl (src/anyurl/schemes/prospero/loopback.py); `pip install -e .`",
         transport="udp", module="anyurl.schemes.prospero.loopback",
         args=("--host", "{host}", "--port", "{port}")),
    Peer("wais", "wais", "module", 2210,
         "comes with anyurl (src/anyurl/schemes/wais/loopback.py); `pip install -e .`",
         module="anyurl.schemes.wais.loopback", args=("--host", "{host}", "--port", "{port}")),
    Peer("gopherplus", "gopher", "module", 7072,
         "comes with anyurl (src/anyurl/schemes/gopher/loopback.py); `pip install -e .`",
         module="anyurl.schemes.gopher.loopback",
         args=("--host", "{host}", "--port", "{port}", "--root", "{data_root}")),
)

PEERS_BY_NAME: dict[str, Peer] = {peer.name: peer for peer in PEERS}


def select(names: list[str] | tuple[str, ...] | None) -> list[Peer]:
    """The peers called `names` (all when empty), in table order; unknown names raise KeyError."""
    if not names:
        return list(PEERS)
    unknown = [name for name in names if name not in PEERS_BY_NAME]
    if unknown:
        raise KeyError(f"unknown peer {unknown[0]!r}; known: {', '.join(PEERS_BY_NAME)}")
    return [peer for peer in PEERS if peer.name in names]
