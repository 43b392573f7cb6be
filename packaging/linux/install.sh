#!/usr/bin/env bash
# Add videoreview to the current user's application menu and "Open with" lists (Linux
# desktops following the freedesktop.org specs), or take it out again. Nothing is installed
# system-wide, no root is needed, and videoreview is never made the default player.
#
# Works from two places:
#   the bundle folder (dist/videoreview/): videoreview (the executable), _internal/,
#     install.sh, videoreview.desktop and icons/ (a copy of resources/icons/);
#   the checkout (packaging/linux/): the executable is scripts/run, the icons resources/icons/.
set -euo pipefail

prog="$(basename "$0")"
here="$(cd "$(dirname "$0")" && pwd)"
name=videoreview
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
apps_dir="$data_home/applications"
icons_dir="$data_home/icons/hicolor"

usage() {
  cat <<EOF
Usage: $prog [--exec PATH] [--uninstall] [--help]

Installs videoreview for the current user into $data_home
(\$XDG_DATA_HOME, or ~/.local/share when unset):
  applications/$name.desktop            menu entry, with Exec set to the executable's absolute path
  icons/hicolor/NxN/apps/$name.png      icons, 16 to 512 px
  icons/hicolor/scalable/apps/$name.svg
then refreshes the desktop's caches with update-desktop-database, gtk-update-icon-cache and
xdg-desktop-menu where they are installed. videoreview appears under "Open with" for video
files; it is not made the default player.

  --exec PATH   the videoreview executable to start (default: the bundle's videoreview
                beside this script, or scripts/run when run from a checkout)
  --uninstall   remove the files listed above (other files in those folders are left alone)
  --help        show this help
EOF
}

die() {
  echo "$prog: error: $*" >&2
  exit 1
}

# --- arguments -----------------------------------------------------------------------
exec_path=""
uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --exec) [ $# -ge 2 ] || die "--exec needs a path"; exec_path="$2"; shift 2 ;;
    --exec=*) exec_path="${1#--exec=}"; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$prog: error: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

# --- refreshing caches (each tool only when installed; never fatal) -------------------------
have() { command -v "$1" >/dev/null 2>&1; }

refresh_caches() {
  if have update-desktop-database && [ -d "$apps_dir" ]; then
    update-desktop-database -q "$apps_dir" 2>/dev/null || true
    # A cache with no entries left (the folder's only MimeType= entry was ours) goes too.
    local cache="$apps_dir/mimeinfo.cache"
    if [ -f "$cache" ] && ! grep -q '=' "$cache"; then rm -f "$cache"; fi
  fi
  # Only update an icon cache that exists: without one the toolkits read the folders directly,
  # and a cache created here would be one more file that nothing removes.
  if have gtk-update-icon-cache && [ -f "$icons_dir/icon-theme.cache" ]; then
    gtk-update-icon-cache -q -t -f "$icons_dir" >/dev/null 2>&1 || true
  fi
  if have xdg-desktop-menu; then
    xdg-desktop-menu forceupdate --mode user >/dev/null 2>&1 || true
  fi
  # xdg-mime is deliberately not used: videoreview adds no new MIME types, and
  # "xdg-mime default" would make it the default player, which this script must not do.
}

