#!/usr/bin/env bash
# Install every test peer server (see tests/peers/table.py) on a Debian 12 machine, as root.
#
# Idempotent and quick on a second run: it installs only what is missing.
# Debian would start vsftpd, nginx, inetd... on ports 21/80/23 as it installs them; a temporary
# /usr/sbin/policy-rc.d that exits 101 forbids that, and any daemon that still appears during
# the install is stopped by PID at the end. The peers are started by `python -m tests.peers start`
# on free ports, never by this script.
#
# pure-ftpd conflicts with vsftpd as a package, and inn2 with leafnode, so their .debs are only
# unpacked, under /opt/anyurl-peers/pure-ftpd and /opt/anyurl-peers/inn2.
set -euo pipefail

PYTHON=${PYTHON:-python3}
OPT=/opt/anyurl-peers  # tests/peers/table.py PEERS_OPT
# Keep in sync with tests/peers/table.py (LOCAL_USER, LOCAL_PASSWORD).
PEER_USER=anyurl
PEER_PASSWORD=anyurl-peer-pw

APT_PACKAGES=(
    vsftpd nginx-light pygopherd gophernicus leafnode inetutils-telnetd
    # a SOCKS5 proxy (dante) and TLS in front of leafnode for nntps:// (stunnel)
    dante-server stunnel4
    # a SOCKS4a proxy: ssh -D logged in to an sshd of its own (tests/peers/servers.py);
    # a system sshd is left alone (not in DAEMONS: stopping new ones would cut logins)
    openssh-client openssh-server
    socat curl wget util-linux procps passwd
    # validates docker/docker-compose.yml without a Docker engine (tests/unit/test_peers_table.py)
    docker-compose
    # pure-ftpd's shared libraries (the binary itself is unpacked, not installed)
    libcap2 libcrypt1 libpam0g libsodium23 libssl3
    # INN's (the inn2 package conflicts with leafnode, so it is unpacked, not installed;
    # libinn comes from inn2-inews, which does not conflict): nnrpd with STARTTLS
    inn2-inews libcanlock3 libdb5.3 libperl5.36 libpython3.11 libsasl2-2 openssl
    # the browser of tests/integration/test_serve_browser.py (Selenium drives the system
    # chromium through /usr/bin/chromedriver: browsers cannot be downloaded here)
    chromium chromium-driver
    # the shells whose completion scripts tests/cli/test_completion.py parses (zsh -n, fish -n)
    zsh fish
    # a real site (Python's documentation, Sphinx pages and their CSS @import chain):
    # tests/integration/test_mirror_requisites.py and bench/run.py's mirror-pydoc row
    python3-doc
)
PIP_PACKAGES=(pyftpdlib aioftp aiosmtpd telnetlib3)
PIP_MODULES=(pyftpdlib aioftp aiosmtpd telnetlib3)
# Daemons the packages above could start; any that appear during this run are stopped.
DAEMONS=(vsftpd nginx pygopherd inetd inetutils-inetd syslogd leafnode gophernicus pure-ftpd
         danted stunnel4 stunnel innd nnrpd)

log() { printf 'install-peers: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
    log "must run as root (apt-get, useradd); try: sudo bash $0"
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# Another apt (unattended-upgrades at boot, a second install) may hold the dpkg lock:
# wait for it, up to ANYURL_APT_LOCK_WAIT seconds, instead of failing at once; if it is
# still held then, say which process holds it.
APT_LOCK_WAIT=${ANYURL_APT_LOCK_WAIT:-600}
LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock
       /var/cache/apt/archives/lock)

