"""The hot modules' compiled twins (kafka_zk/compiled.py): a twin is built by Cython, loaded only while its source
is the one it was built from, never under KAFKA_ZK_INTERPRETED, and this process runs the twins of the build."""

import importlib
import os
import subprocess
import sys

import pytest

from kafka_zk import compiled

PROBE = '''
"""A module to compile: a class, a closure, a generator and a keyword-only default."""


class Counter:
    def __init__(self, start=0):
        self.value = start

    def add(self, *amounts, scale=1):
        self.value += sum(amounts) * scale
        return self.value


def counting(limit):
    return [n for n in range(limit) if not n & 1]


def answer():
    return "ANSWER"
'''


def write_probe(root, answer):
    package = root / "twin_probe"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "hot.py").write_text(PROBE.replace("ANSWER", answer))


def import_fresh(name, finder):
    for loaded in [loaded for loaded in sys.modules if loaded == "twin_probe" or loaded.startswith("twin_probe.")]:
        del sys.modules[loaded]
    importlib.invalidate_caches()
    sys.meta_path.insert(0, finder)
    try:
        return importlib.import_module(name)
    finally:
        sys.meta_path.remove(finder)


@pytest.fixture
def probe_root(tmp_path, monkeypatch):
    write_probe(tmp_path, "compiled")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for loaded in [loaded for loaded in sys.modules if loaded == "twin_probe" or loaded.startswith("twin_probe.")]:
        del sys.modules[loaded]


def test_a_built_twin_is_loaded_while_its_source_is_unchanged_and_not_after_an_edit(probe_root, capsys):
    build_dir, cache = probe_root / "build", str(probe_root / "machine-cache")
    probe = {"root": str(probe_root), "modules": ("twin_probe.hot",), "cache": cache}
    assert compiled.build(build_dir=str(build_dir), jobs=1, **probe) == ["twin_probe.hot"]
    assert compiled.stale_modules(str(probe_root), str(build_dir), ("twin_probe.hot",)) == {}
    assert compiled.build(build_dir=str(build_dir), **probe) == []
    # another clone of the same source takes the twin from the machine's cache, compiling nothing
    other_build = probe_root / "other-build"
    assert compiled.build(build_dir=str(other_build), **probe) == []
    assert compiled.stale_modules(str(probe_root), str(other_build), ("twin_probe.hot",)) == {}

    finder = compiled.TwinFinder(compiled.read_manifest(str(build_dir)), str(build_dir), str(probe_root))
    module = import_fresh("twin_probe.hot", finder)
    assert module.__file__.startswith(str(build_dir))
    assert module.__file__.endswith(compiled.extension_tag())
    assert finder.loaded == ["twin_probe.hot"]
    # the same behaviour as the source's
    counter = module.Counter(1)
    assert counter.add(2, 3, scale=2) == 11
    assert module.counting(5) == [0, 2, 4]
    assert module.answer() == "compiled"

    copied = compiled.TwinFinder(compiled.read_manifest(str(other_build)), str(other_build), str(probe_root))
    assert import_fresh("twin_probe.hot", copied).Counter(2).add(1) == 3

    write_probe(probe_root, "edited")
    module = import_fresh("twin_probe.hot", finder)
    assert module.__file__ == str(probe_root / "twin_probe" / "hot.py")
    assert module.answer() == "edited"
    assert list(compiled.stale_modules(str(probe_root), str(build_dir), ("twin_probe.hot",))) == ["twin_probe.hot"]


def test_a_twin_of_another_interpreter_or_a_missing_file_is_not_loaded(probe_root):
    build_dir = probe_root / "build"
    build_dir.mkdir()
    digest = compiled.source_digest(str(probe_root / "twin_probe" / "hot.py"))
    (build_dir / compiled.MANIFEST).write_text(
        '{"extension_suffix": ".cpython-299-x.so", "modules": {"twin_probe.hot": {"digest": "%s", "file": "x.so"}}}'
        % digest
    )
    assert compiled.read_manifest(str(build_dir)) == {}
    finder = compiled.TwinFinder(
        {"twin_probe.hot": {"digest": digest, "file": "missing.so"}}, str(build_dir), str(probe_root)
    )
    assert finder.find_spec("twin_probe.hot") is None
    assert finder.find_spec("twin_probe") is None


def test_interpreted_is_asked_for_by_the_environment():
    assert compiled.install({compiled.INTERPRETED_VARIABLE: "1"}) is None


def test_the_tests_run_interpreted_and_the_processes_they_start_run_the_builds_current_twins():
    """tests/conftest.py takes the hook off in the tests' own processes; a broker or tool they start (a python
    importing kafka_zk) loads every twin built from the current source, or none under KAFKA_ZK_INTERPRETED."""
    import kafka_zk.net.socket_server  # noqa: F401  (a hot module, imported by most tests anyway)

    assert compiled.compiled_modules() == []
    assert not any(isinstance(finder, compiled.TwinFinder) for finder in sys.meta_path)
    with pytest.raises(RuntimeError):
        _uninstall_after_a_twin_was_loaded()

    current = sorted(set(compiled.read_manifest()) - set(compiled.stale_modules()))
    probe = (
        "import importlib, kafka_zk.compiled as c\n"
        "[importlib.import_module(m) for m in c.HOT_MODULES]\n"
        "print(','.join(c.compiled_modules()))"
    )
    for environ, expected in (({}, current), ({compiled.INTERPRETED_VARIABLE: "1"}, [])):
        env = {k: v for k, v in os.environ.items() if k != compiled.INTERPRETED_VARIABLE}
        env.update(environ)
        answer = subprocess.run(
            [sys.executable, "-c", probe], env=env, cwd=compiled.PROJECT_ROOT, capture_output=True, text=True
        )
        assert answer.returncode == 0, answer.stderr
        assert [name for name in answer.stdout.strip().split(",") if name] == expected, environ


def _uninstall_after_a_twin_was_loaded():
    """uninstall() refuses once a twin is in sys.modules (a module loaded compiled would stay compiled)."""
    name = compiled.HOT_MODULES[0]
    real = sys.modules[name] if name in sys.modules else importlib.import_module(name)
    fake = type(sys)(name)
    fake.__file__ = "/twins/%s%s" % (name, compiled.extension_tag())
    sys.modules[name] = fake
    try:
        compiled.uninstall()
    finally:
        sys.modules[name] = real
