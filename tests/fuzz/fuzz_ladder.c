/* fuzz_ladder.c - the ladder parser, ntm_ladder_parse(): any text either
 * fails with a reason that fits its buffer, or gives a well-formed ladder
 * that ntm_ladder_format() prints back into the same ladder. */
#include "fuzz.h"
#include "fuzz_ladder_check.h"

FUZZ_TARGET(ladder)
{
	struct fuzz_in in = {data, size};
	unsigned how = (unsigned)fuzz_take(&in, 1);
	enum ntmem_op op = how & 1 ? NTMEM_OP_COPY : NTMEM_OP_SET;
	int zero_ok = (how & 2) && op == NTMEM_OP_SET;
	size_t why_len = 1 + (how >> 2);  /* short reason buffers too */
	char *text = fuzz_string(in.p, in.n);
	char *why = malloc(why_len);
	struct ladder l, again;
	memset(&l, 0, sizeof l);
	if (!why)
		abort();
	if (ntm_ladder_parse(&l, op, zero_ok, text, NTMEM_ORIGIN_ENVIRONMENT, why,
			     why_len)) {
		if (strnlen(why, why_len) == why_len)
			FUZZ_FAIL("ladder: the reason is not terminated in %zu bytes",
				  why_len);
	} else {
		fuzz_check_ladder(&l, op, zero_ok, "ladder");
		char printed[1024], why2[256];
		if (ntm_ladder_format(&l, printed, sizeof printed) == 0) {
			memset(&again, 0, sizeof again);
			if (ntm_ladder_parse(&again, op, zero_ok, printed,
					     NTMEM_ORIGIN_ENVIRONMENT, why2, sizeof why2))
				FUZZ_FAIL("ladder: '%s' printed as '%s', which fails: %s",
					  text, printed, why2);
			if (again.count != l.count)
				FUZZ_FAIL("ladder: '%s' -> '%s': rungs differ", text, printed);
			for (unsigned i = 0; i < l.count; i++)
				if (again.v[i] != l.v[i] ||
				    (i + 1 < l.count && again.to[i] != l.to[i]))
					FUZZ_FAIL("ladder: '%s' -> '%s': rung %u differs",
						  text, printed, i);
		}
	}
	free(why);
	free(text);
	return 0;
}