lock_holders() {
    local fd pid target lock
    for fd in /proc/[0-9]*/fd/*; do
        target=$(readlink "$fd" 2>/dev/null) || continue
        for lock in "${LOCKS[@]}"; do
            if [ "$target" = "$lock" ]; then
                pid=${fd#/proc/}; pid=${pid%%/*}
                printf '%s (pid %s) holds %s\n' "$(tr '\0\n' '  ' <"/proc/$pid/cmdline" 2>/dev/null)" \
                    "$pid" "$lock"
            fi
        done
    done | sort -u
}

apt_get() {
    local status=0
    apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" "$@" || status=$?
    if [ "$status" -ne 0 ]; then
        local holders
        holders=$(lock_holders)
        if [ -n "$holders" ]; then
            log "apt-get $1 failed after waiting up to ${APT_LOCK_WAIT}s for the package lock:"
            printf '%s\n' "$holders" | while read -r line; do log "  $line"; done
            log "wait for it to finish (or stop it), then run this script again"
        fi
    fi
    return "$status"
}

daemon_pids() {
    local d
    for d in "${DAEMONS[@]}"; do pgrep -x "$d" || true; done | sort -n
}

missing_apt=()
for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing_apt+=("$p")
    fi
done

pure_ftpd_bin="$OPT/pure-ftpd/usr/sbin/pure-ftpd"
inn_bin="$OPT/inn2/usr/lib/news/bin/nnrpd"

# `apt-get download PACKAGE` unpacked with dpkg-deb -x into $OPT/PACKAGE.
unpack() {
    log "unpacking $1 into $OPT/$1"
    tmp=$(mktemp -d)
    chmod 755 "$tmp"  # apt-get download runs as _apt
    (cd "$tmp" && { apt_get download -q "$1" || { apt_get update -q && apt_get download -q "$1"; }; })
    mkdir -p "$OPT/$1"
    dpkg-deb -x "$tmp/$1"_*.deb "$OPT/$1"
    rm -rf "$tmp"
}

if [ ${#missing_apt[@]} -gt 0 ] || [ ! -x "$pure_ftpd_bin" ] || [ ! -x "$inn_bin" ]; then
    before=$(daemon_pids)
    policy=/usr/sbin/policy-rc.d
    created_policy=no
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# anyurl install-peers: no service starts during install\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        created_policy=yes
    fi
    cleanup() {
        if [ "$created_policy" = yes ]; then rm -f "$policy"; fi
    }
    trap cleanup EXIT

    if [ ${#missing_apt[@]} -gt 0 ]; then
        log "apt-get install ${missing_apt[*]}"
        if ! apt_get install -y -q --no-install-recommends "${missing_apt[@]}"; then
            log "apt-get install failed; running apt-get update and trying again"
            apt_get update -q
            apt_get install -y -q --no-install-recommends "${missing_apt[@]}"
        fi
    fi

    if [ ! -x "$pure_ftpd_bin" ]; then unpack pure-ftpd; fi
    if [ ! -x "$inn_bin" ]; then unpack inn2; fi

    # Stop whatever daemon the install started anyway (only the new PIDs).
    after=$(daemon_pids)
    new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -v '^$' || true)
    if [ -n "$new" ]; then
        log "stopping daemons started by the install: $(echo $new)"
        kill $new 2>/dev/null || true
        sleep 1
        kill -9 $new 2>/dev/null || true
    fi
    cleanup
    trap - EXIT
else
    log "apt packages, pure-ftpd and inn2 already present"
fi

# Keep the system services off on machines with systemd or sysvinit, so a reboot does not
# start them on 21/23/80/119 either (best effort; absent on containers).
if [ -d /run/systemd/system ]; then
    systemctl disable --now vsftpd nginx pygopherd inetutils-inetd gophernicus.socket \
        >/dev/null 2>&1 || true
fi

missing_pip=()
for i in "${!PIP_MODULES[@]}"; do
    if ! "$PYTHON" -c "import ${PIP_MODULES[$i]}" 2>/dev/null; then
        missing_pip+=("${PIP_PACKAGES[$i]}")
    fi
done
if [ ${#missing_pip[@]} -gt 0 ]; then
    log "pip install ${missing_pip[*]}"
    "$PYTHON" -m pip install -q "${missing_pip[@]}"
else
    log "python packages already present"
fi

# The local test user: vsftpd local login, telnet login, and the unprivileged user that
# gophernicus runs as.
if ! id "$PEER_USER" >/dev/null 2>&1; then
    log "creating user $PEER_USER"
    useradd --create-home --shell /bin/bash "$PEER_USER"
fi
# chpasswd is cheap and makes the password right whatever it was before.
echo "$PEER_USER:$PEER_PASSWORD" | chpasswd
# vsftpd's PAM stack refuses users listed in /etc/ftpusers.
if [ -f /etc/ftpusers ] && grep -qx "$PEER_USER" /etc/ftpusers; then
    sed -i "/^$PEER_USER\$/d" /etc/ftpusers
fi

log "done"
