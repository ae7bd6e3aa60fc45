"""ConsoleProcess: the web console (kafka_zk.console.main) as one more process of the local cluster, with its own
folder (console.log, console.pid)."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from zookeeper.launcher import live_pid, process_running, wait_for_exit

CONSOLE_MAIN = "kafka_zk.console.main"


class ConsoleProcess:
    def __init__(
        self,
        folder,
        port,
        zk_connect,
        bootstrap,
        metrics_urls=(),
        command_config=None,
        host="127.0.0.1",
        environment=None,
        zk_tls_config_file=None,
    ):
        """``command_config``: admin client properties for a secure cluster; ``environment``: added to the process's
        (e.g. KAFKA_OPTS naming the JAAS file for ZooKeeper); ``zk_tls_config_file``: its --zk-tls-config-file."""
        self.folder = Path(folder).resolve()
        self.port = port
        self.host = host
        self.zk_connect = zk_connect
        self.bootstrap = bootstrap
        self.metrics_urls = [url for url in metrics_urls if url]
        self.command_config = command_config
        self.environment = dict(environment or {})
        self.zk_tls_config_file = zk_tls_config_file
        self._process = None

    @property
    def url(self):
        return "http://%s:%d/" % (self.host, self.port)

    @property
    def log_file(self):
        return self.folder / "console.log"

    @property
    def pid_file(self):
        return self.folder / "console.pid"

    def command(self):
        command = [
            sys.executable,
            "-m",
            CONSOLE_MAIN,
            "--zookeeper",
            self.zk_connect,
            "--bootstrap-server",
            self.bootstrap,
            "--port",
            str(self.port),
            "--host",
            self.host,
        ]
        if self.metrics_urls:
            command += ["--metrics", ",".join(self.metrics_urls)]
        if self.command_config:
            command += ["--command-config", str(self.command_config)]
        if self.zk_tls_config_file:
            command += ["--zk-tls-config-file", str(self.zk_tls_config_file)]
        return command

    def pid(self):
        return live_pid(self._process, self.pid_file, lambda pid: process_running(pid, CONSOLE_MAIN))

    def is_running(self):
        return self.pid() is not None

    def serving(self):
        try:
            with urllib.request.urlopen(self.url + "api/state", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def start(self, timeout=30.0):
        """Start and wait until it answers; RuntimeError with its log's tail when it does not."""
        self.folder.mkdir(parents=True, exist_ok=True)
        environment = dict(os.environ, **self.environment) if self.environment else None
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=environment,
            )
        self.pid_file.write_text("%d\n" % self._process.pid)
        deadline = time.monotonic() + timeout
        while not self.serving():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log_file.read_text(errors="replace").splitlines()[-5:]
                raise RuntimeError("the console did not start on %s: %s" % (self.url, " | ".join(tail)))
            time.sleep(0.1)
        return self

    def stop(self, timeout=10.0):
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_for_exit(pid, timeout, self._process, CONSOLE_MAIN):
                os.kill(pid, signal.SIGKILL)
                wait_for_exit(pid, 5, self._process, CONSOLE_MAIN)
        self._process = None
        self.pid_file.unlink(missing_ok=True)

    def status_line(self):
        return "console %s: %s" % (self.url, "running (pid %d)" % self.pid() if self.is_running() else "stopped")
