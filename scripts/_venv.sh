# Sourced by the scripts: finds the repo root and makes sure .venv has the project installed.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

# ensure_venv [extras]: create .venv and (re)install the project when missing or when setup.cfg changed.
ensure_venv() {
    local extras="${1:-}"
    local stamp="$VENV/.kafka-zk-installed${extras:+-$extras}"
    if [ ! -x "$PY" ]; then
        echo "creating $VENV" >&2
        python3 -m venv "$VENV" || return 1
        "$PY" -m pip install -q --upgrade pip >&2 || return 1
    fi
    if [ ! -f "$stamp" ] || [ "$ROOT/setup.cfg" -nt "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
        echo "installing kafka-zk${extras:+[$extras]} into $VENV" >&2
        "$PY" -m pip install -q -e "$ROOT${extras:+[$extras]}" >&2 || return 1
        touch "$stamp"
    fi
}

# python_or_system: the venv's python when it exists, else python3 (for the thin tool wrappers).
python_or_system() {
    if [ -x "$PY" ]; then echo "$PY"; else echo python3; fi
}
