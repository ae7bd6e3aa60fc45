"""A Spark standalone cluster on hosts: a master and workers, each a JVM in a namespace of its own, via spark-class."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from kafka_zk.tools.hosts import CLIENT
from zookeeper.launcher import live_pid, process_running, wait_for_exit

MASTER_HOST = "spark-master"
MASTER_PORT = 7077
MASTER_UI_PORT = 8080
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
# The daemons' own heaps: a master and a worker only schedule and supervise, the executors do the work.
DAEMON_MEMORY = "384m"


class SparkClusterError(RuntimeError):
    pass


def spark_home():
    """The folder of the installed pyspark package: it carries Spark's jars and bin/spark-class."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def worker_host(number):
    return "spark-worker-%d" % number


class SparkDaemon:
    """One Spark daemon JVM (master or worker) on one host, with its log and pid file in its own folder."""

    def __init__(self, name, host, folder, main_class, arguments, command_prefix, environment):
        self.name = name
        self.host = host
        self.folder = Path(folder).resolve()
        self.main_class = main_class
        self.arguments = list(arguments)
        self.command_prefix = list(command_prefix)
        self.environment = dict(environment)
        self._process = None

    @property
    def log_file(self):
        return self.folder / ("%s.log" % self.name)

    @property
    def pid_file(self):
        return self.folder / ("%s.pid" % self.name)

    def command(self):
        return self.command_prefix + [str(spark_home() / "bin" / "spark-class"), self.main_class] + self.arguments

    def pid(self):
        return live_pid(self._process, self.pid_file, lambda pid: process_running(pid, self.main_class))

    def is_running(self):
        return self.pid() is not None

    def start(self):
        if self.is_running():
            raise SparkClusterError("%s is already running (pid %d)" % (self.name, self.pid()))
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "ab") as log:
            # spark-class ends in exec, so the pid is the daemon's JVM once the launcher has built its command.
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=str(self.folder),
                env={**os.environ, **self.environment},
            )
        self.pid_file.write_text("%d\n" % self._process.pid)
        return self

    def stop(self, timeout=20.0):
        """SIGTERM, then SIGKILL after ``timeout`` seconds."""
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_for_exit(pid, timeout, self._process, self.main_class):
                os.kill(pid, signal.SIGKILL)
                wait_for_exit(pid, 10, self._process, self.main_class)
        self._forget()

    def kill(self):
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            wait_for_exit(pid, 10, self._process, self.main_class)
        self._forget()

    def _forget(self):
        if self._process is not None:
            self._process.poll()  # reap it
        self._process = None
        self.pid_file.unlink(missing_ok=True)

    def log_tail(self, lines=30):
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


