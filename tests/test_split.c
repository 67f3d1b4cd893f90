/* test_split.c - cutting an extent into parts: the pieces cover the spans
 * exactly once, parts are numbered in address order, boundaries fall on
 * the grain (so no two threads share a line or, where asked, a page),
 * parts are balanced to within a grain, and the grain is chosen as
 * documented.  Pure functions: checked against hand-worked cases and
 * random ones. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "parallel/split.h"
#include "util/size.h"


static const size_t write_grains[] = {2 * MiB, 4 * KiB, 64};
static const size_t fault_grains[] = {GiB, 2 * MiB, 4 * KiB};

/* Check the invariants of one split; why gets the first one broken. */
static int split_ok(uintptr_t base, const struct span *spans, unsigned nspans,
		    unsigned parts, size_t grain, char *why, size_t len)
{
	struct piece pc[NTM_MAX_PIECES];
	unsigned nparts = 99;
	size_t n = ntm_split(base, spans, nspans, parts, grain, pc, &nparts);
	size_t total = 0, covered = 0;
	for (unsigned r = 0; r < nspans; r++)
		total += spans[r].len;
	if (nparts > parts || (total && nparts == 0) || n > NTM_MAX_PIECES) {
		snprintf(why, len, "%u parts of %u asked, %zu pieces", nparts, parts, n);
		return 0;
	}
	/* Pieces in address order, inside spans, covering them. */
	unsigned r = 0;
	size_t at = nspans ? spans[0].off : 0;
	for (size_t i = 0; i < n; i++) {
		while (r < nspans && at == spans[r].off + spans[r].len && ++r < nspans)
			at = spans[r].off;
		if (r == nspans || pc[i].off != at || pc[i].len == 0) {
			snprintf(why, len, "piece %zu at %zu+%zu, expected at %zu", i,
				 pc[i].off, pc[i].len, at);
			return 0;
		}
		at += pc[i].len;
		covered += pc[i].len;
		unsigned prev = i ? pc[i - 1].part : 0;
		if (pc[i].part != prev && pc[i].part != prev + 1) {
			snprintf(why, len, "piece %zu: part %u after %u", i, pc[i].part, prev);
			return 0;
		}
		/* A new part starts on the grain or at a span's start. */
		if (i && pc[i].part != prev && (base + pc[i].off) % grain &&
		    pc[i].off != spans[r].off) {
			snprintf(why, len, "part %u starts at %zu, off the grain %zu",
				 pc[i].part, pc[i].off, grain);
			return 0;
		}
	}
	if (covered != total || (n && pc[n - 1].part + 1 != nparts)) {
		snprintf(why, len, "covered %zu of %zu bytes", covered, total);
		return 0;
	}
	/* Balance: each part within a grain of its share, when shares are
	 * at least a grain. */
	size_t share = total / parts;
	if (nparts == parts && share >= grain)
		for (unsigned p = 0; p < nparts; p++) {
			size_t bytes = 0;
			for (size_t i = 0; i < n; i++)
				bytes += pc[i].part == p ? pc[i].len : 0;
			size_t diff = bytes > share ? bytes - share : share - bytes;
			if (diff > grain + parts) {
				snprintf(why, len, "part %u has %zu bytes, share %zu", p,
					 bytes, share);
				return 0;
			}
		}
	return 1;
}

