#!/bin/sh
# tools/deb-symbols.sh LIBRARY [SYMBOLS] - write debian/libntmem0.symbols
# (or SYMBOLS) from what LIBRARY (a built libntmem.so) exports.
#
# The symbols file gives each exported symbol the first version that had
# it, so that a package built against libntmem gets "libntmem0 (>= that
# version)" for the symbols it uses.  A symbol already listed keeps its
# version; a new one gets this source's version (include/ntmem.h).  A
# listed symbol that is no longer exported is an error: programs built
# against it would fail to load, which needs a new soname, not a new
# symbols file.  The package build (dpkg-gensymbols -c4, debian/rules)
# fails whenever the file and the library disagree.
#
# Exit status: 0 written (or unchanged), 1 a symbol was lost, 2 bad usage.
set -eu
cd "$(dirname "$0")/.."
lib=${1:?usage: tools/deb-symbols.sh LIBRARY [SYMBOLS]}
out=${2:-debian/libntmem0.symbols}
[ -r "$lib" ] || { echo "tools/deb-symbols.sh: cannot read $lib" >&2; exit 2; }

version=$(sed -n 's/^#define NTMEM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
	include/ntmem.h | paste -sd. -)
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
package=libntmem$(echo "$soname" | sed 's/.*\.so\.//')

# "name@@NODE" (a symbol's default version), "name@NODE" (an older one,
# kept for the programs built against it: src/entry/compat.c) and "NODE"
# (the version node, type A) as dpkg-gensymbols writes them: name@NODE
# and NODE@NODE.
exported=$(nm -D --defined-only "$lib" | awk '
	$3 ~ /@@/ { sub(/@@/, "@", $3); print $3; next }
	$3 ~ /@/ { print $3; next }
	$2 == "A" { print $3 "@" $3 }' | LC_ALL=C sort)

listed() { [ -r "$out" ] && sed -n 's/^ \([^ ]*\) \(.*\)$/\1 \2/p' "$out"; }

lost=$(listed | while read -r sym ver; do
	echo "$exported" | grep -qxF "$sym" || echo "$sym"
done)
if [ -n "$lost" ]; then
	echo "tools/deb-symbols.sh: $lib no longer exports what $out lists:" >&2
	echo "$lost" | sed 's/^/  /' >&2
	echo "programs built against those fail to load: that needs a new soname" >&2
	exit 1
fi

tmp=$out.tmp
{
	echo "$soname $package #MINVER#"
	echo "* Build-Depends-Package: libntmem-dev"
	echo "$exported" | while read -r sym; do
		ver=$(listed | awk -v s="$sym" '$1 == s { print $2 }')
		echo " $sym ${ver:-$version}"
	done
} >"$tmp"
if cmp -s "$tmp" "$out" 2>/dev/null; then
	rm -f "$tmp"
	echo "$out: unchanged"
else
	mv "$tmp" "$out"
	echo "$out: written ($(echo "$exported" | wc -l) symbols)"
fi