class SparkStandalone:
    """A master on host ``spark-master`` and ``workers`` workers on ``spark-worker-1``.., all on ``hosts`` (a
    kafka_zk.tools.hosts.Hosts); the driver runs on ``client`` with ``driver_settings()``."""

    def __init__(self, folder, hosts, workers=2, worker_cores=1, worker_memory="1g", python=None):
        """``python``: the interpreter of the executors' Python workers (PYSPARK_PYTHON; this one by default)."""
        self.folder = Path(folder).resolve()
        self.hosts = hosts
        self.worker_count = workers
        self.python = python or sys.executable
        self.master_address = hosts.address(MASTER_HOST)
        self.master = SparkDaemon(
            "master",
            MASTER_HOST,
            self.folder / "master",
            MASTER_CLASS,
            ["--host", self.master_address, "--port", str(MASTER_PORT), "--webui-port", str(MASTER_UI_PORT)],
            hosts.command_prefix(MASTER_HOST),
            self._environment(MASTER_HOST),
        )
        self.workers = {}
        for number in range(1, workers + 1):
            name = worker_host(number)
            folder = self.folder / name
            self.workers[number] = SparkDaemon(
                "worker",
                name,
                folder,
                WORKER_CLASS,
                [
                    self.master_url,
                    "--host",
                    hosts.address(name),
                    "--cores",
                    str(worker_cores),
                    "--memory",
                    worker_memory,
                    "--work-dir",
                    str(folder / "work"),
                ],
                hosts.command_prefix(name),
                self._environment(name),
            )

    def _environment(self, host_name):
        address = self.hosts.address(host_name)
        # A namespace shares the machine's hostname, which resolves to no address of the namespace: every daemon
        # (and every executor it starts, which inherits this environment) names itself by its address instead.
        return {
            "SPARK_HOME": str(spark_home()),
            "PYSPARK_PYTHON": self.python,
            "SPARK_LOCAL_IP": address,
            "SPARK_LOCAL_HOSTNAME": address,
            "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            "SPARK_CONF_DIR": str(self.folder / "conf"),
        }

    @property
    def master_url(self):
        return "spark://%s:%d" % (self.master_address, MASTER_PORT)

    @property
    def ui_url(self):
        return "http://%s:%d/json/" % (self.master_address, MASTER_UI_PORT)

    def host_names(self):
        return [MASTER_HOST] + [worker_host(number) for number in self.workers]

    def driver_settings(self):
        """What a driver on host ``client`` sets so the executors in the namespaces reach it."""
        address = self.hosts.address(CLIENT)
        return {"spark.driver.host": address, "spark.driver.bindAddress": address}

    def start(self, timeout=120.0, wait=True):
        """Create the hosts, start the master and every worker, and (``wait``) wait until the master counts them all
        alive; without ``wait`` the caller does other work meanwhile and calls wait_alive_workers itself."""
        self.hosts.create(self.host_names())
        (self.folder / "conf").mkdir(parents=True, exist_ok=True)
        try:
            if not self.master.is_running():
                self.master.start()
            for worker in self.workers.values():
                if not worker.is_running():
                    worker.start()
            if wait:
                self.wait_alive_workers(self.worker_count, timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def status(self):
        """The master's status (its web UI's JSON), or None while it does not answer."""
        try:
            with urllib.request.urlopen(self.ui_url, timeout=5) as response:
                return json.loads(response.read().decode())
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def alive_workers(self):
        """The addresses of the workers the master counts alive (empty while it does not answer)."""
        status = self.status() or {}
        return sorted(worker["host"] for worker in status.get("workers", []) if worker.get("state") == "ALIVE")

    def wait_alive_workers(self, count, timeout=120.0):
        """Wait until the master counts exactly ``count`` alive workers; returns their addresses."""
        deadline = time.monotonic() + timeout
        while True:
            alive = self.alive_workers()
            if len(alive) == count:
                return alive
            for daemon in [self.master] + [worker for worker in self.workers.values() if worker.pid_file.exists()]:
                if not daemon.is_running():  # started (its pid file is there) and gone
                    raise SparkClusterError(
                        "the Spark %s on %s exited; log tail:\n%s" % (daemon.name, daemon.host, daemon.log_tail())
                    )
            if time.monotonic() > deadline:
                raise SparkClusterError(
                    "the Spark master counts %d alive workers (%s), not %d, after %.0fs"
                    % (len(alive), ", ".join(alive) or "none", count, timeout)
                )
            time.sleep(0.2)

    def kill_worker(self, number):
        """Worker ``number``'s host dies: SIGKILL to the worker JVM and to everything else on its host (its
        executors and their Python workers)."""
        self.workers[number].kill()
        for pid in self.hosts.pids(worker_host(number)):
            _kill(pid)

    def start_worker(self, number):
        self.workers[number].start()

    def stop(self):
        """Stop the workers, then the master, and end whatever is left on their hosts (executors); the hosts stay."""
        for worker in self.workers.values():
            worker.stop()
        self.master.stop()
        for name in self.host_names():
            for pid in self.hosts.pids(name):
                _kill(pid)


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
