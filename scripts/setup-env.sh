# Sourced by ./run and ./test: makes .venv at the repository root and installs the package into it.
# Re-running is cheap: pip runs only when pyproject.toml or setup.py changed since the last install.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${1:-}"

say() { printf '%s\n' "$*" >&2; }
is_root() { [ "$(id -u)" = 0 ]; }

# Install Debian packages (as root), or say exactly what to run and stop.
need_debs() {
  [ "$#" -gt 0 ] || return 0
  if is_root && command -v apt-get >/dev/null 2>&1; then
    say "Installing Debian packages: $*"
    if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq >&2; APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
  else
    say "Missing system packages. Run this once, then try again:"
    say "    sudo apt-get install -y $*"
    exit 1
  fi
}

PYTHON="${PYTHON:-python3}"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  need_debs python3
fi
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  say "The table companion needs Python 3.11 or newer; $("$PYTHON" --version 2>&1) is too old."
  say "Raspberry Pi OS / Debian 12 (Bookworm) ship 3.11."
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    need_debs python3-venv
  fi
  say "Creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.installed"
hash="$(cat "$ROOT/pyproject.toml" "$ROOT/setup.py" | sha256sum | cut -d' ' -f1)"
installed="$(cat "$stamp" 2>/dev/null || true)"
current=""
case "$installed" in
  "$hash test") current=yes ;;                       # the test extra includes everything
  "$hash ") [ -z "$EXTRAS" ] && current=yes ;;
esac
if [ -z "$current" ]; then
  say "Installing the table companion into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
  if [ -n "$EXTRAS" ]; then
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT[$EXTRAS]" >&2
  else
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT" >&2
  fi
  printf '%s %s\n' "$hash" "$EXTRAS" > "$stamp"
fi
