#!/bin/sh
# tools/install-hint.sh LIBDIR [BINDIR] - run by "make install":
#
# - when the Debian packages' files are there too (/usr/bin/ntmem,
#   /usr/lib/<triplet>/libntmem.so.0, the shim below it), warn: PATH,
#   pkg-config and the loader search /usr/local first, so this copy
#   shadows them silently, and neither dpkg nor "make uninstall" knows
#   of the other;
# - when the dynamic loader will not find libntmem.so.0 in LIBDIR by
#   itself, say what makes it (an rpath, LD_LIBRARY_PATH, or ldconfig);
#   print nothing when it will.
#
# The loader finds a library through its cache (what ldconfig last saw)
# or in its own system directories; a directory named in ld.so.conf but
# not yet scanned by ldconfig is not enough.  NTMEM_DEB_ROOT (for the
# tests) is a directory to look for the packages' files under instead of
# /.  Exit status: always 0, a hint never fails an install.
set -u
libdir=$1
bindir=${2:-}
canon() { readlink -f "$1" 2>/dev/null || printf '%s\n' "$1"; }
dir=$(canon "$libdir")
ldconfig=$(command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)

# The packages' files, other than the ones this install just wrote.
root=${NTMEM_DEB_ROOT:-}
shadowed=
for f in "$root"/usr/bin/ntmem "$root"/usr/lib/*-linux-gnu*/libntmem.so.0 \
	"$root"/usr/lib/*-linux-gnu*/ntmem/libntmem-preload.so; do
	[ -e "$f" ] || continue
	here=$(canon "$(dirname "$f")")
	[ "$here" = "$dir" ] && continue
	[ -n "$bindir" ] && [ "$here" = "$(canon "$bindir")" ] && continue
	shadowed="$shadowed $f"
done
if [ -n "$shadowed" ]; then
	echo "warning: the Debian packages' ntmem is installed too:"
	for f in $shadowed; do echo "           $f"; done
	echo "         With two copies, which one a program gets depends on PATH,"
	echo "         pkg-config's path and the loader's (each searches /usr/local"
	echo "         before /usr by default: a /usr/local copy shadows the"
	echo "         packages'). Keep one: 'make uninstall' with the same"
	echo "         variables, or 'apt remove ntmem libntmem0 libntmem-dev'."
fi

# In the cache already: nothing to say.
for lib in $("$ldconfig" -p 2>/dev/null |
	sed -n 's/^[[:space:]]*libntmem\.so\.0 .*=> //p'); do
	[ "$(canon "$(dirname "$lib")")" = "$dir" ] && exit 0
done

# The loader's own directories, searched without the cache (with the
# multiarch ones, such as /usr/lib/x86_64-linux-gnu).
for sys in /lib /usr/lib /lib64 /usr/lib64 /lib/*-linux-gnu* /usr/lib/*-linux-gnu*; do
	[ -d "$sys" ] && [ "$(canon "$sys")" = "$dir" ] && exit 0
done

# Named in ld.so.conf: only the cache is stale.  ldconfig -v -N lists the
# directories it would scan, as "DIR: (from ...)", without writing.
for conf in $("$ldconfig" -v -N 2>/dev/null | sed -n 's/^\([^[:space:]][^:]*\):.*/\1/p'); do
	if [ "$(canon "$conf")" = "$dir" ]; then
		echo "note: $libdir is on the loader's path, but its cache does not list"
		echo "      libntmem.so.0 yet: run 'ldconfig' as root, or programs linked"
		echo "      with \$(pkg-config --libs ntmem) fail with 'libntmem.so.0: cannot"
		echo "      open shared object file'."
		exit 0
	fi
done

echo "note: the dynamic loader does not search $libdir: a program linked with"
echo "      \$(pkg-config --libs ntmem) fails with 'libntmem.so.0: cannot open"
echo "      shared object file' unless you either"
echo "        link it with -Wl,-rpath,$libdir,"
echo "        run it with LD_LIBRARY_PATH=$libdir, or"
echo "        add $libdir to /etc/ld.so.conf.d/ntmem.conf and run ldconfig as root."
exit 0
