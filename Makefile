# ntmem: clear and copy large memory without trashing the caches.
#
#   make                 libntmem.a, libntmem.so and the ntmem tool, in $(O)/
#   make check           the whole test suite (gcc, clang, ASan+UBSan, qemu)
#   make bench           the memset and memcpy bandwidth tables
#   make fuzz            each libFuzzer target for FUZZ_SECONDS (60) seconds
#   make install         PREFIX=/usr/local DESTDIR= (NO_BUILD=1: install what
#                        $(O) holds, building nothing)
#   make uninstall       with install's variables: remove what it put there
#   make deb             Debian packages of it all, in $(O)/deb/
#
# O=DIR builds elsewhere (make check uses build/clang and build/asan).

# One version, in one place: include/ntmem.h's NTMEM_VERSION_* macros.
# The shared object's name, ntmem.pc and ntmem --version all follow it;
# tests/test_build.c checks them, debian/changelog and the man pages
# against it.
VERSION   := $(shell sed -n 's/^[#]define NTMEM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
	       include/ntmem.h | paste -sd. -)
SOVERSION := $(firstword $(subst ., ,$(VERSION)))

O        ?= build
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
# The shim, where "ntmem run" looks for it once installed (Debian: a
# directory of its own, as it has no soname), and the CMake package files.
SHIMDIR  ?= $(LIBDIR)
CMAKEDIR ?= $(LIBDIR)/cmake/ntmem

CFLAGS   ?= -O2 -g
WERROR   ?= -Werror
override CFLAGS += -std=gnu11 -Wall -Wextra $(WERROR) -fPIC -pthread \
		   -Iinclude -Isrc -MMD -MP
LDLIBS   += -pthread -lm
# ntmem_preloaded() asks the dynamic linker (libc itself from glibc 2.34).
LDLIBS   += -ldl

# The variant loops must stay loops: keep the compiler from turning them
# into calls to the very memset and memcpy they replace.
NO_IDIOM := -fno-builtin $(shell $(CC) -Werror -fno-tree-loop-distribute-patterns \
	      -x c -c -o /dev/null /dev/null 2>/dev/null && \
	      echo -fno-tree-loop-distribute-patterns)

# Assembly is per architecture: NAME_ARCH.S, ARCH as the compiler's target
# triplet starts (x86_64, aarch64, ...).
ARCH        := $(shell $(CC) -dumpmachine | cut -d- -f1)

# A cross compiler's own archiver (aarch64-linux-gnu-ar, ...): make's
# default "ar" need not know the target's objects.
ifeq ($(origin AR),default)
AR := $(shell $(CC) -print-prog-name=ar)
endif
# src/ is one folder per subsystem (docs/architecture.md); tools/ one
# folder per command, beside the measuring core and the output.
LIB_SRC     := $(wildcard src/*/*.c)
ASM_SRC     := $(wildcard src/*/*_$(ARCH).S)
TOOL_SRC    := $(wildcard tools/*.c tools/*/*.c)
TEST_SRC    := $(wildcard tests/test_*.c)
TEST_HELPER := tests/harness.c

# The LD_PRELOAD shim's own files go into libntmem-preload.so only.
PRELOAD_SRC := src/preload/preload.c src/preload/preload_count.c \
	       src/preload/preload_routes.c
