"""Compiled twins of the hot modules: which modules they are, their build by Cython, and the import hook that
loads a twin only while its module's source is the very one it was compiled from.

The request path (framing, the socket server, header and record codecs, Produce and Fetch, the replica manager,
the log) runs several hundred Python calls per request. Cython compiles those modules, unchanged Python, to C
extensions under ``build/compiled/``; everything else, and every module whose source differs from what its twin
was built from, stays interpreted. The interpreted modules are the fallback: ``KAFKA_ZK_INTERPRETED=1`` (or no
build) runs them all. The suite runs both: its own processes interpreted (tests/conftest.py), the brokers it starts
compiled.

Only the standard library here: kafka_zk/__init__.py installs the hook before any other module is imported.
The command is kafka_zk/tools/compile_twins.py (build, status).
"""

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys

HOT_MODULES = (
    "kafka_zk.common.clock",
    "kafka_zk.common.purgatory",
    "kafka_zk.log.dir_failure",
    "kafka_zk.log.index_file",
    "kafka_zk.log.leader_epoch_cache",
    "kafka_zk.log.log",
    "kafka_zk.log.log_config",
    "kafka_zk.log.offset_index",
    "kafka_zk.log.open_files",
    "kafka_zk.log.producer_state",
    "kafka_zk.log.segment",
    "kafka_zk.log.time_index",
    "kafka_zk.net.framing",
    "kafka_zk.net.request_metrics",
    "kafka_zk.net.socket_server",
    "kafka_zk.protocol.generated_codecs",
    "kafka_zk.protocol.headers",
    "kafka_zk.protocol.primitives",
    "kafka_zk.record.validation",
    "kafka_zk.server.apis.fetch",
    "kafka_zk.server.apis.produce",
    "kafka_zk.server.metadata_cache",
    "kafka_zk.server.metrics.broker_topic_stats",
    "kafka_zk.server.quota.client_quotas",
    "kafka_zk.server.quota.replication_quota",
    "kafka_zk.server.replication.delayed",
    "kafka_zk.server.replication.fetch_session",
    "kafka_zk.server.replication.partition",
    "kafka_zk.server.replication.replica_manager",
    "kafka_zk.server.replication.results",
    "kafka_zk.server.replication.turn_batch",
)
INTERPRETED_VARIABLE = "KAFKA_ZK_INTERPRETED"
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_DIR = os.path.join(PROJECT_ROOT, "build", "compiled")
MANIFEST = "manifest.json"
# Cython's defaults changed only where Python's meaning would otherwise change: annotations stay annotations
# (Cython 3 would otherwise check them as C types); binding keeps functions introspectable as Python's are.
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}
# -O1: twice as quick to compile as -O2, for the same speed here (the C is mostly calls into CPython's API).
COMPILE_ARGS = ["-O1", "-g0"]


def source_path(module, root=PROJECT_ROOT):
    return os.path.join(root, *module.split(".")) + ".py"


def source_digest(path):
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def extension_tag():
    """The suffix this interpreter loads extensions with (a twin built by another Python is not loaded)."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def read_manifest(build_dir=BUILD_DIR):
    """{module: {"digest": the source's sha256 it was built from, "file": the twin, relative to build_dir}}, for
    this interpreter's extension suffix; {} when there is no build."""
    try:
        with open(os.path.join(build_dir, MANIFEST)) as manifest:
            content = json.load(manifest)
    except (OSError, ValueError):
        return {}
    if content.get("extension_suffix") != extension_tag():
        return {}
    return content.get("modules", {})


class TwinFinder:
    """A meta-path finder: a hot module whose source hashes to what its twin was built from loads the twin; any
    other import goes on to the normal finders."""

    def __init__(self, twins, build_dir=BUILD_DIR, root=PROJECT_ROOT):
        self._twins = twins
        self._build_dir = build_dir
        self._root = root
        self.loaded = []

    def find_spec(self, fullname, path=None, target=None):
        twin = self._twins.get(fullname)
        if twin is None:
            return None
        try:
            current = source_digest(source_path(fullname, self._root)) == twin["digest"]
        except OSError:
            return None
        if not current:
            return None
        location = os.path.join(self._build_dir, twin["file"])
        if not os.path.exists(location):
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, location)
        self.loaded.append(fullname)
        return importlib.util.spec_from_file_location(fullname, location, loader=loader)

    def invalidate_caches(self):
        pass


def install(environ=os.environ):
    """Put a TwinFinder first on sys.meta_path, unless KAFKA_ZK_INTERPRETED is set or there is no build; returns
    it (or None)."""
    if environ.get(INTERPRETED_VARIABLE, "") not in ("", "0"):
        return None
    for finder in sys.meta_path:
        if isinstance(finder, TwinFinder):
            return finder
    twins = read_manifest()
    if not twins:
        return None
    finder = TwinFinder(twins)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall():
    """Take the TwinFinder off sys.meta_path: the hot modules imported from now on run interpreted in this process
    (its children still load the twins). Refused once a twin has been loaded here."""
    loaded = compiled_modules()
    if loaded:
        raise RuntimeError("compiled twins already loaded: %s" % ", ".join(loaded))
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, TwinFinder)]


