"""A real MIT Kerberos KDC for the tests and the local cluster: a realm in a folder of its own, its principals, keytabs.

``KerberosKdc(folder, port).start()`` writes ``kdc.conf`` and ``krb5.conf`` into the folder, creates the database
with ``kdb5_util``, adds the principals with ``kadmin.local``, exports their keytabs and runs ``krb5kdc`` in the
foreground on the given port (UDP and TCP); ``stop()`` ends it. Every command gets the folder's files through
KRB5_CONFIG and KRB5_KDC_PROFILE (``environment()``), never the machine's /etc/krb5.conf. Needs Debian's krb5-kdc,
krb5-admin-server (kadmin.local) and krb5-user (kinit) packages (scripts/_venv.sh's ensure_kerberos).

By hand: ``python -m kafka_zk.tools.kdc FOLDER --port N`` runs a KDC until Ctrl-C and prints where its files are.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, Mapping, Optional

REALM = "KAFKA.LOCAL"
SERVICE_PRINCIPAL = "kafka/127.0.0.1"
DEFAULT_PRINCIPALS = (SERVICE_PRINCIPAL, "admin", "alice")
PROGRAMS = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")
SEARCH_PATH = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
START_TIMEOUT_S = 30.0


class KdcError(RuntimeError):
    """The KDC cannot be set up or started (a program missing, a command failing)."""


def program(name: str) -> str:
    """The path of one of MIT Kerberos' programs; KdcError naming the Debian package when it is not installed."""
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(SEARCH_PATH))
    if found is None:
        raise KdcError(
            "%s not found: a KDC needs MIT Kerberos (apt-get install krb5-kdc krb5-admin-server krb5-user; "
            "scripts/_venv.sh's ensure_kerberos does it)" % name
        )
    return found


def krb5_conf_text(realm: str, port: int, host: str = "127.0.0.1") -> str:
    """A client krb5.conf for the realm: TCP only (Java and librdkafka alike), no DNS, no reverse lookups, and the
    broker host in the realm."""
    return (
        "[libdefaults]\n"
        "    default_realm = {realm}\n"
        "    dns_lookup_kdc = false\n"
        "    dns_lookup_realm = false\n"
        "    dns_canonicalize_hostname = false\n"
        "    rdns = false\n"
        "    udp_preference_limit = 1\n"
        "    ticket_lifetime = 24h\n"
        "    forwardable = true\n"
        "\n"
        "[realms]\n"
        "    {realm} = {{\n"
        "        kdc = {host}:{port}\n"
        "        admin_server = {host}:{port}\n"
        "    }}\n"
        "\n"
        "[domain_realm]\n"
        "    {host} = {realm}\n"
        "    localhost = {realm}\n"
    ).format(realm=realm, port=port, host=host)


def _kdc_conf_text(realm: str, port: int, folder: Path) -> str:
    return (
        "[kdcdefaults]\n"
        "    kdc_ports = {port}\n"
        "    kdc_tcp_ports = {port}\n"
        "\n"
        "[realms]\n"
        "    {realm} = {{\n"
        "        database_name = {folder}/principal\n"
        "        key_stash_file = {folder}/stash\n"
        "        acl_file = {folder}/kadm5.acl\n"
        "        kdc_ports = {port}\n"
        "        kdc_tcp_ports = {port}\n"
        "        max_life = 24h\n"
        "        max_renewable_life = 7d\n"
        "    }}\n"
        "\n"
        "[logging]\n"
        "    kdc = FILE:{folder}/kdc.log\n"
        "    admin_server = FILE:{folder}/kadmin.log\n"
        "    default = FILE:{folder}/krb5lib.log\n"
    ).format(realm=realm, port=port, folder=folder)


def keytab_name(principal: str) -> str:
    """``kafka/127.0.0.1`` -> ``kafka_127.0.0.1.keytab``."""
    return principal.split("@", 1)[0].replace("/", "_") + ".keytab"


