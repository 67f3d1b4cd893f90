/* settings.c - what every source of a policy's settings shares (the
 * built-in ladders, the profile, NTMEM_TUNABLES): installing a ladder
 * with its fallbacks, and noting a setting that was ignored.  Below
 * policy.c and tunables.c, which both use it. */
#include <stdarg.h>
#include <stdio.h>

#include "policy.h"
#include "registry.h"

/* The count the last note holds once the list is full ("3 more ..."). */
static unsigned more_noted(const char *note)
{
	unsigned n = 0;
	while (*note >= '0' && *note <= '9')
		n = n * 10 + (unsigned)(*note++ - '0');
	return n;
}

void ntm_policy_note(struct policy *p, const char *fmt, ...)
{
	if (p->note_count >= NTM_MAX_NOTES - 1) {
		/* The last slot counts the notes that did not fit, rather
		 * than cut the list silently. */
		char *last = p->notes[NTM_MAX_NOTES - 1];
		unsigned more = 1 + (p->note_count == NTM_MAX_NOTES ? more_noted(last) : 0);
		snprintf(last, NTM_NOTE_LEN, "%u more setting%s ignored; only the "
			 "first %d are listed", more, more == 1 ? " was" : "s were",
			 NTM_MAX_NOTES - 1);
		p->note_count = NTM_MAX_NOTES;
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