def compiled_modules():
    """The hot modules imported so far that run compiled."""
    return sorted(
        name
        for name in HOT_MODULES
        if name in sys.modules
        and (getattr(sys.modules[name], "__file__", "") or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    )


def stale_modules(root=PROJECT_ROOT, build_dir=BUILD_DIR, modules=HOT_MODULES):
    """{module: its source's digest} of the ``modules`` whose twin is missing or was built from another source."""
    built = read_manifest(build_dir)
    stale = {}
    for module in modules:
        digest = source_digest(source_path(module, root))
        twin = built.get(module)
        if twin is None or twin["digest"] != digest or not os.path.exists(os.path.join(build_dir, twin["file"])):
            stale[module] = digest
    return stale


def machine_cache():
    """Where this machine keeps every twin it has compiled, by what it was compiled from (another clone with the
    same source takes it from here instead of compiling again, as Maven's jars come from ~/.m2)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kafka-zk", "twins")


def cache_key(module, digest, compiler_version):
    """What a twin depends on: its module's name and source, Cython's version, this Python's extension suffix,
    and how it is compiled."""
    recipe = json.dumps([module, digest, compiler_version, extension_tag(), COMPILE_ARGS, DIRECTIVES], sort_keys=True)
    return hashlib.sha256(recipe.encode()).hexdigest()[:32]


def build(root=PROJECT_ROOT, build_dir=BUILD_DIR, modules=HOT_MODULES, jobs=None, out=sys.stderr, cache=None):
    """Bring the stale twins up to date: from the machine's cache where it has them, else compiled (Cython to C,
    then the C compiler) and cached; record them in the manifest and return the modules compiled."""
    stale = stale_modules(root, build_dir, modules)
    if not stale:
        return []
    import Cython

    cache = cache or machine_cache()
    keys = {module: cache_key(module, digest, Cython.__version__) for module, digest in stale.items()}
    located = {module: twin_location(build_dir, module) for module in stale}
    missing = {}
    for module, digest in stale.items():
        cached = os.path.join(cache, keys[module] + extension_tag())
        if os.path.exists(cached):
            os.makedirs(os.path.dirname(located[module]), exist_ok=True)
            shutil.copyfile(cached, located[module])
        else:
            missing[module] = digest
    if missing:
        compile_twins(root, build_dir, missing, jobs or os.cpu_count() or 1, out)
        os.makedirs(cache, exist_ok=True)
        for module in missing:
            cached = os.path.join(cache, keys[module] + extension_tag())
            shutil.copyfile(located[module], cached + ".new")
            os.replace(cached + ".new", cached)
    manifest = read_manifest(build_dir)
    for module, digest in stale.items():
        manifest[module] = {"digest": digest, "file": os.path.relpath(located[module], build_dir)}
    os.makedirs(build_dir, exist_ok=True)
    with open(os.path.join(build_dir, MANIFEST + ".new"), "w") as new:
        json.dump({"extension_suffix": extension_tag(), "modules": manifest}, new, indent=1, sort_keys=True)
    os.replace(os.path.join(build_dir, MANIFEST + ".new"), os.path.join(build_dir, MANIFEST))
    return sorted(missing)


def twin_location(build_dir, module):
    return os.path.join(build_dir, *module.split(".")) + extension_tag()


def compile_twins(root, build_dir, modules, jobs, out):
    """Cython and the C compiler: each of ``modules`` to its twin_location under ``build_dir``."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    print("compiling %d hot modules with Cython into %s" % (len(modules), build_dir), file=out, flush=True)
    extensions = [
        Extension(module, [os.path.relpath(source_path(module, root), root)], extra_compile_args=COMPILE_ARGS)
        for module in modules
    ]
    previous = os.getcwd()
    os.chdir(root)  # Cython names each module from its path under the package root
    try:
        extensions = cythonize(
            extensions,
            build_dir=os.path.join(build_dir, "c"),
            compiler_directives=DIRECTIVES,
            nthreads=jobs,
            quiet=True,
            force=True,
        )
        command = build_ext(Distribution({"ext_modules": extensions, "script_name": "kafka_zk.compiled"}))
        command.build_lib = build_dir
        command.build_temp = os.path.join(build_dir, "objects")
        command.parallel = jobs
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(previous)
