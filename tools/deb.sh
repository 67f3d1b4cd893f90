#!/bin/sh
# tools/deb.sh OUTDIR - "make deb": build the Debian packages libntmem0,
# libntmem-dev and ntmem (debian/) from a copy of this tree, and check
# them with lintian.
#
# The copy (OUTDIR/ntmem-VERSION: the files git tracks or would track,
# else everything but build/) keeps dpkg-buildpackage's output, which goes
# to the parent directory, inside OUTDIR: OUTDIR/*.deb, with the
# .buildinfo, the .changes and build.log.  No -dbgsym packages (noddebs).
#
# Exit status: 0 built and lintian found no error (or lintian is not
# installed: it says so); 1 the build failed or lintian found an error;
# 2 a tool is missing (it says which Debian package has it).
set -u
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: tools/deb.sh OUTDIR}

need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "make deb: $1 is missing: apt-get install $2" >&2
	exit 2
}
need dpkg-buildpackage dpkg-dev
need dh debhelper
need dpkg-parsechangelog dpkg-dev

version=$(sed -n 's/^#define NTMEM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
	include/ntmem.h | paste -sd. -)
deb_version=$(dpkg-parsechangelog -S Version)
if [ "$deb_version" != "$version" ]; then
	echo "make deb: debian/changelog says $deb_version, include/ntmem.h $version:" >&2
	echo "  add a debian/changelog entry for $version (dch -v $version)" >&2
	exit 1
fi

src=$out/ntmem-$version
rm -rf "$out"
mkdir -p "$src" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
		tar -cf - -T - | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi || { echo "make deb: cannot copy the tree to $src" >&2; exit 1; }

# Not the settings of the make that runs this: its O= would reach the
# copy's "make clean" (rm -rf $(O)) through MAKEFLAGS.
echo "make deb: dpkg-buildpackage -us -uc -b in $src (log: $out/build.log)"
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u O -u DESTDIR \
	DEB_BUILD_OPTIONS="noddebs ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	echo "make deb: dpkg-buildpackage failed; the end of $out/build.log:" >&2
	tail -n 25 "$out/build.log" | sed 's/^/  /' >&2
	if grep -q 'dpkg-gensymbols' "$out/build.log"; then
		echo "  libntmem.so's exports and debian/libntmem0.symbols differ: 'make &&" >&2
		echo "  tools/deb-symbols.sh build/libntmem.so' rewrites the file (a new symbol" >&2
		echo "  gets the header's version)" >&2
	fi
	exit 1
fi
rm -rf "$src"
ls "$out"/*.deb | sed 's/^/  /'

changes=$(ls "$out"/*.changes)
if ! command -v lintian >/dev/null 2>&1; then
	echo "make deb: lintian is missing (apt-get install lintian): the packages are not checked"
	exit 0
fi
echo "make deb: lintian $changes"
lintian --fail-on error --info "$changes"
rc=$?
[ $rc -eq 0 ] && echo "make deb: lintian found no errors" ||
	echo "make deb: lintian found errors (status $rc)" >&2
[ $rc -eq 0 ]