PRELOAD_ASM := $(wildcard src/preload/*_$(ARCH).S)
LIB_SRC     := $(filter-out $(PRELOAD_SRC),$(LIB_SRC))
ASM_SRC     := $(filter-out $(PRELOAD_ASM),$(ASM_SRC))

LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o) $(ASM_SRC:%.S=$(O)/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(O)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(O)/tests/%)

STATIC := $(O)/libntmem.a
SHARED := $(O)/libntmem.so.$(VERSION)
SONAME := libntmem.so.$(SOVERSION)
TOOL   := $(O)/ntmem

all: $(STATIC) $(SHARED) $(TOOL) $(O)/ntmem.pc

# The loops are in the variants, the entry points' small paths (the C
# widths' entry_c.h) and the safe calls' portable loops.  (A byte loop of
# the portable width became a call of memset on RISC-V, which in
# libntmem-preload.so is the shim's own memset: it called itself until
# the stack ran out.)
$(O)/src/variants/%.o $(O)/src/entry/%.o $(O)/src/safe/%.o: LOOP_FLAGS := $(NO_IDIOM)

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LOOP_FLAGS) -c -o $@ $<

# The tools see their own folders from tools/.
$(O)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TOOL_FLAGS) -Itools -c -o $@ $<

# bench --mix times calls of a few nanoseconds from one loop per kind of
# function: each loop starts a 64-byte line, so that none straddles two
# by where the linker happened to put it.  Straddling or not moved glibc's
# time per call by 10% and auto's memset against it from 0.78x to 0.97x
# between two builds of the same code (docs/results.md).
$(O)/tools/measure/mixrun.o: TOOL_FLAGS := -falign-loops=64

# The assembly takes its constants from C: src/asm_constants.c, compiled
# to assembly only, leaves "->NAME value" lines that become ".set NAME,
# value" in $(GEN)/asm_constants.h (the Linux kernel's asm-offsets).
GEN := $(O)/gen
$(GEN)/asm_constants.h: src/asm_constants.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -S -o $(GEN)/asm_constants.s $<
	sed -n 's/.*->\([A-Za-z_0-9]*\) \([0-9-]*\).*/.set \1, \2/p' \
		$(GEN)/asm_constants.s >$@.tmp
	@test -s $@.tmp || { echo "$@: no constants found" >&2; exit 1; }
	mv $@.tmp $@

$(O)/%.o: %.S $(GEN)/asm_constants.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(GEN) -c -o $@ $<

$(STATIC): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# Only ntmem_* is exported; everything else stays inside the library.
$(SHARED): $(LIB_OBJ) src/ntmem.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script,src/ntmem.map -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf libntmem.so.$(VERSION) $(O)/$(SONAME)
	ln -sf libntmem.so.$(VERSION) $(O)/libntmem.so

# ntmem.pc for this build's PREFIX and LIBDIR: rewritten only when they
# (or the version) change, so that make stays quiet and install copies
# what the build made.  A static link needs what libntmem.so was linked
# with: LDLIBS, in Libs.private.
$(O)/ntmem.pc: ntmem.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LDLIBS@|$(strip $(LDLIBS))|' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

# The CMake package files, the same way.  They find the prefix from where
# they lie (CMAKE_UP: as many ".." as CMAKEDIR is below PREFIX), and the
# lib and include directories below it, so that a DESTDIR tree is found
# where it is; a directory outside PREFIX stays absolute.
CMAKE_FILES := $(O)/ntmemConfig.cmake $(O)/ntmemConfigVersion.cmake
all tests: $(CMAKE_FILES)
below_prefix = $(patsubst $(PREFIX)/%,%,$(filter $(PREFIX)/%,$(1)))
from_prefix  = $(if $(call below_prefix,$(1)),$${_ntmem_prefix}/$(call below_prefix,$(1)),$(1))
CMAKE_UP     = $(subst $(eval) ,/,$(patsubst %,..,$(subst /, ,$(call below_prefix,$(CMAKEDIR)))))
$(O)/%.cmake: cmake/%.cmake.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CMAKEDIR@|$(CMAKEDIR)|g' \
	    -e 's|@CMAKE_UP@|$(CMAKE_UP)|g' \
	    -e 's|@CMAKE_LIBDIR@|$(call from_prefix,$(LIBDIR))|g' \
	    -e 's|@CMAKE_INCDIR@|$(call from_prefix,$(INCDIR))|g' \
	    -e 's|@CMAKE_LDLIBS@|$(subst $(eval) ,;,$(strip $(LDLIBS)))|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
	    -e 's|@MAJOR_MINOR@|$(basename $(VERSION))|g' \
	    -e "s|@SIZEOF_POINTER@|$$(echo __SIZEOF_POINTER__ | \
		$(CC) -E -P -x c - | tail -n 1)|g" $< >$@.tmp
	@if grep -q '@[A-Z_]*@' $@.tmp; then \
		echo "$@: unreplaced $$(grep -o '@[A-Z_]*@' $@.tmp | head -n 1)" >&2; \
		rm -f $@.tmp; exit 1; fi
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(TOOL): $(TOOL_OBJ) $(STATIC)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(STATIC) $(LDLIBS)

# libntmem-preload.so: the library's objects and the shim's, linked apart
# from libntmem.so.  It exports the C library's names and nothing else,
# and binds its own references at load (-z now): no lazy resolution ever
# runs inside a memcpy.  Its objects are built as the variants are: no
# loop may become a call of the functions they define.
PRELOAD     := $(O)/libntmem-preload.so
PRELOAD_OBJ := $(PRELOAD_SRC:%.c=$(O)/%.o) $(PRELOAD_ASM:%.S=$(O)/%.o)
all: $(PRELOAD)

$(O)/src/preload/%.o: src/preload/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(NO_IDIOM) -c -o $@ $<

# The shim exports the C library's names only, so not the symbol versions
# that keep libntmem.so's older callers working (src/entry/compat.c).
SHIM_LIB_OBJ := $(filter-out $(O)/src/entry/compat.o,$(LIB_OBJ))
SHIM_LINK = $(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,now \
	-Wl,--version-script,src/preload/preload.map -o $@ $(filter %.o,$^) $(LDLIBS)
$(PRELOAD): $(PRELOAD_OBJ) $(SHIM_LIB_OBJ) src/preload/preload.map
	$(SHIM_LINK)

# On x86-64, a shim of each vector width's own, with no width to test in
# its small calls: $(O)/<width>/libntmem-preload.so, which ntmem run
# preloads on a CPU that runs the width (preload_x86_64.S).  Only the
# assembly differs.
ifeq ($(ARCH),x86_64)
SHIM_WIDTHS := sse2 avx2 avx512
SHIM_DEF_sse2 := SSE2
SHIM_DEF_avx2 := AVX2
SHIM_DEF_avx512 := AVX512
endif
PRELOAD_WIDTHS := $(SHIM_WIDTHS:%=$(O)/%/libntmem-preload.so)
PRELOAD_C_OBJ  := $(PRELOAD_SRC:%.c=$(O)/%.o)
all: $(PRELOAD_WIDTHS)
$(SHIM_WIDTHS:%=$(O)/src/preload/width-%.o): $(O)/src/preload/width-%.o: \
		$(PRELOAD_ASM) $(GEN)/asm_constants.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(GEN) -DSHIM_WIDTH_$(SHIM_DEF_$*) \
		-c -o $@ $(PRELOAD_ASM)
$(PRELOAD_WIDTHS): $(O)/%/libntmem-preload.so: $(O)/src/preload/width-%.o \
		$(PRELOAD_C_OBJ) $(SHIM_LIB_OBJ) src/preload/preload.map
	@mkdir -p $(@D)
	$(SHIM_LINK)

# ntmem run looks for the shim next to itself, then where it is installed:
# SHIMDIR, recorded in $(GEN)/shimdir so that a change of it ("make", then
# "make install PREFIX=/usr") rebuilds the tool that looks there.
$(O)/tools/measure/shim_path.o: \
	override CPPFLAGS += -DNTMEM_LIBDIR='"$(SHIMDIR)"'
$(O)/tools/measure/shim_path.o: $(GEN)/shimdir
$(GEN)/shimdir: FORCE
	@mkdir -p $(@D)
	@echo '$(SHIMDIR)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# bench --mix's bundled distributions (data/distributions) are built into
# the tool, so that it finds them wherever it is installed: one
# { "FILE", "CSV TEXT" } line each.  They hold numbers and commas only,
# checked here, so the text needs no escaping.
DISTRIBUTIONS := $(sort $(wildcard data/distributions/*.csv))
$(GEN)/distributions.h: $(DISTRIBUTIONS)
	@mkdir -p $(@D)
	@for f in $(DISTRIBUTIONS); do \
		if tr -d '\n' <$$f | grep -q '[^0-9.,eE+-]'; then \
			echo "$$f: not only numbers and commas" >&2; exit 1; fi; \
		printf '{"%s", "' "$$(basename $$f .csv)"; tr -d '\r\n' <$$f; \
		printf '"},\n'; done >$@.tmp
	mv $@.tmp $@
$(O)/tools/measure/sizedist_load.o: $(GEN)/distributions.h
$(O)/tools/measure/sizedist_load.o: override CPPFLAGS += -I$(GEN)

# Tests link the static library so they can reach internal units, and the
# tool objects (bar main) so they can test its parsers.
TOOL_LIB_OBJ := $(filter-out $(O)/tools/ntmem.o,$(TOOL_OBJ))
$(O)/tests/%: tests/%.c $(O)/tests/harness.o $(TOOL_LIB_OBJ) $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(TEST_LDFLAGS) -Itools -o $@ $< \
		$(O)/tests/harness.o $(TOOL_LIB_OBJ) $(STATIC) $(LDLIBS)

# test_fence counts the library's fences by wrapping the one function.
$(O)/tests/test_fence: TEST_LDFLAGS = -Wl,--wrap=ntm_fence
# test_safe too: a safe call that streams returns fenced, fault or not.
$(O)/tests/test_safe: TEST_LDFLAGS = -Wl,--wrap=ntm_fence
# test_stack measures the stack a call takes, with bindings made at load.
$(O)/tests/test_stack: TEST_LDFLAGS = -Wl,-z,now
# test_select counts the entry points' calls into C.
$(O)/tests/test_select: TEST_LDFLAGS = -Wl,--wrap=ntm_set_large,--wrap=ntm_copy_large
# test_dczva makes DCZID_EL0 say DC ZVA is prohibited (on AArch64).
$(O)/tests/test_dczva: TEST_LDFLAGS = -Wl,--wrap=ntm_sysreg_dczid
# test_loaded raises a signal inside the constructor's detection, from
# sysconf, and holds a thread inside a report's sysfs read (syscall).
$(O)/tests/test_loaded: TEST_LDFLAGS = -Wl,--wrap=sysconf,--wrap=syscall

# The shared library too: tests dlopen it; ntmem.pc and the CMake files
# (added where they are made): test_build reads them.
tests: $(TESTS) $(TOOL) $(SHARED) $(O)/ntmem.pc

# test_preload's helpers: plain programs that know nothing of ntmem, as
# the programs the shim serves.  They call the functions rather than
# inline them; the fortified one is built as Debian builds packages.
# A NAME_lib.c is the library libNAME.so, which the program NAME links.
HELPER_LIBS     := $(patsubst tests/preload/%_lib.c,$(O)/tests/preload/lib%.so,\
		     $(wildcard tests/preload/*_lib.c))
PRELOAD_HELPERS := $(patsubst %.c,$(O)/%,$(filter-out %_lib.c,\
		     $(wildcard tests/preload/*.c)))
HELPER_CFLAGS   := -fno-builtin
$(O)/tests/preload/fortify: HELPER_CFLAGS := -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
$(O)/tests/preload/resolver: HELPER_LDLIBS := -L$(O)/tests/preload -lresolver \
	-Wl,-rpath,'$$ORIGIN'
$(O)/tests/preload/resolver: $(O)/tests/preload/libresolver.so
$(O)/tests/preload/sandbox: tests/sandbox.h
# Bound at load, as Debian hardens its programs: no lazy binding's stack
# in the figures test_stack compares.
$(O)/tests/preload/stack: tests/stackcheck.h
$(O)/tests/preload/stack: HELPER_LDLIBS := -Wl,-z,now
$(O)/tests/preload/%: tests/preload/%.c tests/preload/helper.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(HELPER_CFLAGS) $(LDFLAGS) -o $@ $< \
		$(HELPER_LDLIBS) -ldl
# -fno-plt: the library's calls go through its GOT, bound at load.
$(O)/tests/preload/lib%.so: tests/preload/%_lib.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fno-builtin -fno-plt $(LDFLAGS) -shared \
		-o $@ $<
tests: $(PRELOAD) $(PRELOAD_WIDTHS) $(PRELOAD_HELPERS) $(HELPER_LIBS)

# The whole suite; its last line is "N passed, N failed, N skipped".
check:
	@tests/check.sh

# This build's tests only, quickly, without the other builds.
test: tests
	@tests/run.sh $(O)

# libFuzzer (clang): every target in tests/fuzz for FUZZ_SECONDS each,
# built apart in $(O)/fuzz.  An input that fails is kept as a regression
# test in tests/fuzz/corpus/ (see tests/fuzz/run.sh).
FUZZ_SECONDS ?= 60
fuzz:
	@tests/fuzz/run.sh $(O)/fuzz $(FUZZ_SECONDS)

# The main job: seed 000's memset table, the same for a byte other than
# zero, and their memcpy twin, with plots.  Zeros are what calloc and
# page clearing write, and zero-only methods (CLZERO, DC ZVA) can take
# them; BENCH_VALUE is any other byte, which they cannot: with both
# summaries shown, a lead only zeros have is not read as memset's.
# The seed's sizes up to 1 GiB finish in about a minute and a half on 2
# cores and fit in 3 GiB; 'ntmem bench memset' alone adds 4096MB where
# memory allows.
# It builds 'all' first: what the README goes on to use (ntmem run's shim
# among it) is there after 'make bench' alone.  That build is quiet (-s):
# a hundred compiler lines in front of the tables hid them; a compiler's
# warnings and errors still show, and the build still stops the bench.
BENCH_SIZES ?= 2MB,16MB,128MB,1024MB
BENCH_VALUE ?= 0x5a
# The tables are kept in $(O)/bench-*.txt; the run ends with their
# summaries, the last lines of each (from "# summary" on): the summary's
# header once (its rules), then each table's sections ("# memset, 0x00
# written" ...).
BENCH_TABLES = $(O)/bench-memset.txt $(O)/bench-memset-value.txt \
	$(O)/bench-memcpy.txt
bench:
	@$(MAKE) -s --no-print-directory all $(O)/callcost-static $(O)/callcost-shared
	$(TOOL) bench memset -s $(BENCH_SIZES) --plot $(O)/bench-memset.svg \
		>$(O)/bench-memset.txt
	@cat $(O)/bench-memset.txt
	$(TOOL) bench memset -s $(BENCH_SIZES) --value $(BENCH_VALUE) \
		--plot $(O)/bench-memset-value.svg >$(O)/bench-memset-value.txt
	@cat $(O)/bench-memset-value.txt
	$(TOOL) bench memcpy -s $(BENCH_SIZES) --plot $(O)/bench-memcpy.svg \
		>$(O)/bench-memcpy.txt
	@cat $(O)/bench-memcpy.txt
	$(O)/callcost-static "libntmem.a"
	$(O)/callcost-shared "libntmem.so"
	@echo
	@echo "Summary of $(BENCH_TABLES):"
	@echo "memset ran twice: zeros, which zero-only methods (clzero, dc_zva)"
	@echo "can write, and $(BENCH_VALUE), which they cannot."
	@awk '/^# summary/ { s = 1 } s && /^# [^ ]/ && !/^# summary/ { exit } s' \
		$(O)/bench-memset.txt
	@for t in $(BENCH_TABLES); do \
		awk '/^# summary/ { s = 1; next } s && /^# [^ ]/ { b = 1 } b' $$t; done
	@echo "Plots: $(O)/bench-memset.svg $(O)/bench-memset-value.svg $(O)/bench-memcpy.svg"

# Record this machine's tables for the built-in ladders and their replay
# (tests/test_replay.c): data/machines/RECORD_NAME, by default named
# vendor-family-model.
record: $(TOOL)
	tools/record.sh $(TOOL) $(RECORD_NAME)

# What a small call costs, against the static and the shared library.
$(O)/callcost-static: bench/callcost.c $(STATIC)
	$(CC) $(CFLAGS) -fno-builtin $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)
$(O)/callcost-shared: bench/callcost.c $(SHARED)
	$(CC) $(CFLAGS) -fno-builtin $(LDFLAGS) -o $@ $< -L$(O) -lntmem \
		-Wl,-rpath,'$$ORIGIN' $(LDLIBS)

# NO_BUILD=1 installs what $(O) holds and builds nothing (a file missing
# there fails the install): for a test of the install that must not
# rebuild the build it checks.
install: $(if $(NO_BUILD),,all)
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 644 include/ntmem.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libntmem.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf libntmem.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libntmem.so
	install -m 644 $(O)/ntmem.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKEDIR)/
	install -m 755 $(TOOL) $(DESTDIR)$(BINDIR)/
	install -m 644 docs/ntmem.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 docs/ntmem.3 $(DESTDIR)$(MANDIR)/man3/
	@[ -n "$(DESTDIR)" ] || tools/install-hint.sh $(LIBDIR) $(BINDIR)

install: install-preload
install-preload: $(if $(NO_BUILD),,$(PRELOAD) $(PRELOAD_WIDTHS))
	install -d $(DESTDIR)$(SHIMDIR)
	install -m 755 $(PRELOAD) $(DESTDIR)$(SHIMDIR)/
	for w in $(SHIM_WIDTHS); do \
		install -d $(DESTDIR)$(SHIMDIR)/$$w && \
		install -m 755 $(O)/$$w/libntmem-preload.so $(DESTDIR)$(SHIMDIR)/$$w/ || exit 1; \
	done
.PHONY: install-preload

# Exactly what install puts there, for the same PREFIX, DESTDIR, LIBDIR,
# SHIMDIR... (nothing is built for it): the files, then the directories
# that are ntmem's own (the CMake package's, the shim's widths', and
# SHIMDIR where it is not LIBDIR) once empty.  Shared directories such as
# bin/ and lib/pkgconfig/ stay.  tests/test_uninstall.c checks it.
INSTALLED := $(INCDIR)/ntmem.h \
	$(addprefix $(LIBDIR)/,libntmem.a libntmem.so.$(VERSION) $(SONAME) \
		libntmem.so pkgconfig/ntmem.pc) \
	$(addprefix $(CMAKEDIR)/,$(notdir $(CMAKE_FILES))) \
	$(BINDIR)/ntmem $(MANDIR)/man1/ntmem.1 $(MANDIR)/man3/ntmem.3 \
	$(SHIMDIR)/libntmem-preload.so \
	$(SHIM_WIDTHS:%=$(SHIMDIR)/%/libntmem-preload.so)
INSTALLED_DIRS := $(SHIM_WIDTHS:%=$(SHIMDIR)/%) $(CMAKEDIR) \
	$(filter-out $(LIBDIR),$(SHIMDIR))
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	for d in $(addprefix $(DESTDIR),$(INSTALLED_DIRS)); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d" || exit 1; \
	done

# libntmem0, libntmem-dev and ntmem (debian/), built from a copy of this
# tree in $(O)/deb/ and checked with lintian: see tools/deb.sh.
deb:
	@tools/deb.sh $(O)/deb

clean:
	rm -rf build $(O)

.PHONY: all tests test check bench install uninstall clean fuzz record deb FORCE
.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(PRELOAD_OBJ:.o=.d) \
	$(SHIM_WIDTHS:%=$(O)/src/preload/width-%.d) \
	$(TESTS:=.d) $(O)/tests/harness.d $(GEN)/asm_constants.d
