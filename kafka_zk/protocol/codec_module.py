"""The text of kafka_zk/protocol/generated_codecs.py: the hot messages' generated codecs as one module's source."""

from kafka_zk.protocol.api_keys import API_SPECS
from kafka_zk.protocol.schema import Schema, StructCodec
from kafka_zk.protocol.struct_source import recording_sources, text_digest

# Produce's and Fetch's codecs, every version, both ways: what every broker runs per request (and a follower per
# fetch). Every other message's codecs are exec'd when first used, as before; so are nested structs' own codecs,
# which only the rare paths call (a null array, a failed write's location) in these non-flexible versions.
GENERATED_API_KEYS = (0, 1)
GENERATED_MODULE = "kafka_zk/protocol/generated_codecs.py"
_HEADER = '''"""The generated readers and writers of the hot messages (Produce, Fetch), for the twins to compile.

Written by `python -m kafka_zk.tools.compile_twins codecs` (kafka_zk/protocol/codec_module.py); never edit it by
hand. Each factory takes the environment its source names (readers, writers, structs, defaults) and returns the
function; kafka_zk/protocol/struct_source.py finds it by the digest of the source it generated, so a stale entry
is never used (that codec is exec'd instead).
"""

# mypy: ignore-errors
# ruff: noqa
# fmt: off
'''


def generated_schemas() -> list[Schema]:
    """The request and response schemas of GENERATED_API_KEYS."""
    return [message for key in GENERATED_API_KEYS for message in (API_SPECS[key].request, API_SPECS[key].response)]


def generated_codecs_source(schemas: list[Schema]) -> str:
    """The module's text for the codecs of ``schemas``, every valid version of each: one factory per distinct
    source (versions that read or write alike share one), in the order they were generated."""
    with recording_sources() as recorded:
        for message in schemas:
            for version in range(message.min_version, message.max_version + 1):
                StructCodec(message.fields, version, message.is_flexible(version), "%s v%d" % (message.name, version))
    lines = [_HEADER]
    entries: list[str] = []
    seen: set[str] = set()
    for kind, path, text, names in recorded:
        digest = text_digest(text)
        if digest in seen or "." in path:
            continue
        seen.add(digest)
        factory = "_%s_%s" % (kind, "".join(c if c.isalnum() else "_" for c in path))
        function = text.split("(", 1)[0][len("def ") :]
        lines.append("\ndef %s(env):  # the %s of %s" % (factory, kind, path))
        lines += ["    %s = env[%r]" % (name, name) for name in names]
        lines += ["    " + line for line in text.split("\n")]
        lines.append("    return %s" % function)
        entries.append("    %r: %s," % (digest, factory))
    lines += ["", "", "FACTORIES = {", *entries, "}", ""]
    return "\n".join(lines)
