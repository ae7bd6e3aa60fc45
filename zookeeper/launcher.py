"""Launcher for a real Apache ZooKeeper server: finds its jars, writes zoo.cfg, starts, probes, stops.

Stdlib only, so the shell scripts can run it with any Python 3. Usable as a library
(`ZooKeeperServer`, `ZooKeeperEnsemble`, `find_zookeeper_classpath`, `zkcli_command`) and as a command:

    python -m zookeeper.launcher start  --data-dir D --port P [--host H] [--daemon] [--sasl-user NAME=PASSWORD ...]
    python -m zookeeper.launcher start  --data-dir D --port P --ensemble N [--quorum-port Q] [--election-port E] ...
    python -m zookeeper.launcher start  --config zookeeper.properties [--daemon]
    python -m zookeeper.launcher stop   --data-dir D | --config zookeeper.properties
    python -m zookeeper.launcher status --data-dir D | --config zookeeper.properties
    python -m zookeeper.launcher shell  HOST:PORT[,HOST:PORT...][/chroot] [zkCli command ...]
    zookeeper-shell HOST:PORT[/chroot] [-zk-tls-config-file FILE] [zkCli command ...]
    python -m zookeeper.launcher classpath

As Kafka's scripts do, `start` and `shell` hand the JVM options in KAFKA_OPTS to Java, so a JAAS file named there
(-Djava.security.auth.login.config=...) gives the server its `Server` section and the shell its `Client` login.

With `--ensemble N`, member n (1..N) keeps its files in D/zk-n/ and listens for clients on H:P+n-1, for its
peers on H:Q+n-1 (quorum, default 2888) and H:E+n-1 (leader election, default 3888); `stop` and `status`
take the same options.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

from zookeeper.class_archive import archive_options

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "zoo.cfg.template"
LOG4J2_CONFIG = HERE / "log4j2.properties"
LOGBACK_CONFIG = HERE / "logback.xml"

SERVER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
CLI_MAIN = "org.apache.zookeeper.ZooKeeperMain"
HEAP_OPTS = ["-Xms32m", "-Xmx256m"]

# Artifacts a ZooKeeper 3.9 server and its zkCli need (checked against the jars the pyspark wheel
# ships): metrics-core and snappy-java are loaded at server start, commons-cli by the shell's
# command parser, netty-handler/netty-common because the client config touches netty's SslContext.
REQUIRED_ARTIFACTS = (
    "zookeeper",
    "zookeeper-jute",
    "slf4j-api",
    "metrics-core",
    "snappy-java",
    "commons-cli",
    "netty-handler",
    "netty-common",
)
# What the Netty server connection factory (a TLS client port) loads besides netty-handler and netty-common; taken
# when present (netty-codec-base exists from Netty 4.2 on, the epoll transport is optional).
NETTY_SERVER_ARTIFACTS = (
    "netty-buffer",
    "netty-transport",
    "netty-codec",
    "netty-codec-base",
    "netty-resolver",
    "netty-transport-native-unix-common",
    "netty-transport-classes-epoll",
)
# An slf4j binding; without one ZooKeeper still runs but logs nothing.
LOGGING_BINDINGS = (
    ("log4j-slf4j2-impl", "log4j-api", "log4j-core"),
    ("log4j-slf4j-impl", "log4j-api", "log4j-core"),
    ("logback-classic", "logback-core"),
)
_JAR_NAME = re.compile(r"^(?P<artifact>.+?)-(?P<version>\d[^/]*)\.jar$")

NETTY_SERVER_FACTORY = "org.apache.zookeeper.server.NettyServerCnxnFactory"
X509_AUTH_PROVIDER = "org.apache.zookeeper.server.auth.X509AuthenticationProvider"
PID_FILE = "zookeeper.pid"
SERVER_JAAS_FILE = "zookeeper_jaas.conf"
SASL_AUTH_PROVIDER = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
DIGEST_LOGIN_MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule"
LOG_FILE = "zookeeper.log"
CFG_FILE = "zoo.cfg"
MYID_FILE = "myid"
NOT_SERVING = "This ZooKeeper instance is not currently serving requests"
QUORUM_MODES = ("leader", "follower")


class ZooKeeperError(RuntimeError):
    """ZooKeeper could not be found, started or stopped."""


class ServerTls(NamedTuple):
    """A client port that speaks only TLS with client certificates (ssl.clientAuth=need), where the x509 provider
    makes a client certificate's DN (x509:CN=...,O=...) its ZooKeeper identity. The keystore and truststore are of
    `store_type` (JKS, PKCS12 or PEM); the launcher's own health checks (ruok, srvr) present `probe_certfile` and
    `probe_keyfile` (PEM, the key unencrypted) and trust `probe_cafile`. `plain_port`: a plain clientPort besides
    (None: closed)."""

    keystore: str
    keystore_password: str
    truststore: str
    truststore_password: str
    probe_certfile: str
    probe_keyfile: str
    probe_cafile: str
    store_type: str = "PKCS12"
    plain_port: int | None = None

    def zoo_cfg(self, host: str, port: int) -> dict[str, str]:
        """zoo.cfg keys of a server whose TLS client port is host:port."""
        settings = {
            "serverCnxnFactory": NETTY_SERVER_FACTORY,
            "secureClientPort": str(port),
            "secureClientPortAddress": host,
            "ssl.keyStore.location": self.keystore,
            "ssl.keyStore.password": self.keystore_password,
            "ssl.keyStore.type": self.store_type,
            "ssl.trustStore.location": self.truststore,
            "ssl.trustStore.password": self.truststore_password,
            "ssl.trustStore.type": self.store_type,
            "ssl.clientAuth": "need",
            # Clients are known by their certificate's CA and DN, not by whether it names the address they come from.
            "ssl.hostnameVerification": "false",
            # ZooKeeper 3.9 serves TLSv1.3 alone by default; Kafka 2.5's clients ask for TLSv1.2 by default.
            "ssl.enabledProtocols": "TLSv1.3,TLSv1.2",
            "authProvider.x509": X509_AUTH_PROVIDER,
        }
        if self.plain_port is not None:
            settings["clientPort"] = str(self.plain_port)
        return settings

    def probe_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.probe_cafile)
        context.load_cert_chain(self.probe_certfile, self.probe_keyfile)
        return context


def _pyspark_jars_dir() -> Path | None:
    # find_spec on a top-level package locates it without importing it (pyspark is slow to import).
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    jars = Path(list(spec.submodule_search_locations)[0]) / "jars"
    return jars if jars.is_dir() else None


def _select_jars(jars_dir: Path) -> list[str]:
    """The minimal jar list from a directory of many jars, or the whole directory if one is missing."""
    by_artifact: dict[str, str] = {}
    for path in sorted(jars_dir.glob("*.jar")):
        match = _JAR_NAME.match(path.name)
        if match:
            by_artifact.setdefault(match.group("artifact"), str(path))
    if not all(name in by_artifact for name in REQUIRED_ARTIFACTS):
        return [str(jars_dir / "*")]
    chosen = [by_artifact[name] for name in REQUIRED_ARTIFACTS]
    chosen.extend(by_artifact[name] for name in NETTY_SERVER_ARTIFACTS if name in by_artifact)
    for binding in LOGGING_BINDINGS:
        if all(name in by_artifact for name in binding):
            chosen.extend(by_artifact[name] for name in binding)
            break
    return chosen


def find_zookeeper_classpath() -> list[str]:
    """Classpath entries for ZooKeeper: $ZOOKEEPER_HOME, then the pyspark wheel, then Debian's package."""
    home = os.environ.get("ZOOKEEPER_HOME")
    if home:
        jars = sorted(glob.glob(os.path.join(home, "lib", "*.jar"))) + sorted(glob.glob(os.path.join(home, "*.jar")))
        if not any(Path(j).name.startswith("zookeeper-") for j in jars):
            raise ZooKeeperError(f"ZOOKEEPER_HOME={home} has no zookeeper-*.jar in lib/ or at its top")
        return jars
    jars_dir = _pyspark_jars_dir()
    if jars_dir is not None and any(jars_dir.glob("zookeeper-[0-9]*.jar")):
        return _select_jars(jars_dir)
    debian_jars = sorted(glob.glob("/usr/share/zookeeper/*.jar"))
    if debian_jars or os.path.exists("/usr/share/java/zookeeper.jar"):
        return debian_jars + ["/usr/share/java/*"]
    raise ZooKeeperError(
        "ZooKeeper jars not found: set ZOOKEEPER_HOME, install pyspark into the venv, or install Debian's zookeeper"
    )


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and os.access(os.path.join(java_home, "bin", "java"), os.X_OK):
        return os.path.join(java_home, "bin", "java")
    found = shutil.which("java")
    if not found:
        raise ZooKeeperError("no java found: install a JRE (17+) or set JAVA_HOME")
    return found


