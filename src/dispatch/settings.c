/* settings.c - what every source of a policy's settings shares (the
 * built-in ladders, the profile, NTMEM_TUNABLES): installing a ladder
 * with its fallbacks, and noting a setting that was ignored.  Below
 * policy.c and tunables.c, which both use it. */
#include <stdarg.h>
#include <stdio.h>

#include "policy.h"
#include "registry.h"

void ntm_policy_note(struct policy *p, const char *fmt, ...)
{
	if (p->note_count >= NTM_MAX_NOTES)
		return;
	if (p->note_count == NTM_MAX_NOTES - 1) {
		/* Say that the list is cut, rather than cut it silently. */
		snprintf(p->notes[p->note_count++], NTM_NOTE_LEN,
			 "more settings were ignored; only the first %d are listed",
			 NTM_MAX_NOTES - 1);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->note_count++], NTM_NOTE_LEN, fmt, ap);
	va_end(ap);
}

const struct variant *ntm_fallback_streaming(const struct policy *p,
					     enum ntmem_class cls)
{
	enum ntmem_op op = ntm_op_of(cls);
	const struct variant *v = ntm_ranked(op, NTMEM_ROLE_STREAMING,
					     cls == NTMEM_CLASS_SET_ZERO, p->usable);
	return v ? v : ntm_ranked_cached(op, p->usable);
}

/* The nonzero twin of a memset ladder: zero-only rungs give way to the
 * best streaming variant that writes any value. */
static void nonzero_twin(const struct policy *p, struct ladder *l)
{
	const struct variant *any = ntm_fallback_streaming(p, NTMEM_CLASS_SET_NONZERO);
	for (unsigned i = 0; i < l->count; i++)
		if (l->v[i]->zero_only)
			l->v[i] = any;
	if (l->streaming && l->streaming->zero_only)
		l->streaming = any;
}

void ntm_policy_install(const struct policy *p, struct ladder *l,
			struct ladder *from, enum ntmem_class cls)
{
	if (cls == NTMEM_CLASS_SET_NONZERO)
		nonzero_twin(p, from);
	from->cached[0] = ntm_ranked_cached(ntm_op_of(cls), p->usable);
	ntm_ladder_finish(from, ntm_fallback_streaming(p, cls));
	*l = *from;
}
