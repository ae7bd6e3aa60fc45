"""JAAS configuration as Kafka reads it: `sasl.jaas.config` strings, JAAS files, and where the file is named.

A config string holds login modules (``<class> <flag> key="value" ...;``); a file holds named sections of them
(``KafkaServer { ... };``, ``Client { ... };``). A broker looks for ``<listener name in lower case>.KafkaServer``
before ``KafkaServer``; ZooKeeper clients use ``Client``; Kafka clients ``KafkaClient``. The JVM names the file in
the system property ``java.security.auth.login.config``, which Kafka's scripts take from ``KAFKA_OPTS``.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

FLAGS = ("required", "requisite", "sufficient", "optional")
LOGIN_CONFIG_PROPERTY = "java.security.auth.login.config"


class JaasError(ValueError):
    """A JAAS config that does not parse, or that lacks what is asked of it."""


class LoginModule(NamedTuple):
    class_name: str
    flag: str
    options: dict


_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([=;{}])|([^\s=;{}"]+))')


def _tokens(text: str) -> list[str]:
    """Words, quoted values (quotes removed) and the punctuation = ; { } as separate tokens."""
    tokens = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise JaasError("cannot parse JAAS config near %r" % text[position : position + 20])
        quoted, punctuation, word = match.groups()
        if quoted is not None:
            tokens.append(re.sub(r"\\(.)", r"\1", quoted))
        else:
            tokens.append(punctuation or word)
        position = match.end()
    return tokens


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"(^|\s)//[^\n]*", r"\1", text)


def _read_modules(tokens: list[str], position: int, closing: str | None) -> tuple[list[LoginModule], int]:
    modules = []
    while position < len(tokens) and tokens[position] != closing:
        class_name = tokens[position]
        if position + 1 >= len(tokens) or tokens[position + 1].lower() not in FLAGS:
            raise JaasError("login module %s has no control flag (one of %s)" % (class_name, ", ".join(FLAGS)))
        flag = tokens[position + 1].lower()
        position += 2
        options = {}
        while position < len(tokens) and tokens[position] != ";":
            if position + 2 >= len(tokens) or tokens[position + 1] != "=":
                raise JaasError("login module %s: expected key=value, got %r" % (class_name, tokens[position]))
            options[tokens[position]] = tokens[position + 2]
            position += 3
        if position >= len(tokens):
            raise JaasError("login module %s is not terminated by ';'" % class_name)
        modules.append(LoginModule(class_name, flag, options))
        position += 1
    return modules, position


def parse_jaas_config(text: str) -> list[LoginModule]:
    """The login modules of a ``sasl.jaas.config`` value; Kafka wants exactly one."""
    modules, _ = _read_modules(_tokens(_strip_comments(text)), 0, None)
    if not modules:
        raise JaasError("JAAS config entry is empty")
    return modules


def parse_jaas_file(text: str) -> dict[str, list[LoginModule]]:
    """{section name: login modules} of a JAAS file."""
    tokens = _tokens(_strip_comments(text))
    sections = {}
    position = 0
    while position < len(tokens):
        name = tokens[position]
        if position + 1 >= len(tokens) or tokens[position + 1] != "{":
            raise JaasError("JAAS file: expected '{' after section %s" % name)
        modules, position = _read_modules(tokens, position + 2, "}")
        if position >= len(tokens):
            raise JaasError("JAAS file: section %s is not closed by '}'" % name)
        position += 1
        if position < len(tokens) and tokens[position] == ";":
            position += 1
        sections[name] = modules
    return sections


def login_config_path(environ) -> str | None:
    """The JAAS file named by ``-Djava.security.auth.login.config=<path>`` in KAFKA_OPTS, if any."""
    for word in shlex.split(environ.get("KAFKA_OPTS", "")):
        if word.startswith("-D%s=" % LOGIN_CONFIG_PROPERTY):
            return word.split("=", 1)[1]
    return None


def read_jaas_file(path: str) -> dict[str, list[LoginModule]]:
    try:
        with open(path) as handle:
            return parse_jaas_file(handle.read())
    except OSError as error:
        raise JaasError("cannot read JAAS file %s: %s" % (path, error)) from None


def server_section(sections: dict, listener_name: str) -> list[LoginModule] | None:
    """A broker's login modules for one listener: ``<listener>.KafkaServer``, else ``KafkaServer``."""
    return sections.get("%s.KafkaServer" % listener_name.lower(), sections.get("KafkaServer"))