def _logging_opts(level: str, stream: str) -> list[str]:
    return [
        f"-Dlog4j2.configurationFile={LOG4J2_CONFIG}",
        f"-Dlogback.configurationFile={LOGBACK_CONFIG}",
        f"-Dzookeeper.log.level={level}",
        f"-Dzookeeper.log.stream={stream}",
    ]


def kafka_opts(environ=None) -> list[str]:
    """The JVM options in KAFKA_OPTS (Kafka's scripts pass them to every JVM they start)."""
    return shlex.split((os.environ if environ is None else environ).get("KAFKA_OPTS", ""))


def jvm_performance_opts(default: Sequence[str] = (), environ=None) -> list[str]:
    """The JVM options in KAFKA_JVM_PERFORMANCE_OPTS when it is set and not empty, else ``default``: the rule of
    Kafka's kafka-run-class.sh, whose own default is its garbage collector settings."""
    value = (os.environ if environ is None else environ).get("KAFKA_JVM_PERFORMANCE_OPTS", "")
    return shlex.split(value) if value.strip() else list(default)


def server_command(cfg_path: str | os.PathLike, jvm_options: list[str] | tuple = ()) -> list[str]:
    """The java command line that runs a ZooKeeper server with the given zoo.cfg."""
    java, classpath = _java(), find_zookeeper_classpath()
    return [
        java,
        *HEAP_OPTS,
        *jvm_performance_opts(),
        *archive_options(java, classpath, jvm_options),
        *jvm_options,
        "-cp",
        os.pathsep.join(classpath),
        *_logging_opts("INFO", "OUT"),
        SERVER_MAIN,
        str(cfg_path),
    ]


