/* mixrun.c - the passes over a sequence of calls (see mixrun.h).
 *
 * One loop per kind of call, each calling the function as a program
 * does, through its pointer as through a PLT: at 30 bytes a call costs a
 * few nanoseconds, and any dispatch of the harness's own (a switch on the
 * kind) would be timed with it. */
#include "mixrun.h"

#include <string.h>

#define FOR_EACH_CALL(t, c)                                                    \
	for (const struct mix_call *c = (t)->seq->calls,                       \
				   *c##_end = c + MIX_CALLS;                   \
	     c < c##_end; c++)

/* glibc's functions, ntmem_set and ntmem_copy, and the peers without
 * flags: all through the same two loops, the function in a local as a
 * program has it in its PLT.  One loop for all keeps the comparison
 * fair: at a few nanoseconds a call, where a loop's code lies moved a
 * function's time per call by up to 10% (glibc's memset of 0-15 bytes
 * called directly against through a pointer, docs/results.md). */
static int plain_set(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	peer_set_fn *set = t->set;
	(void)calls;
	FOR_EACH_CALL(t, c)
		set(t->dst + c->offset, t->value, c->size);
	return 0;
}

static int plain_copy(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	peer_copy_fn *copy = t->copy;
	(void)calls;
	FOR_EACH_CALL(t, c)
		copy(t->dst + c->offset, t->src + c->offset, c->size);
	return 0;
}

static int flags_set(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	const struct peer *p = t->f->peer;
	peer_set_flags_fn *set = p->set.flags;
	void (*drain)(void) = p->drain;
	unsigned flags = p->def->flags;
	(void)calls;
	FOR_EACH_CALL(t, c) {
		set(t->dst + c->offset, t->value, c->size, flags);
		if (drain)
			drain();
	}
	return 0;
}

static int flags_copy(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	const struct peer *p = t->f->peer;
	peer_copy_flags_fn *copy = p->copy.flags;
	void (*drain)(void) = p->drain;
	unsigned flags = p->def->flags;
	(void)calls;
	FOR_EACH_CALL(t, c) {
		copy(t->dst + c->offset, t->src + c->offset, c->size, flags);
		if (drain)
			drain();
	}
	return 0;
}

/* The variants and the safe calls: through fn_run, which may refuse. */
static int any(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	(void)calls;
	FOR_EACH_CALL(t, c)
		if (fn_run(t->f, t->dst + c->offset, t->src ? t->src + c->offset : NULL,
			   c->size, t->value))
			return -1;
	return 0;
}

struct benchfn mix_callable(struct mix_target *t)
{
	int set = t->f->op == NTMEM_OP_SET;
	int (*call)(void *, size_t) = any;
	t->set = NULL;
	t->copy = NULL;
	if (t->f->kind == FN_LIBC) {
		t->set = memset;
		t->copy = memcpy;
	} else if (t->f->kind == FN_AUTO) {
		t->set = ntmem_set;
		t->copy = ntmem_copy;
	} else if (t->f->kind == FN_PEER && t->f->peer->def->abi == PEER_ABI_FLAGS) {
		call = set ? flags_set : flags_copy;
	} else if (t->f->kind == FN_PEER && !t->f->peer->drain) {
		t->set = t->f->peer->set.plain;
		t->copy = t->f->peer->copy.plain;
	}
	if (t->set)
		call = set ? plain_set : plain_copy;
	return (struct benchfn){t->f->name, call, t};
}
