"""Shared command-line plumbing of the Kafka-style tools: option parsing and failures that look like Kafka's,
key=value args, tool files."""

import argparse
import os
import sys


class UsageError(Exception):
    """Bad command-line usage: the tool prints the message and its usage, then exits with 1."""


class ToolFailure(Exception):
    """An exception Kafka's tool dies of: the JVM prints its first line (class and message) and exits 1."""

    def __init__(self, java_class, message):
        super().__init__(message)
        self.java_class = java_class
        self.message = message

    def line(self):
        return 'Exception in thread "main" %s: %s' % (self.java_class, self.message)


def read_tool_file(path, reader):
    """``reader(path)``, failing as the JVM's file reading does."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise ToolFailure("java.nio.file.NoSuchFileException", path) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ToolFailure("java.io.IOException", "%s: %s" % (path, error)) from None


class ToolArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser that raises UsageError instead of exiting with status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(message)


def parse_key_value_args(items, accept_missing_value=False):
    """Kafka's `k=v` list (e.g. repeated --property) as a dict; the value may itself contain '='."""
    result = {}
    for item in items or ():
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep and not accept_missing_value:
            raise UsageError("Invalid command line properties: %s" % " ".join(items))
        result[key] = value
    return result


def run_tool(parser, run, argv=None, out=None, err=None):
    """Parse ``argv`` with ``parser`` and call ``run(args, out, err)``; usage problems exit 1 like Kafka."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        parser.print_help(err)
        return 1
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(exc, file=err)
        parser.print_usage(err)
        return 1
    try:
        return run(args, out, err)
    except UsageError as exc:
        print(exc, file=err)
        parser.print_usage(err)
        return 1
    except ToolFailure as failure:
        out.flush()
        print(failure.line(), file=err)
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep the interpreter's final flush quiet too.
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