def zkcli_command(
    server: "ZooKeeperServer | ZooKeeperEnsemble | str", jvm_options: list[str] | tuple = ()
) -> list[str]:
    """The java command line for ZooKeeper's shell (ZooKeeperMain) against a server, an ensemble, or a connect
    string "host:port[,host:port...][/chroot]" (ZooKeeper's client parses the hosts and the chroot itself)."""
    connect = server if isinstance(server, str) else server.connect_string
    # ZooKeeper 3.9's client refuses DIGEST-MD5 in its default FIPS mode; the 3.5 client of Kafka 2.5 had none.
    java, classpath = _java(), find_zookeeper_classpath()
    return [
        java,
        "-Xmx128m",
        "-Dzookeeper.fips-mode=false",
        *archive_options(java, classpath, jvm_options),
        *jvm_options,
        "-cp",
        os.pathsep.join(classpath),
        *_logging_opts("WARN", "ERR"),
        "-Dzookeeper.admin.enableServer=false",
        CLI_MAIN,
        "-server",
        connect,
    ]


def _jaas_quoted(value: str) -> str:
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def server_jaas(users: dict[str, str]) -> str:
    """A JAAS `Server` section for ZooKeeper's DIGEST-MD5 logins: one user_<name>="<password>" per user."""
    options = "".join("\n  user_%s=%s" % (name, _jaas_quoted(password)) for name, password in users.items())
    return "Server {\n  %s required%s;\n};\n" % (DIGEST_LOGIN_MODULE, options)


def four_letter_word(host: str, port: int, word: str, timeout: float = 2.0, tls: ssl.SSLContext | None = None) -> str:
    """Send a four-letter command (ruok, srvr, stat, mntr) and return the whole answer (over TLS with `tls`)."""
    with socket.create_connection((host, port), timeout=timeout) as plain:
        sock = tls.wrap_socket(plain, server_hostname=host) if tls is not None else plain
        sock.sendall(word.encode("ascii"))
        chunks = []
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def is_serving(host: str, port: int, tls: ssl.SSLContext | None = None) -> bool:
    """True when a ZooKeeper answers ruok with imok and srvr reports a mode (it serves requests)."""
    try:
        return four_letter_word(host, port, "ruok", tls=tls) == "imok" and "Mode: " in four_letter_word(
            host, port, "srvr", tls=tls
        )
    except OSError:
        return False


def server_mode(host: str, port: int, tls: ssl.SSLContext | None = None) -> str | None:
    """The Mode srvr reports (leader, follower, observer, standalone); None when the server is unreachable or
    not serving (an ensemble member without a quorum)."""
    try:
        answer = four_letter_word(host, port, "srvr", tls=tls)
    except OSError:
        return None
    match = re.search(r"^Mode: (\S+)", answer, re.MULTILINE)
    return match.group(1) if match else None


