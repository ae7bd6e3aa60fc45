"""Kerberos principal names and Kafka 2.5's ``sasl.kerberos.principal.to.local.rules``: a principal to its short name.

A name is ``service[/host]@REALM``. A rule is ``DEFAULT`` (a name of the default realm maps to its first component)
or ``RULE:[n:format](match)s/from/to/g`` with an optional ``/L`` or ``/U`` at the end: it applies to names of ``n``
components, whose ``format`` (``$0`` the realm, ``$1`` and ``$2`` the components) gives a base; when the base matches
``match`` (optional), the sed-like substitution (optional, ``g`` for every occurrence) makes the short name, which
``/L`` lowers and ``/U`` uppers. Rules are tried in order; the first that gives a name wins; none is an error.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Sequence

DEFAULT_RULES = ("DEFAULT",)
_RULE = re.compile(r"((DEFAULT)|((RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?)))")
_NAME = re.compile(r"([^/@]*)(/([^/@]*))?@([^/@]*)")
_FORMAT_PART = re.compile(r"([^$]*)(\$(\d*))?")
_NON_SIMPLE = re.compile(r"[/@]")


class NoMatchingRule(ValueError):
    """No rule gives a short name for the principal, or a rule gives one with '/' or '@' in it."""


class BadFormatString(ValueError):
    """A rule's format names a component the principal does not have, or is not ``$<digits>``."""


class KerberosName(NamedTuple):
    service_name: str
    host_name: Optional[str] = None
    realm: Optional[str] = None

    @classmethod
    def parse(cls, principal: str) -> "KerberosName":
        """``kafka/127.0.0.1@KAFKA.LOCAL`` -> (kafka, 127.0.0.1, KAFKA.LOCAL); a name without a realm keeps None."""
        match = _NAME.fullmatch(principal)
        if match is None:
            if "@" in principal:
                raise ValueError("Malformed Kerberos name: %s" % principal)
            return cls(principal)
        return cls(match.group(1), match.group(3), match.group(4))

    def __str__(self) -> str:
        text = self.service_name
        if self.host_name is not None:
            text += "/" + self.host_name
        if self.realm is not None:
            text += "@" + self.realm
        return text


def _java_replacement(replacement: str) -> str:
    """A java.util.regex replacement (``$1`` a group, ``\\x`` a literal x) in Python's spelling."""
    out = []
    position = 0
    while position < len(replacement):
        char = replacement[position]
        if char == "\\" and position + 1 < len(replacement):
            out.append(replacement[position + 1].replace("\\", "\\\\"))
            position += 2
        elif char == "$":
            digits = re.match(r"\d+", replacement[position + 1 :])
            if digits is None:
                raise BadFormatString("Illegal group reference in %r" % replacement)
            out.append("\\g<%s>" % digits.group(0))
            position += 1 + len(digits.group(0))
        else:
            out.append("\\\\" if char == "\\" else char)
            position += 1
    return "".join(out)


class KerberosRule:
    """One parsed rule."""

    def __init__(
        self,
        text: str,
        default_realm: str,
        components: Optional[int] = None,
        name_format: str = "",
        match: Optional[str] = None,
        from_pattern: Optional[str] = None,
        to_pattern: str = "",
        repeat: bool = False,
        case: Optional[str] = None,
    ):
        self.text = text
        self.default_realm = default_realm
        self.is_default = components is None
        self.components = components
        self.name_format = name_format
        self.match = re.compile(match) if match is not None else None
        self.from_pattern = re.compile(from_pattern) if from_pattern is not None else None
        self.to_pattern = _java_replacement(to_pattern)
        self.repeat = repeat
        self.case = case

    def __repr__(self) -> str:
        return self.text

    def _base(self, params: Sequence[str]) -> str:
        out = []
        for part in _FORMAT_PART.finditer(self.name_format):
            if not part.group(0):
                continue
            out.append(part.group(1))
            if part.group(2) is not None:
                try:
                    index = int(part.group(3))
                except ValueError:
                    raise BadFormatString("bad format in username mapping in %s" % part.group(3)) from None
                if not 0 <= index < len(params):
                    raise BadFormatString(
                        "index %d from %s is outside of the valid range 0 to %d"
                        % (index, self.name_format, len(params) - 1)
                    )
                out.append(params[index])
        return "".join(out)

    def apply(self, params: Sequence[str]) -> Optional[str]:
        """``params``: the realm, then the components. The short name, or None when the rule does not apply."""
        result = None
        if self.is_default:
            if self.default_realm == params[0]:
                result = params[1]
        elif len(params) - 1 == self.components:
            base = self._base(params)
            if self.match is None or self.match.fullmatch(base):
                if self.from_pattern is None:
                    result = base
                else:
                    result = self.from_pattern.sub(self.to_pattern, base, count=0 if self.repeat else 1)
        if result is not None and _NON_SIMPLE.search(result):
            raise NoMatchingRule("Non-simple name %s after auth_to_local rule %s" % (result, self))
        if result is not None and self.case == "L":
            result = result.lower()
        elif result is not None and self.case == "U":
            result = result.upper()
        return result


def parse_rules(default_realm: str, rules: Sequence[str]) -> list[KerberosRule]:
    """The rules of ``sasl.kerberos.principal.to.local.rules`` (a list); ValueError naming a rule that does not
    parse whole."""
    parsed = []
    for rule in rules:
        match = _RULE.match(rule)
        if match is None:
            raise ValueError("Invalid rule: %s" % rule)
        if match.end() != len(rule):
            raise ValueError("Invalid rule: `%s`, unmatched substring: `%s`" % (rule, rule[match.end() :]))
        if match.group(2) is not None:
            parsed.append(KerberosRule(rule, default_realm))
            continue
        parsed.append(
            KerberosRule(
                rule,
                default_realm,
                components=int(match.group(5)),
                name_format=match.group(6),
                match=match.group(8),
                from_pattern=match.group(10),
                to_pattern=match.group(11) or "",
                repeat=match.group(12) == "g",
                case=match.group(13),
            )
        )
    return parsed


class KerberosShortNamer:
    """Principal names to short names by the rules, in order (Kafka's KerberosShortNamer)."""

    def __init__(self, default_realm: str, rules: Optional[Sequence[str]] = None):
        self.rules = parse_rules(default_realm, list(rules) if rules else list(DEFAULT_RULES))

    def short_name(self, name: KerberosName) -> str:
        if name.host_name is None:
            if name.realm is None:
                return name.service_name
            params = [name.realm, name.service_name]
        else:
            params = [name.realm or "", name.service_name, name.host_name]
        for rule in self.rules:
            result = rule.apply(params)
            if result is not None:
                return result
        raise NoMatchingRule("No rules apply to %s, rules %s" % (name, self.rules))


def rules_from_config(value) -> list[str]:
    """``sasl.kerberos.principal.to.local.rules`` as a list: a comma-separated string or a list; DEFAULT when unset."""
    if value is None:
        return list(DEFAULT_RULES)
    if isinstance(value, (list, tuple)):
        items = [str(item).strip() for item in value]
    else:
        items = [item.strip() for item in str(value).split(",")]
    return [item for item in items if item] or list(DEFAULT_RULES)


def default_realm(krb5_conf_text: str) -> Optional[str]:
    """``default_realm`` of a krb5.conf's [libdefaults] section."""
    section = None
    for raw in krb5_conf_text.splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == "libdefaults" and "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            if key == "default_realm":
                return value
    return None