static void test_worked_cases(void)
{
	struct piece pc[NTM_MAX_PIECES];
	unsigned np;
	/* 1 GiB at a 2 MiB boundary, two threads: halves, on 2 MiB. */
	uintptr_t base = 0x7f0000000000;
	struct span all = {0, GiB};
	size_t g = ntm_split_grain(base, GiB, 2, write_grains, 3);
	size_t n = ntm_split(base, &all, 1, 2, g, pc, &np);
	t_check(g == 2 * MiB && n == 2 && np == 2 && pc[1].off == GiB / 2,
		"split: 1 GiB in two halves on 2 MiB", "grain %zu, %zu pieces, second at %zu",
		g, n, n > 1 ? pc[1].off : 0);

	/* More threads than lines: one line each, never two in a line. */
	struct span three = {0, 3 * 64};
	n = ntm_split(base, &three, 1, 8, 64, pc, &np);
	t_check(n == 3 && np == 3 && pc[1].off == 64 && pc[2].off == 128,
		"split: 8 threads over 3 lines give 3 parts of a line",
		"%zu pieces, %u parts", n, np);

	/* 100 bytes from 10 bytes into a line touch two lines: two parts. */
	struct span odd = {0, 100};
	n = ntm_split(base + 10, &odd, 1, 4, 64, pc, &np);
	t_check(np == 2 && pc[1].off == 54, "split: 100 unaligned bytes, 2 lines, 2 parts",
		"%u parts, second at %zu", np, n > 1 ? pc[1].off : 0);

	/* A hole (the hot region): 1 MiB, gap, 2 MiB in two parts.  The
	 * first part takes the first span and half a MiB of the second. */
	struct span holed[2] = {{0, MiB}, {2 * MiB, 2 * MiB}};
	n = ntm_split(base, holed, 2, 2, 4 * KiB, pc, &np);
	t_check(n == 3 && np == 2 && pc[0].part == 0 && pc[1].part == 0 &&
			pc[1].off == 2 * MiB && pc[1].len == MiB / 2 &&
			pc[2].part == 1 && pc[2].off == 2 * MiB + MiB / 2,
		"split: a part straddles the hot region's gap", "%zu pieces", n);

	/* Grains. */
	t_check(ntm_split_grain(0, 8 * MiB, 2, write_grains, 3) == 2 * MiB &&
			ntm_split_grain(4096, 8 * MiB, 2, write_grains, 3) == 4 * KiB &&
			ntm_split_grain(0, 4 * GiB, 2, fault_grains, 3) == GiB &&
			ntm_split_grain(2 * MiB, 4 * GiB, 2, fault_grains, 3) == 2 * MiB &&
			ntm_split_grain(1, 1000, 3, write_grains, 3) == 64,
		"split: grain is a page when whole pages or small beside a part",
		"unexpected grain");
}

static void test_random(void)
{
	int runs = t_quick() ? 2000 : 20000, ok = 1;
	char why[160] = "";
	static const size_t bases[] = {0, 1, 63, 64, 4095, 4096, 2 * MiB - 1, 2 * MiB};
	for (int i = 0; ok && i < runs; i++) {
		uintptr_t base = 0x10000000000 + bases[t_rand() % 8];
		size_t scale = (size_t)1 << (t_rand() % 34);  /* up to 16 GiB */
		struct span s[2];
		unsigned nspans = 1 + (unsigned)(t_rand() % 2);
		s[0].off = 0;
		s[0].len = 1 + t_rand() % scale;
		if (nspans == 2) {
			s[1].off = s[0].len + 1 + t_rand() % scale;
			s[1].len = 1 + t_rand() % scale;
		}
		unsigned parts = 1 + (unsigned)(t_rand() % NTM_MAX_PARTS);
		size_t total = s[0].len + (nspans == 2 ? s[1].len : 0);
		const size_t *grains = t_rand() % 2 ? write_grains : fault_grains;
		size_t grain = ntm_split_grain(base, total, parts, grains, 3);
		ok = split_ok(base, s, nspans, parts, grain, why, sizeof why);
		if (!ok)
			fprintf(stderr, "case %d: base %#lx, spans %zu+%zu %zu+%zu, %u parts\n",
				i, (unsigned long)base, s[0].off, s[0].len,
				nspans == 2 ? s[1].off : 0, nspans == 2 ? s[1].len : 0, parts);
	}
	t_check(ok, "split: random extents: exact cover, order, grain, balance", "%s", why);
}

int main(void)
{
	test_worked_cases();
	test_random();
	return t_finish();
}