# --- uninstall -------------------------------------------------------------------------
if [ "$uninstall" = 1 ]; then
  removed=0
  if [ -f "$apps_dir/$name.desktop" ] || [ -L "$apps_dir/$name.desktop" ]; then
    rm -f "$apps_dir/$name.desktop"
    removed=$((removed + 1))
  fi
  for f in "$icons_dir"/*/apps/"$name".png "$icons_dir/scalable/apps/$name.svg"; do
    if [ -f "$f" ] || [ -L "$f" ]; then
      rm -f "$f"
      removed=$((removed + 1))
      # its NxN/apps folders, when nothing else is in them
      rmdir "$(dirname "$f")" 2>/dev/null && rmdir "$(dirname "$(dirname "$f")")" 2>/dev/null || true
    fi
  done
  refresh_caches
  # and the folders, if this left them empty
  for d in "$icons_dir/scalable" "$icons_dir" "$data_home/icons" "$apps_dir"; do
    rmdir "$d" 2>/dev/null || true
  done
  echo "$prog: removed $removed file(s) of $name from $data_home"
  exit 0
fi

# --- where things are ----------------------------------------------------------------
checkout=""
if [ -f "$here/../../pyproject.toml" ] && [ -x "$here/../../scripts/run" ]; then
  checkout="$(cd "$here/../.." && pwd)"
fi

if [ -z "$exec_path" ]; then
  if [ -n "$checkout" ] && [ ! -e "$here/$name" ]; then
    exec_path="$checkout/scripts/run"
  else
    exec_path="$here/$name"
  fi
fi
case "$exec_path" in
  /*) ;;
  *) exec_path="$PWD/$exec_path" ;;
esac
case "$exec_path" in
  *$'\n'*|*$'\r'*) die "the executable's path contains a line break: $exec_path" ;;
  # GLib looks for Exec's program before expanding %%, so no desktop could start it.
  *%*) die "the executable's path contains %; link it from elsewhere and name the link with --exec: $exec_path" ;;
esac
if [ -d "$exec_path" ] || [ ! -e "$exec_path" ]; then
  die "videoreview executable not found: $exec_path"
fi
[ -x "$exec_path" ] || die "not executable (chmod +x it or name another with --exec): $exec_path"

desktop_src="$here/$name.desktop"
[ -f "$desktop_src" ] || die "desktop file not found: $desktop_src"

icons_src=""
for d in "$here/icons" "$here/_internal/resources/icons" ${checkout:+"$checkout/resources/icons"}; do
  if [ -d "$d/hicolor" ]; then icons_src="$d"; break; fi
done
[ -n "$icons_src" ] || die "icons not found: $here/icons (nor _internal/resources/icons)"

# --- the .desktop entry --------------------------------------------------------------
# Exec= quoting (Desktop Entry spec, "The Exec key"): a path with reserved characters is
# double-quoted, and inside the quotes " \` $ \ get a backslash, which the string escaping of
# the file doubles again (paths with % were refused above).
exec_arg() {
  local s="$1"
  if [[ "$s" =~ ^[A-Za-z0-9_/.,+=:@-]+$ ]]; then
    printf '%s' "$s"
    return
  fi
  local out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in
      '\') out+='\\\\' ;;
      '"' | '`' | '$') out+="\\\\$c" ;;
      *) out+="$c" ;;
    esac
  done
  printf '"%s"' "$out"
}
exec_value="$(exec_arg "$exec_path") %F"
tryexec_value="${exec_path//\\/\\\\}"

mkdir -p "$apps_dir"
tmp="$(mktemp "$apps_dir/.$name.desktop.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
{
  echo "# Installed by $here/install.sh; remove with: install.sh --uninstall"
  group=""
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      \[*\]) group="$line" ;;
    esac
    if [ "$group" = "[Desktop Entry]" ]; then
      case "$line" in
        Exec=*) line="Exec=$exec_value" ;;
        TryExec=*) line="TryExec=$tryexec_value" ;;
        Icon=*) line="Icon=$name" ;;
      esac
    fi
    printf '%s\n' "$line"
  done <"$desktop_src"
} >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$apps_dir/$name.desktop"
trap - EXIT

# --- icons ---------------------------------------------------------------------------
count=0
for png in "$icons_src"/hicolor/*/apps/"$name".png; do
  [ -f "$png" ] || continue
  size_dir="$(basename "$(dirname "$(dirname "$png")")")"
  install -D -m 644 "$png" "$icons_dir/$size_dir/apps/$name.png"
  count=$((count + 1))
done
svg=""
for s in "$icons_src/$name.svg" "$icons_src/hicolor/scalable/apps/$name.svg"; do
  if [ -f "$s" ]; then svg="$s"; break; fi
done
if [ -n "$svg" ]; then
  install -D -m 644 "$svg" "$icons_dir/scalable/apps/$name.svg"
  count=$((count + 1))
fi

refresh_caches
echo "$prog: installed $apps_dir/$name.desktop (Exec=$exec_value) and $count icon(s) under $icons_dir"
