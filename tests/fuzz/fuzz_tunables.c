/* fuzz_tunables.c - NTMEM_TUNABLES as the policy reads it:
 * ntm_policy_build() with any text must give three well-formed ladders
 * that every call can use, and notes that fit their buffers. */
#include "dispatch/cpu.h"
#include "fuzz.h"
#include "fuzz_ladder_check.h"
#include "dispatch/policy.h"

FUZZ_TARGET(tunables)
{
	static struct policy p;
	char *text = fuzz_string(data, size);
	ntm_policy_build(&p, ntm_cpu(), text, NULL);
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ladder *l = &p.ladder[cls];
		enum ntmem_op op = ntm_op_of((enum ntmem_class)cls);
		fuzz_check_ladder(l, op, cls == NTMEM_CLASS_SET_ZERO, ntm_class_key[cls]);
		if (l->to[l->count - 1] != SIZE_MAX)
			FUZZ_FAIL("tunables '%s': %s ladder ends at %zu", text,
				  ntm_class_key[cls], l->to[l->count - 1]);
		if (!l->streaming || l->streaming->op != op)
			FUZZ_FAIL("tunables '%s': %s has no streaming variant", text,
				  ntm_class_key[cls]);
		for (unsigned i = 0; i < l->count; i++)
			if (!l->cached[i] || ntm_streams(l->cached[i]))
				FUZZ_FAIL("tunables '%s': %s rung %u has no cached variant "
					  "for NTMEM_F_TEMPORAL", text, ntm_class_key[cls], i);
	}
	if (p.note_count < 0 || p.note_count > NTM_MAX_NOTES)
		FUZZ_FAIL("tunables '%s': %d notes", text, p.note_count);
	for (int i = 0; i < p.note_count; i++)
		if (strnlen(p.notes[i], NTM_NOTE_LEN) == NTM_NOTE_LEN)
			FUZZ_FAIL("tunables '%s': note %d is not terminated", text, i);
	free(text);
	return 0;
}
