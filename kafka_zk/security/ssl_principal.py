"""The principal of an SSL connection: the peer certificate's subject DN (RFC 2253, as Java's X500Principal
prints it) mapped by ``ssl.principal.mapping.rules`` (Kafka's SslPrincipalMapper), or ANONYMOUS."""

import re

from cryptography.x509.oid import NameOID

from kafka_zk.security.principal import ANONYMOUS, user

DEFAULT_SSL_PRINCIPAL_MAPPING_RULES = "DEFAULT"

# Kafka's rule grammar: DEFAULT, RULE:pattern/replacement/[LU], or anything else (empty rules are skipped).
_RULE = r"(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_RULE_SPLITTER = re.compile(r"\s*(" + _RULE + r")\s*(,\s*|$)")
_RULE_PARSER = re.compile(_RULE)


class NoMatchingRule(ValueError):
    """No mapping rule applies to a distinguished name."""


class _Rule:
    def __init__(self, pattern=None, replacement=None, to_lower=False, to_upper=False):
        self.is_default = pattern is None
        self.pattern = re.compile(pattern) if pattern is not None else None
        self.replacement = replacement
        self.to_lower = to_lower
        self.to_upper = to_upper

    def apply(self, name):
        if self.is_default:
            return name
        if self.pattern.fullmatch(name) is None:
            return None
        result = self.pattern.sub(_java_replacement(self.replacement, self.pattern.groups), name)
        if self.to_lower:
            return result.lower()
        if self.to_upper:
            return result.upper()
        return result

    def __repr__(self):
        if self.is_default:
            return "DEFAULT"
        suffix = "/L" if self.to_lower else "/U" if self.to_upper else ""
        return "RULE:%s/%s%s" % (self.pattern.pattern, self.replacement, suffix)


def _java_replacement(replacement, group_count):
    """Java's Matcher replacement syntax as a re.sub function: ``$n`` names a group (taking as many digits as
    still name a group), a ``$n`` past the last group stays literal (as Kafka escapes it), ``\\x`` is x."""
    parts = []  # str literals and int group numbers
    i = 0
    while i < len(replacement):
        char = replacement[i]
        if char == "\\" and i + 1 < len(replacement):
            parts.append(replacement[i + 1])
            i += 2
        elif (
            char == "$"
            and i + 1 < len(replacement)
            and replacement[i + 1].isdigit()
            and int(replacement[i + 1]) <= group_count
        ):
            j = i + 2
            number = int(replacement[i + 1])
            while (
                j < len(replacement) and replacement[j].isdigit() and number * 10 + int(replacement[j]) <= group_count
            ):
                number = number * 10 + int(replacement[j])
                j += 1
            parts.append(number)
            i = j
        else:
            parts.append(char)
            i += 1

    def expand(match):
        return "".join(part if isinstance(part, str) else (match.group(part) or "") for part in parts)

    return expand


class SslPrincipalMapper:
    """Maps a distinguished name through the first rule that applies."""

    def __init__(self, rules_text=None):
        text = DEFAULT_SSL_PRINCIPAL_MAPPING_RULES if rules_text is None else rules_text
        if isinstance(text, (list, tuple)):
            text = ",".join(text)
        self.rules = [
            rule
            for rule in (_parse_rule(match.group(1)) for match in _RULE_SPLITTER.finditer(text.strip()))
            if rule is not None
        ]

    def name(self, distinguished_name):
        for rule in self.rules:
            mapped = rule.apply(distinguished_name)
            if mapped is not None:
                return mapped
        raise NoMatchingRule("No rules apply to %s, rules %s" % (distinguished_name, self.rules))

    def __repr__(self):
        return "SslPrincipalMapper(rules = %s)" % self.rules


def _parse_rule(rule):
    match = _RULE_PARSER.match(rule)
    if match is None:
        raise ValueError("Invalid rule: %s" % rule)
    if match.end() != len(rule):
        raise ValueError("Invalid rule: `%s`, unmatched substring: `%s`" % (rule, rule[match.end() :]))
    if match.group(1) is not None:
        return _Rule()
    if match.group(2) is not None:
        return _Rule(match.group(2), match.group(4), match.group(6) == "L", match.group(6) == "U")
    return None


# The attribute keywords Java's RFC 2253 output uses; others print as their dotted OID.
_RFC2253_KEYWORDS = {
    NameOID.COMMON_NAME: "CN",
    NameOID.COUNTRY_NAME: "C",
    NameOID.LOCALITY_NAME: "L",
    NameOID.STATE_OR_PROVINCE_NAME: "ST",
    NameOID.ORGANIZATION_NAME: "O",
    NameOID.ORGANIZATIONAL_UNIT_NAME: "OU",
    NameOID.STREET_ADDRESS: "STREET",
    NameOID.DOMAIN_COMPONENT: "DC",
    NameOID.USER_ID: "UID",
}


def rfc2253_name(name):
    """A cryptography x509.Name as Java's X500Principal.getName() prints it (most specific RDN first).
    Attributes without an RFC 2253 keyword (emailAddress, ...) print as ``OID=value`` rather than Java's
    ``OID=#<BER hex>``."""
    overrides = {oid: keyword for oid, keyword in _RFC2253_KEYWORDS.items()}
    overrides[NameOID.EMAIL_ADDRESS] = NameOID.EMAIL_ADDRESS.dotted_string
    return name.rfc4514_string(overrides)


def ssl_principal(certificate, mapper):
    """The KafkaPrincipal of a peer that presented ``certificate`` (a cryptography x509.Certificate, or None:
    ANONYMOUS), as Kafka's DefaultKafkaPrincipalBuilder for SSL."""
    if certificate is None:
        return ANONYMOUS
    return user(mapper.name(rfc2253_name(certificate.subject)))