def _port_in_use(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def live_pid(process, pid_file: Path, is_ours) -> int | None:
    """The pid of the process we started (``process``, a Popen or None) while it runs, else the pid that
    ``pid_file`` names if ``is_ours(pid)`` says it is still our kind of process; None when neither."""
    if process is not None and process.poll() is None:
        return process.pid
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if is_ours(pid) else None


def process_running(pid: int, marker: str | None = None) -> bool:
    """True if `pid` is alive, not a zombie, and (when given) has `marker` in its command line."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[-1].split()[0] == "Z":
            return False
        return marker is None or marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def wait_for_exit(pid: int, timeout: float, process: subprocess.Popen | None = None, marker: str | None = None) -> bool:
    """Wait up to `timeout` seconds for `pid` to exit (reaping it when it is our child `process`)."""
    if process is not None and process.pid == pid:
        try:
            process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline = time.monotonic() + timeout
    while process_running(pid, marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _pid_is_zookeeper(pid: int) -> bool:
    return process_running(pid, SERVER_MAIN)


def read_properties(path: str | os.PathLike) -> dict[str, str]:
    """key=value (or key: value) lines of a Java-style properties file; # and ! start comments."""
    props: dict[str, str] = {}
    for raw in Path(path).read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        key, _, value = line.partition("=") if "=" in line else line.partition(":")
        props[key.strip()] = value.strip()
    return props


def peer_lines(peers: Mapping[int, tuple[str, int, int]]) -> list[str]:
    """zoo.cfg's ensemble lines, server.<id>=host:quorumPort:electionPort, in id order."""
    return [
        "server.%d=%s:%d:%d" % (server_id, host, int(quorum), int(election))
        for server_id, (host, quorum, election) in sorted(peers.items())
    ]


def render_zoo_cfg(
    data_dir: str,
    port: int,
    host: str,
    extra: dict[str, str] | None = None,
    peers: Mapping[int, tuple[str, int, int]] | None = None,
    tls: Mapping[str, str] | None = None,
) -> str:
    """zoo.cfg text: the template filled in, the ensemble's `peers` lines (see `peer_lines`), then each extra
    key replacing its line or appended. `tls` (ServerTls.zoo_cfg): the client port is secureClientPort, and the
    plain clientPort is gone unless `tls` names one."""
    text = string.Template(TEMPLATE.read_text()).substitute(data_dir=data_dir, client_port=port, client_address=host)
    lines = text.splitlines()
    if tls:
        closed = ("clientPort", "clientPortAddress")
        lines = [line for line in lines if line.split("=", 1)[0].strip() not in closed]
        extra = dict(tls, **(extra or {}))
    if peers:
        lines += ["", "# The ensemble: server.<myid>=host:quorumPort:electionPort."] + peer_lines(peers)
    for key, value in (extra or {}).items():
        setting = f"{key}={value}"
        for index, line in enumerate(lines):
            if line.split("=", 1)[0].strip() == key and not line.lstrip().startswith("#"):
                lines[index] = setting
                break
        else:
            lines.append(setting)
    return "\n".join(lines) + "\n"


class ZooKeeperServer:
    """One ZooKeeper server, standalone or an ensemble member, whose config, pid file and log live in `data_dir`."""

    def __init__(
        self,
        data_dir: str | os.PathLike,
        port: int = 2181,
        host: str = "127.0.0.1",
        extra_config: dict[str, str] | None = None,
        sasl_users: dict[str, str] | None = None,
        jvm_options: list[str] | None = None,
        server_id: int | None = None,
        peers: Mapping[int, tuple[str, int, int]] | None = None,
        command_prefix: Sequence[str] | None = None,
        tls: ServerTls | None = None,
    ):
        """Clients connect to `host`:`port` (with `tls`, see ServerTls, over TLS only). `extra_config`: zoo.cfg keys
        replacing or added to the template's (e.g. {"tickTime": "500"}). `sasl_users` {name: password}: clients may
        log in with SASL DIGEST-MD5 as these users (a `Server` JAAS section in the data dir, and ZooKeeper's SASL auth
        provider); `jvm_options`: more options for its JVM.

        An ensemble member has a `server_id` (its myid, written to <data_dir>/myid) and `peers`, the whole ensemble
        as {server id: (host, quorum port, election port)}, its own entry included; it serves once srvr reports
        it leader or follower (the only member of a one-member ensemble runs standalone). `command_prefix` goes in
        front of the java command, e.g. ["ip", "netns", "exec", "kz-zk-1"] to run it in a network namespace; the
        prefix must exec the JVM (as `ip netns exec` does) so that the pid we start is the server's."""
        self.data_dir = Path(data_dir).resolve()
        self.port = int(port)
        self.host = host
        self.extra_config = dict(extra_config or {})
        self.sasl_users = dict(sasl_users or {})
        self.jvm_options = list(jvm_options or [])
        self.server_id = None if server_id is None else int(server_id)
        self.peers = {int(n): tuple(peer) for n, peer in (peers or {}).items()}
        self.command_prefix = list(command_prefix or [])
        self.tls = tls
        self._probe_tls = tls.probe_context() if tls is not None else None
        if self.peers and self.server_id not in self.peers:
            raise ZooKeeperError(f"server id {self.server_id} is not among the peers {sorted(self.peers)}")
        if self.sasl_users:
            self.extra_config.setdefault("authProvider.1", SASL_AUTH_PROVIDER)
        self._process: subprocess.Popen | None = None

    @property
    def connect_string(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / PID_FILE

    @property
    def log_file(self) -> Path:
        return self.data_dir / LOG_FILE

    @property
    def cfg_file(self) -> Path:
        return self.data_dir / CFG_FILE

    @property
    def jaas_file(self) -> Path:
        return self.data_dir / SERVER_JAAS_FILE

    @property
    def myid_file(self) -> Path:
        return self.data_dir / MYID_FILE

    @property
    def in_ensemble(self) -> bool:
        return bool(self.peers)

    def command(self) -> list[str]:
        """The server's command line (`command_prefix`, then java), writing its zoo.cfg (and JAAS file) first."""
        options = list(self.jvm_options)
        if self.sasl_users:
            options.append(f"-Djava.security.auth.login.config={self.jaas_file}")
        return self.command_prefix + server_command(self.write_config(), options)

    def pid(self) -> int | None:
        """The server's pid if the pid file names a live ZooKeeper process."""
        return live_pid(self._process, self.pid_file, _pid_is_zookeeper)

    def is_running(self) -> bool:
        return self.pid() is not None

    def mode(self) -> str | None:
        """What srvr says this server is (leader, follower, standalone, ...); None when it does not serve."""
        return server_mode(self.host, self.port, self._probe_tls)

    def is_serving(self) -> bool:
        """Standalone: it answers ruok and srvr. Ensemble member: it is the leader or a follower of a quorum."""
        if not self.in_ensemble:
            return is_serving(self.host, self.port, self._probe_tls)
        return self.mode() in (QUORUM_MODES if len(self.peers) > 1 else ("standalone",))

    def write_config(self) -> Path:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.cfg_file.write_text(
            render_zoo_cfg(
                str(self.data_dir),
                self.port,
                self.host,
                self.extra_config,
                self.peers or None,
                self.tls.zoo_cfg(self.host, self.port) if self.tls is not None else None,
            )
        )
        if self.in_ensemble:
            self.myid_file.write_text(f"{self.server_id}\n")
        if self.sasl_users:
            self.jaas_file.write_text(server_jaas(self.sasl_users))
            self.jaas_file.chmod(0o600)
        return self.cfg_file

    def start(self, timeout: float = 30.0) -> "ZooKeeperServer":
        """Start the server in the background and wait until it serves requests (an ensemble member: until it
        has joined a quorum, so the quorum's other members must be running or starting too)."""
        self.launch()
        self.wait_serving(timeout)
        return self

    def restart(self, timeout: float = 30.0) -> "ZooKeeperServer":
        """Stop (SIGTERM) and start again, waiting until it serves (an ensemble member: has rejoined its quorum)."""
        self.stop()
        return self.start(timeout)

    def launch(self) -> None:
        """Start the server's process in the background without waiting for it to serve."""
        if self.is_running():
            raise ZooKeeperError(f"ZooKeeper already running from {self.data_dir} (pid {self.pid()})")
        if _port_in_use(self.host, self.port):
            raise ZooKeeperError(f"port {self.connect_string} is already in use")
        command = self.command()
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                command,
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.pid_file.write_text(f"{self._process.pid}\n")

    def wait_serving(self, timeout: float = 30.0) -> None:
        """Wait until `is_serving`; raise (and kill the server) if it exits or does not serve within `timeout`."""
        deadline = time.monotonic() + timeout
        while not self.is_serving():
            if self._process is not None and self._process.poll() is not None:
                raise ZooKeeperError(
                    f"ZooKeeper exited with code {self._process.returncode}; log tail:\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise ZooKeeperError(f"ZooKeeper not serving after {timeout}s; log tail:\n{self.log_tail()}")
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, wait up to `timeout` seconds, then SIGKILL."""
        pid = self.pid()
        if pid is None:
            self._forget()
            return
        os.kill(pid, signal.SIGTERM)
        if not self._wait_exit(pid, timeout):
            os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, timeout)
        self._forget()

    def kill(self) -> None:
        """SIGKILL at once (for fault tests)."""
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, 10.0)
        self._forget()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _wait_exit(self, pid: int, timeout: float) -> bool:
        return wait_for_exit(pid, timeout, self._process, SERVER_MAIN)

    def _forget(self) -> None:
        self._process = None
        self.pid_file.unlink(missing_ok=True)

    def __repr__(self) -> str:
        member = "" if self.server_id is None else f", server_id={self.server_id}"
        return f"ZooKeeperServer({str(self.data_dir)!r}, port={self.port}, host={self.host!r}{member})"


class EnsembleMember(NamedTuple):
    """Where one ensemble member listens: clients on host:client_port, its peers on host:quorum_port (followers
    to the leader) and host:election_port (leader election); `command_prefix` goes before its java command."""

    host: str
    client_port: int
    quorum_port: int
    election_port: int
    command_prefix: tuple[str, ...] = ()


def loopback_members(
    size: int, client_port: int, quorum_port: int = 2888, election_port: int = 3888, host: str = "127.0.0.1"
) -> list[EnsembleMember]:
    """`size` members on one host, member n (1..size) on client_port+n-1, quorum_port+n-1 and election_port+n-1."""
    return [
        EnsembleMember(host, client_port + index, quorum_port + index, election_port + index) for index in range(size)
    ]


class ZooKeeperEnsemble:
    """A ZooKeeper ensemble: member n (1..N, its myid) is a `ZooKeeperServer` with its files in <data_dir>/zk-n/."""

    def __init__(
        self,
        data_dir: str | os.PathLike,
        members: Sequence[EnsembleMember | tuple],
        extra_config: dict[str, str] | None = None,
        sasl_users: dict[str, str] | None = None,
        jvm_options: list[str] | None = None,
        tls: ServerTls | None = None,
    ):
        """`members`: EnsembleMember(host, client_port, quorum_port, election_port[, command_prefix]) or plain
        tuples in that order, member 1 first. `extra_config`, `sasl_users`, `jvm_options` and `tls` go to every member
        (see `ZooKeeperServer`), e.g. extra_config={"tickTime": "500"} for session timeouts down to 1 s."""
        self.data_dir = Path(data_dir).resolve()
        self.members = [EnsembleMember(*member) for member in members]
        if not self.members:
            raise ZooKeeperError("an ensemble needs at least one member")
        peers = {n: (member.host, member.quorum_port, member.election_port) for n, member in enumerate(self.members, 1)}
        self.servers = [
            ZooKeeperServer(
                self.data_dir / f"zk-{n}",
                port=member.client_port,
                host=member.host,
                extra_config=extra_config,
                sasl_users=sasl_users,
                jvm_options=jvm_options,
                server_id=n,
                peers=peers,
                command_prefix=member.command_prefix,
                tls=tls,
            )
            for n, member in enumerate(self.members, 1)
        ]

    @property
    def connect_string(self) -> str:
        """ "h1:p1,h2:p2,...": what zookeeper.connect names (append "/chroot" for a chroot)."""
        return ",".join(server.connect_string for server in self.servers)

    @property
    def size(self) -> int:
        return len(self.servers)

    def member(self, server_id: int) -> ZooKeeperServer:
        """Member `server_id` (1..N), to stop, kill or restart on its own."""
        if not 1 <= server_id <= len(self.servers):
            raise ZooKeeperError(f"no member {server_id} in an ensemble of {len(self.servers)}")
        return self.servers[server_id - 1]

    def modes(self) -> dict[int, str | None]:
        """{server id: what srvr says it is (leader, follower, ...), None when it does not serve}."""
        return {server.server_id: server.mode() for server in self.servers}

    def leader(self) -> int | None:
        """The id of the member that reports itself leader (or runs standalone, alone); None during an election."""
        for server_id, mode in self.modes().items():
            if mode in ("leader", "standalone"):
                return server_id
        return None

    def is_running(self) -> bool:
        """True while any member's process runs."""
        return any(server.is_running() for server in self.servers)

    def start(self, timeout: float = 60.0) -> "ZooKeeperEnsemble":
        """Start every member that is not running, then wait until every running member serves in a quorum.
        On failure the members started here are killed again."""
        launched = []
        try:
            for server in self.servers:
                if not server.is_running():
                    server.launch()
                    launched.append(server)
            self._wait_serving(timeout)
        except BaseException:
            for server in launched:
                server.kill()
            raise
        return self

    def _wait_serving(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            running = [server for server in self.servers if server.is_running()]
            waiting = [server for server in running if not server.is_serving()]
            if running and not waiting:
                return
            if not running:
                raise ZooKeeperError(f"no member of the ensemble in {self.data_dir} is running")
            if time.monotonic() > deadline:
                tails = "\n".join(
                    f"member {server.server_id} ({server.connect_string}):\n{server.log_tail(15)}" for server in waiting
                )
                raise ZooKeeperError(f"ensemble not serving after {timeout}s; log tails:\n{tails}")
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM every member at once, then wait for each (SIGKILLed if still alive after `timeout` seconds)."""
        for server in self.servers:
            pid = server.pid()
            if pid is not None:
                os.kill(pid, signal.SIGTERM)
        for server in self.servers:
            server.stop(timeout)

    def kill(self) -> None:
        """SIGKILL every member."""
        for server in self.servers:
            server.kill()

    def status_lines(self) -> list[str]:
        """One line per member: id, address, pid and mode."""
        lines = []
        for server in self.servers:
            pid = server.pid()
            state = "stopped" if pid is None else f"running (pid {pid}), {server.mode() or 'not serving'}"
            lines.append(f"member {server.server_id} {server.connect_string}: {state}")
        return lines

    def __repr__(self) -> str:
        return f"ZooKeeperEnsemble({str(self.data_dir)!r}, {self.connect_string!r})"


def _settings_from_args(args: argparse.Namespace) -> tuple[str, int, str, dict[str, str], dict[str, str]]:
    """(data dir, client port, host, other zoo.cfg keys, SASL users) from the options or a --config file."""
    extra: dict[str, str] = {}
    data_dir, port, host = args.data_dir, args.port, args.host
    if args.config:
        extra = read_properties(args.config)
        data_dir = extra.pop("dataDir", data_dir)
        port = int(extra.pop("clientPort", port))
        host = extra.pop("clientPortAddress", host)
    if not data_dir:
        raise SystemExit("--data-dir or a --config with dataDir is required")
    users = dict(user.split("=", 1) for user in getattr(args, "sasl_user", None) or [])
    return data_dir, port, host, extra, users


def _server_from_args(args: argparse.Namespace) -> ZooKeeperServer:
    data_dir, port, host, extra, users = _settings_from_args(args)
    return ZooKeeperServer(
        data_dir, port=port, host=host, extra_config=extra, sasl_users=users, jvm_options=kafka_opts()
    )


def _ensemble_from_args(args: argparse.Namespace) -> ZooKeeperEnsemble:
    data_dir, port, host, extra, users = _settings_from_args(args)
    members = loopback_members(args.ensemble, port, args.quorum_port, args.election_port, host)
    return ZooKeeperEnsemble(data_dir, members, extra_config=extra, sasl_users=users, jvm_options=kafka_opts())


def _ensemble_action(args: argparse.Namespace) -> int:
    """start, stop or status of the --ensemble the options describe."""
    ensemble = _ensemble_from_args(args)
    if args.action == "start":
        ensemble.start(timeout=args.timeout)
        print(f"ZooKeeper ensemble serving on {ensemble.connect_string} (leader: member {ensemble.leader()})")
        if not args.daemon:
            _serve_until_signalled(ensemble)
        return 0
    if args.action == "stop":
        running = ensemble.is_running()
        ensemble.stop()
        print("ZooKeeper ensemble stopped" if running else "ZooKeeper ensemble was not running")
        return 0
    print("\n".join(ensemble.status_lines()))
    return 0 if ensemble.is_running() else 1


def _serve_until_signalled(ensemble: ZooKeeperEnsemble) -> None:
    """Keep the ensemble running until SIGINT or SIGTERM, then stop it."""
    signals: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: signals.append(number))
    while not signals:
        signal.pause()
    ensemble.stop()


def _run_foreground(server: ZooKeeperServer) -> None:
    """Replace this process with the JVM (same pid, logs on the console), as Kafka's script does."""
    if _port_in_use(server.host, server.port):
        raise SystemExit(f"port {server.connect_string} is already in use")
    command = server.command()
    server.pid_file.write_text(f"{os.getpid()}\n")
    os.chdir(server.data_dir)
    os.execv(command[0], command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zookeeper.launcher", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    for action in ("start", "stop", "status"):
        p = sub.add_parser(action)
        p.add_argument("--data-dir")
        p.add_argument("--port", type=int, default=2181)
        p.add_argument("--host", default="127.0.0.1")
        p.add_argument("--config", help="Kafka-style zookeeper.properties (dataDir, clientPort, other zoo.cfg keys)")
        if action == "start":
            p.add_argument(
                "--daemon", action="store_true", help="run in the background, log to <data-dir>/zookeeper.log"
            )
            p.add_argument("--timeout", type=float, default=30.0)
            p.add_argument(
                "--sasl-user",
                action="append",
                metavar="NAME=PASSWORD",
                help="accept SASL DIGEST-MD5 logins of this user (repeatable)",
            )
        p.add_argument(
            "--ensemble",
            type=int,
            metavar="N",
            help="an ensemble of N members on --host: member n in <data-dir>/zk-n, client port port+n-1",
        )
        p.add_argument("--quorum-port", type=int, default=2888, help="member 1's quorum port (with --ensemble)")
        p.add_argument("--election-port", type=int, default=3888, help="member 1's election port (with --ensemble)")
    shell = sub.add_parser("shell")
    shell.add_argument("connect", help="host:port[,host:port...][/chroot]")
    shell.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("classpath")
    args = parser.parse_args(argv)

    try:
        if args.action == "classpath":
            print(os.pathsep.join(find_zookeeper_classpath()))
            return 0
        if args.action == "shell":
            command = zkcli_command(args.connect, kafka_opts()) + list(args.command)
            os.execv(command[0], command)
        if args.ensemble:
            return _ensemble_action(args)
        server = _server_from_args(args)
        if args.action == "start":
            if not args.daemon:
                _run_foreground(server)
            server.start(timeout=args.timeout)
            print(f"ZooKeeper serving on {server.connect_string} (pid {server.pid()}, log {server.log_file})")
            return 0
        if args.action == "stop":
            running = server.is_running()
            server.stop()
            print("ZooKeeper stopped" if running else "ZooKeeper was not running")
            return 0
        pid = server.pid()
        if pid is None:
            print("ZooKeeper not running")
            return 1
        state = "serving" if is_serving(server.host, server.port) else "not serving"
        print(f"ZooKeeper running (pid {pid}) on {server.connect_string}, {state}")
        return 0
    except ZooKeeperError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def server_start_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zookeeper-server-start",
        allow_abbrev=False,
        description="Start a ZooKeeper server from a Kafka-style zookeeper.properties (dataDir, clientPort, any "
        "zoo.cfg key); in the foreground it logs to the console.",
    )
    parser.add_argument(
        "-daemon",
        action="store_true",
        help="run in the background, log to <dataDir>/zookeeper.log, return once it serves",
    )
    parser.add_argument("config", metavar="zookeeper.properties")
    return parser


def server_start_main(argv: list[str] | None = None) -> int:
    """Console entry point with Kafka's shape: zookeeper-server-start [-daemon] zookeeper.properties."""
    parser = server_start_parser()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        parser.print_usage(sys.stderr)
        return 1
    parsed = parser.parse_args(args)
    return main(["start", "--config", parsed.config] + (["--daemon"] if parsed.daemon else []))


def server_stop_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zookeeper-server-stop",
        allow_abbrev=False,
        description="Stop the ZooKeeper server whose dataDir zookeeper.properties names, through the pid file there: "
        "SIGTERM, then SIGKILL if it lingers.",
    )
    parser.add_argument(
        "config",
        metavar="zookeeper.properties",
        nargs="?",
        default=os.path.join("config", "zookeeper.properties"),
        help="default: config/zookeeper.properties",
    )
    return parser


def server_stop_main(argv: list[str] | None = None) -> int:
    """zookeeper-server-stop [zookeeper.properties] (default config/zookeeper.properties)."""
    parsed = server_stop_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return main(["stop", "--config", parsed.config])


# Kafka 2.5's zookeeper.ssl.* names -> ZooKeeper's client properties (Kafka's ZkSslConfigToSystemPropertyMap).
ZK_TLS_CLIENT_PROPERTIES = {
    "zookeeper.ssl.client.enable": "zookeeper.client.secure",
    "zookeeper.clientCnxnSocket": "zookeeper.clientCnxnSocket",
    "zookeeper.ssl.keystore.location": "zookeeper.ssl.keyStore.location",
    "zookeeper.ssl.keystore.password": "zookeeper.ssl.keyStore.password",
    "zookeeper.ssl.keystore.type": "zookeeper.ssl.keyStore.type",
    "zookeeper.ssl.truststore.location": "zookeeper.ssl.trustStore.location",
    "zookeeper.ssl.truststore.password": "zookeeper.ssl.trustStore.password",
    "zookeeper.ssl.truststore.type": "zookeeper.ssl.trustStore.type",
    "zookeeper.ssl.protocol": "zookeeper.ssl.protocol",
    "zookeeper.ssl.enabled.protocols": "zookeeper.ssl.enabledProtocols",
    "zookeeper.ssl.cipher.suites": "zookeeper.ssl.ciphersuites",
    "zookeeper.ssl.endpoint.identification.algorithm": "zookeeper.ssl.hostnameVerification",
    "zookeeper.ssl.crl.enable": "zookeeper.ssl.crl",
    "zookeeper.ssl.ocsp.enable": "zookeeper.ssl.ocsp",
}
SHELL_TLS_OPTION = "-zk-tls-config-file"


def zk_tls_client_config(kafka_settings: Mapping[str, str]) -> dict[str, str]:
    """ZooKeeper's client configuration for a --zk-tls-config-file's settings (with or without "authorizer.")."""
    config = {}
    for name, value in kafka_settings.items():
        bare = name[len("authorizer.") :] if name.startswith("authorizer.") else name
        if bare in ZK_TLS_CLIENT_PROPERTIES:
            if bare == "zookeeper.ssl.endpoint.identification.algorithm":
                value = "true" if value.strip().upper() == "HTTPS" else "false"
            config[ZK_TLS_CLIENT_PROPERTIES[bare]] = value
    return config


def _run_shell_with_tls(connect: str, tls_file: str, command: list[str]) -> int:
    """ZooKeeper's shell with the client configuration a Kafka --zk-tls-config-file describes, handed over in a
    private file (-client-configuration) that is removed when the shell exits."""
    config = zk_tls_client_config(read_properties(tls_file))
    fd, path = tempfile.mkstemp(prefix="zk-tls-client-", suffix=".properties")
    try:
        with os.fdopen(fd, "w") as out:
            out.write("".join(f"{key}={value}\n" for key, value in config.items()))
        shell = zkcli_command(connect, kafka_opts())
        return subprocess.call(shell + ["-client-configuration", path] + command)
    finally:
        os.unlink(path)


def shell_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zookeeper-shell",
        allow_abbrev=False,
        description="ZooKeeper's own shell (ZooKeeperMain); with a command after the address it runs that one command "
        "and exits, e.g. zookeeper-shell localhost:2181 get /brokers/ids/0.",
    )
    parser.add_argument("connect", metavar="zookeeper_host:port[/path]", help="host:port[,host:port...][/chroot]")
    parser.add_argument(
        SHELL_TLS_OPTION,
        dest="zk_tls_config_file",
        metavar="file",
        help="Kafka's ZooKeeper client TLS properties (zookeeper.ssl.*, zookeeper.clientCnxnSocket), as "
        "Kafka 2.5's zookeeper-shell takes them",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="a zkCli command and its arguments")
    return parser


def shell_main(argv: list[str] | None = None) -> int:
    """zookeeper-shell HOST:PORT[,HOST:PORT...][/chroot] [zkCli command ...]."""
    parser = shell_parser()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        parser.print_usage(sys.stderr)
        return 1
    tls_file = None
    if SHELL_TLS_OPTION in args[1:-1]:
        index = args.index(SHELL_TLS_OPTION, 1)
        tls_file = args[index + 1]
        args = args[:index] + args[index + 2 :]
    parsed = parser.parse_args(args)
    if tls_file is not None:
        return _run_shell_with_tls(parsed.connect, tls_file, parsed.command)
    return main(["shell", parsed.connect] + parsed.command)


if __name__ == "__main__":
    sys.exit(main())