class KerberosKdc:
    """One realm's KDC in ``folder`` on ``port``: ``start()``, the principals' keytabs (``keytab(principal)``),
    ``kinit`` into a credential cache, ``add_principal`` and ``rotate_key`` for tests, ``stop()``."""

    def __init__(
        self,
        folder,
        port: int,
        realm: str = REALM,
        principals: Iterable[str] = DEFAULT_PRINCIPALS,
        host: str = "127.0.0.1",
    ):
        self.folder = Path(folder).resolve()
        self.port = int(port)
        self.realm = realm
        self.host = host
        self.principals = tuple(principals)
        self._process: Optional[subprocess.Popen] = None

    @property
    def krb5_conf(self) -> Path:
        return self.folder / "krb5.conf"

    @property
    def kdc_conf(self) -> Path:
        return self.folder / "kdc.conf"

    def full_name(self, principal: str) -> str:
        return principal if "@" in principal else "%s@%s" % (principal, self.realm)

    def keytab(self, principal: str) -> Path:
        return self.folder / keytab_name(principal)

    @property
    def java_hosts(self) -> Path:
        return self.folder / "java-hosts"

    def java_options(self) -> list[str]:
        """A JVM's options for this realm: its krb5.conf, and a hosts file in which 127.0.0.1's name is itself. Kafka's
        Java client names the broker's service principal by the reverse lookup of the broker's address, which the
        machine's /etc/hosts answers ``localhost``; the principal here is ``kafka/127.0.0.1``."""
        self.java_hosts.write_text("%s %s localhost\n" % (self.host, self.host))
        return ["-Djava.security.krb5.conf=%s" % self.krb5_conf, "-Djdk.net.hosts.file=%s" % self.java_hosts]

    def environment(self, ccache: Optional[str] = None, base: Optional[Mapping[str, str]] = None) -> dict:
        """An environment for a process of this realm: its krb5.conf and KDC profile, and a credential cache of its
        own (``ccache``, else one in the folder) so nothing reads or writes the machine's."""
        environ = dict(os.environ if base is None else base)
        environ["KRB5_CONFIG"] = str(self.krb5_conf)
        environ["KRB5_KDC_PROFILE"] = str(self.kdc_conf)
        environ["KRB5CCNAME"] = ccache or "FILE:%s" % (self.folder / "krb5cc_default")
        environ.pop("KRB5_KTNAME", None)
        environ.pop("KRB5_CLIENT_KTNAME", None)
        return environ

    def _run(self, argv, what: str) -> str:
        done = subprocess.run(argv, env=self.environment(), capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise KdcError("%s failed (exit %d): %s" % (what, done.returncode, (done.stderr or done.stdout).strip()))
        return done.stdout

    def _kadmin(self, query: str) -> str:
        return self._run([program("kadmin.local"), "-r", self.realm, "-q", query], "kadmin.local -q %r" % query)

    def create(self) -> None:
        """The configuration, the database and the principals with their keytabs, unless the database exists."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.krb5_conf.write_text(krb5_conf_text(self.realm, self.port, self.host))
        self.kdc_conf.write_text(_kdc_conf_text(self.realm, self.port, self.folder))
        (self.folder / "kadm5.acl").write_text("*/admin@%s *\n" % self.realm)
        if (self.folder / "principal").exists():
            return
        master_password = secrets.token_urlsafe(24)
        self._run([program("kdb5_util"), "create", "-s", "-r", self.realm, "-P", master_password], "kdb5_util create")
        for principal in self.principals:
            self.add_principal(principal)

    def add_principal(self, principal: str, max_life: Optional[str] = None) -> Path:
        """A principal with a random key, exported to its keytab (``keytab(principal)``), which it answers."""
        options = "-randkey" + (' -maxlife "%s"' % max_life if max_life else "")
        self._kadmin("addprinc %s %s" % (options, self.full_name(principal)))
        path = self.keytab(principal)
        if path.exists():
            path.unlink()
        self._kadmin("ktadd -k %s -norandkey %s" % (path, self.full_name(principal)))
        return path

    def rotate_key(self, principal: str) -> None:
        """A new random key for the principal: the keytabs exported before no longer log in."""
        self._kadmin("cpw -randkey %s" % self.full_name(principal))

    def kinit(self, principal: str, ccache: str, keytab: Optional[Path] = None, lifetime: Optional[str] = None):
        """A ticket-granting ticket for the principal from its keytab into ``ccache``."""
        argv = [program("kinit"), "-k", "-t", str(keytab or self.keytab(principal))]
        if lifetime:
            argv += ["-l", lifetime]
        argv.append(self.full_name(principal))
        done = subprocess.run(argv, env=self.environment(ccache), capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise KdcError("kinit %s failed: %s" % (principal, done.stderr.strip()))

    def start(self) -> "KerberosKdc":
        self.create()
        if self.running:
            return self
        log = open(self.folder / "krb5kdc.out", "ab")
        try:
            self._process = subprocess.Popen(
                [program("krb5kdc"), "-n", "-r", self.realm, "-P", str(self.pid_file)],
                env=self.environment(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._listening():
            if self._process.poll() is not None:
                raise KdcError("krb5kdc exited with %s: see %s" % (self._process.returncode, self.folder / "kdc.log"))
            if time.monotonic() > deadline:
                self.stop()
                raise KdcError("krb5kdc did not listen on port %d within %.0f s" % (self.port, START_TIMEOUT_S))
            time.sleep(0.05)
        return self

    def _listening(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    @property
    def pid_file(self) -> Path:
        return self.folder / "krb5kdc.pid"

    def pid(self) -> Optional[int]:
        """The pid of this folder's krb5kdc while it runs (started by this object or by an earlier process, e.g. a
        local cluster started with --daemon), else None."""
        if self._process is not None and self._process.poll() is None:
            return self._process.pid
        try:
            pid = int(self.pid_file.read_text().split()[0])
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                command = handle.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            return None
        return pid if command and command[0].endswith(b"krb5kdc") and str(self.realm).encode() in command else None

    @property
    def running(self) -> bool:
        return self.pid() is not None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
            return
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while self.pid() is not None and time.monotonic() < deadline:
            time.sleep(0.05)

    def __enter__(self) -> "KerberosKdc":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kdc", description="Run an MIT Kerberos KDC for realm %s." % REALM)
    parser.add_argument("folder", help="the KDC's folder (its configuration, database, keytabs)")
    parser.add_argument("--port", type=int, default=8888, help="the KDC's UDP and TCP port (default 8888)")
    parser.add_argument("--realm", default=REALM)
    args = parser.parse_args(argv)
    kdc = KerberosKdc(args.folder, args.port, args.realm)
    kdc.start()
    # blocked only now: krb5kdc would inherit the mask, and ignore the SIGTERM that stops it
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    print("KDC for %s on port %d; KRB5_CONFIG=%s; keytabs in %s" % (kdc.realm, kdc.port, kdc.krb5_conf, kdc.folder))
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        kdc.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
