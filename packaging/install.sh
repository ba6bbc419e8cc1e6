#!/usr/bin/env bash
# Install the built package (dist/footnotes/) for one person, or system-wide, with its menu
# entry, icons and AppStream metainfo.
#
#   packaging/install.sh                    # into ~/.local (no root needed)
#   sudo packaging/install.sh /usr/local    # for everyone
#   packaging/install.sh --uninstall [PREFIX]
#
# Puts the app in PREFIX/lib/footnotes/, a link in PREFIX/bin/footnotes, and
# footnotes.desktop, hicolor icons and io.github.footnotes.Footnotes.metainfo.xml under
# PREFIX/share/. The index and settings are not touched (see `footnotes doctor` for where).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
uninstall=0
if [[ "${1:-}" == "--uninstall" ]]; then
    uninstall=1
    shift
fi
PREFIX="${1:-$HOME/.local}"
SHARE="$PREFIX/share"
METAINFO="io.github.footnotes.Footnotes.metainfo.xml"
SIZES=(16 24 32 48 64 128 256)

refresh() {
    if command -v update-desktop-database >/dev/null; then
        update-desktop-database -q "$SHARE/applications" || true
    fi
    if command -v gtk-update-icon-cache >/dev/null && [[ -f "$SHARE/icons/hicolor/index.theme" ]]; then
        gtk-update-icon-cache -q -t "$SHARE/icons/hicolor" || true
    fi
}

if (( uninstall )); then
    rm -rf "$PREFIX/lib/footnotes"
    rm -f "$PREFIX/bin/footnotes" "$SHARE/applications/footnotes.desktop" \
        "$SHARE/metainfo/$METAINFO" "$SHARE/icons/hicolor/scalable/apps/footnotes.svg"
    for size in "${SIZES[@]}"; do
        rm -f "$SHARE/icons/hicolor/${size}x${size}/apps/footnotes.png"
    done
    refresh
    echo "Removed Footnotes from $PREFIX"
    exit 0
fi

if [[ ! -x "$ROOT/dist/footnotes/footnotes" ]]; then
    echo "No build in $ROOT/dist/footnotes: run packaging/build.sh first." >&2
    exit 1
fi

mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$SHARE/applications" "$SHARE/metainfo"
rm -rf "$PREFIX/lib/footnotes.new"
cp -a "$ROOT/dist/footnotes" "$PREFIX/lib/footnotes.new"
rm -rf "$PREFIX/lib/footnotes"
mv "$PREFIX/lib/footnotes.new" "$PREFIX/lib/footnotes"
ln -sfn "$PREFIX/lib/footnotes/footnotes" "$PREFIX/bin/footnotes"

# The menu may not search PREFIX/bin: name the program by its full path.
sed -e "s|^Exec=footnotes|Exec=$PREFIX/bin/footnotes|" \
    -e "s|^TryExec=footnotes|TryExec=$PREFIX/bin/footnotes|" \
    "$ROOT/resources/footnotes.desktop" > "$SHARE/applications/footnotes.desktop"
install -m 644 "$ROOT/resources/$METAINFO" "$SHARE/metainfo/$METAINFO"
for size in "${SIZES[@]}"; do
    install -D -m 644 "$ROOT/resources/icons/hicolor/${size}x${size}/apps/footnotes.png" \
        "$SHARE/icons/hicolor/${size}x${size}/apps/footnotes.png"
done
install -D -m 644 "$ROOT/resources/icons/footnotes.svg" \
    "$SHARE/icons/hicolor/scalable/apps/footnotes.svg"
refresh

echo "Installed Footnotes in $PREFIX: run $PREFIX/bin/footnotes, or find it in the menu."
