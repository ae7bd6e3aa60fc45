"""A tool's --help before anything is installed: its own argparse parser, its module imported without its packages.

The scripts answer ``-h``/``--help`` through here, so that asking for usage creates no virtualenv and installs nothing.
Standard library only: the third-party packages the project depends on (kazoo, twisted, cryptography, ...) that this
python lacks are replaced, for this process only, by inert placeholder modules. Of the tool only its modules' top-level
definitions and its ``build_parser()`` run, which use none of those packages: the help text is the tool's own.

    python3 -m kafka_zk.tools.usage kafka_zk.tools.topics [the tool's arguments]
    python3 -m kafka_zk.tools.usage kafka_zk.server.main:build_stop_parser
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

# The import names of setup.cfg's install_requires (and of the extras a tool module imports at its top).
PROJECT_PACKAGES = frozenset(
    {
        "kazoo",
        "twisted",
        "zope",
        "crc32c",
        "lz4",
        "snappy",
        "zstandard",
        "confluent_kafka",
        "OpenSSL",
        "service_identity",
        "cryptography",
        "scramp",
        "jks",
        "puresasl",
        "prometheus_client",
    }
)


class _PlaceholderMeta(type):
    """Any attribute of a placeholder is another placeholder class: it can be subclassed, called and decorated with."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder(name)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator: the decorated function or class is kept
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __and__ = __rand__ = __or__


def _placeholder(name):
    return _PlaceholderMeta(name, (), {})


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder(name)


class _MissingPackageFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: a placeholder for a module of PROJECT_PACKAGES that no other finder found."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in PROJECT_PACKAGES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _PlaceholderModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def parser_of(spec, argv):
    """The parser a tool would parse ``argv`` with. ``spec``: the tool's module (its ``build_parser()``), or
    ``module:function`` naming the function that builds it. A module with ``parser_for(argv)`` (kafka-run-class, which
    hands its arguments to another tool) says which parser its arguments select."""
    module_name, _, function_name = spec.partition(":")
    module = importlib.import_module(module_name)
    select = getattr(module, "parser_for", None)
    if select is not None and not function_name:
        return select(argv)
    return getattr(module, function_name or "build_parser")()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print("USAGE: python3 -m kafka_zk.tools.usage MODULE[:FUNCTION] [the tool's arguments]", file=sys.stderr)
        return 1
    sys.meta_path.append(_MissingPackageFinder())
    parser_of(argv[0], argv[1:]).print_help(sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
