"""Reading and writing Java .properties files (server.properties, meta.properties)."""


def parse_properties(text):
    """Parse Java properties text into an ordered dict of str -> str.

    Handles '#'/'!' comments, 'key=value', 'key: value', 'key value' and backslash line continuation.
    """
    result = {}
    logical = ""
    for raw in text.splitlines():
        line = raw.lstrip() if not logical else raw.strip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        key, value = _split_entry(logical)
        result[key] = value
        logical = ""
    if logical:
        key, value = _split_entry(logical)
        result[key] = value
    return result


def _split_entry(line):
    for index, char in enumerate(line):
        if char in "=: \t" and (index == 0 or line[index - 1] != "\\"):
            key = line[:index]
            rest = line[index:].lstrip(" \t")
            if rest[:1] in ("=", ":"):
                rest = rest[1:].lstrip(" \t")
            return key.replace("\\", ""), rest
    return line, ""


def read_properties(path):
    with open(path, encoding="utf-8") as handle:
        return parse_properties(handle.read())


def format_properties(entries, comment=None):
    lines = ["#" + comment] if comment else []
    lines.extend("%s=%s" % (key, value) for key, value in entries.items())
    return "\n".join(lines) + "\n"
