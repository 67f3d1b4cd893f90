/* mixrun.c - the passes over a sequence of calls (see mixrun.h).
 *
 * One loop per kind of function, each calling the function directly, as
 * a program does: at 30 bytes a call costs a few nanoseconds, and any
 * dispatch of the harness's own (a switch on the kind) would be timed
 * with it.  Every loop reads the same sequence the same way. */
#include "mixrun.h"

#include <string.h>

#define FOR_EACH_CALL(t, c)                                                    \
	for (const struct mix_call *c = (t)->seq->calls,                       \
				   *c##_end = c + MIX_CALLS;                   \
	     c < c##_end; c++)

static int libc_set(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	(void)calls;
	FOR_EACH_CALL(t, c)
		memset(t->dst + c->offset, t->value, c->size);
	return 0;
}

static int libc_copy(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	(void)calls;
	FOR_EACH_CALL(t, c)
		memcpy(t->dst + c->offset, t->src + c->offset, c->size);
	return 0;
}

static int auto_set(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	(void)calls;
	FOR_EACH_CALL(t, c)
		ntmem_set(t->dst + c->offset, t->value, c->size);
	return 0;
}

static int auto_copy(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	(void)calls;
	FOR_EACH_CALL(t, c)
		ntmem_copy(t->dst + c->offset, t->src + c->offset, c->size);
	return 0;
}

/* Peers: the function pointers in locals, the flags and the drain read
 * once per pass, as a program would have them in registers or its PLT. */
static int plain_set(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	peer_set_fn *set = t->f->peer->set.plain;
	(void)calls;
	FOR_EACH_CALL(t, c)
		set(t->dst + c->offset, t->value, c->size);
	return 0;
}

static int plain_copy(void *arg, size_t calls)
{
	const struct mix_target *t = arg;
	peer_copy_fn *copy = t->f->peer->copy.plain;
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
	if (t->f->kind == FN_LIBC)
		call = set ? libc_set : libc_copy;
	else if (t->f->kind == FN_AUTO)
		call = set ? auto_set : auto_copy;
	else if (t->f->kind == FN_PEER && t->f->peer->def->abi == PEER_ABI_FLAGS)
		call = set ? flags_set : flags_copy;
	else if (t->f->kind == FN_PEER && !t->f->peer->drain)
		call = set ? plain_set : plain_copy;
	return (struct benchfn){t->f->name, call, t};
}
