/* tunables.c - NTMEM_TUNABLES: whole ladders, or edits of the ladders in
 * effect.  A bad item is noted and skipped; the others still apply. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "registry.h"
#include "width.h"
#include "util/size.h"

enum key_kind { KEY_LADDER, KEY_THRESHOLD, KEY_CACHED, KEY_STREAMING };

#define ZERO (1u << NTMEM_CLASS_SET_ZERO)
#define NONZERO (1u << NTMEM_CLASS_SET_NONZERO)
#define COPY (1u << NTMEM_CLASS_COPY)

/* classes: the ladders a key sets.  A key reaches NONZERO through
 * `general` only when its specific twin (set_nonzero=...) is absent. */
static const struct tunable_key {
	const char *name;
	enum key_kind kind;
	enum ntmem_op op;
	unsigned classes;
	const char *specific;   /* the key that takes NONZERO from it */
} keys[] = {
	{"set", KEY_LADDER, NTMEM_OP_SET, ZERO | NONZERO, "set_nonzero"},
	{"set_nonzero", KEY_LADDER, NTMEM_OP_SET, NONZERO, NULL},
	{"copy", KEY_LADDER, NTMEM_OP_COPY, COPY, NULL},
	{"set_threshold", KEY_THRESHOLD, NTMEM_OP_SET, ZERO | NONZERO,
	 "set_nonzero_threshold"},
	{"set_nonzero_threshold", KEY_THRESHOLD, NTMEM_OP_SET, NONZERO, NULL},
	{"copy_threshold", KEY_THRESHOLD, NTMEM_OP_COPY, COPY, NULL},
	{"set_cached", KEY_CACHED, NTMEM_OP_SET, ZERO | NONZERO, NULL},
	{"copy_cached", KEY_CACHED, NTMEM_OP_COPY, COPY, NULL},
	{"set_streaming", KEY_STREAMING, NTMEM_OP_SET, ZERO | NONZERO, NULL},
	{"copy_streaming", KEY_STREAMING, NTMEM_OP_COPY, COPY, NULL},
};

#define NKEYS (sizeof keys / sizeof keys[0])
/* The longest text read: what the policy keeps of it (p->tunables). */
#define NTM_TUNABLES_TEXT sizeof(((struct policy *)0)->tunables)

/* The text is split in place at its commas: its items lie end to end in
 * [buf, end), each ended by a '\0', and the walk skips the empty ones.
 * Every item is read, however many there are: only the text's length is
 * bounded (and noted when exceeded). */
struct items {
	char *buf;
	const char *end;    /* where the text's own '\0' is */
};

/* The first item after s (NULL: the first of all), or NULL. */
static char *next_item(const struct items *it, char *s)
{
	for (s = s ? s + strlen(s) + 1 : it->buf; s < it->end; s += strlen(s) + 1)
		if (*s)
			return s;
	return NULL;
}

/* Is key given anywhere in the items? */
static int item_named(const struct items *it, const char *key)
{
	size_t len = strlen(key);
	for (char *s = next_item(it, NULL); s; s = next_item(it, s))
		if (!strncmp(s, key, len) && s[len] == '=')
			return 1;
	return 0;
}

/* The variant value names for op in the role the key needs, or NULL
 * with the reason. */
static const struct variant *role_variant(enum ntmem_op op, int streaming,
					  const char *value, char *why,
					  size_t len)
{
	const struct variant *v = ntm_variant_named(op, value);
	const char *missing;
	if (!v)
		snprintf(why, len, "no %s variant named '%.40s'",
			 op == NTMEM_OP_SET ? "set" : "copy", value);
	else if ((missing = ntm_variant_unsupported(v)))
		snprintf(why, len, "%s: %s", v->name, missing);
	else if (ntm_streams(v) != streaming)
		snprintf(why, len, "%s is %s; this key needs a %s variant", v->name,
			 ntm_streams(v) ? "streaming" : "cached",
			 streaming ? "streaming" : "cached");
	else
		return v;
	return NULL;
}

/* Apply one key to the ladders in classes.  Returns 0, or -1 with why. */
static int apply_key(struct policy *p, const struct tunable_key *k,
		     unsigned classes, const char *value, char *why, size_t len)
{
	struct ladder parsed;
	const struct variant *v = NULL;
	size_t t = 0;
	const char *err;
	switch (k->kind) {
	case KEY_LADDER:
		if (ntm_ladder_parse(&parsed, k->op, !(classes == NONZERO), value,
				     NTMEM_ORIGIN_ENVIRONMENT, why, len))
			return -1;
		break;
	case KEY_THRESHOLD:
		if (!strcmp(value, "max"))
			t = SIZE_MAX;
		else if (ntm_parse_size(value, &t, &err)) {
			snprintf(why, len, "%s", err);
			return -1;
		}
		if (!ntm_ranked(k->op, NTMEM_ROLE_STREAMING, 1, p->usable)) {
			snprintf(why, len, "no streaming variant runs here");
			return -1;
		}
		break;
	case KEY_CACHED:
	case KEY_STREAMING:
		v = role_variant(k->op, k->kind == KEY_STREAMING, value, why, len);
		if (!v)
			return -1;
		break;
	}
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		if (!(classes & (1u << cls)))
			continue;
		struct ladder *l = &p->ladder[cls];
		struct ladder installed;
		switch (k->kind) {
		case KEY_LADDER:
			installed = parsed;
			ntm_policy_install(p, l, &installed, cls);
			break;
		case KEY_THRESHOLD:
			ntm_ladder_set_threshold(l, t, NTMEM_ORIGIN_ENVIRONMENT);
			break;
		case KEY_CACHED:
			ntm_ladder_set_cached(l, v, NTMEM_ORIGIN_ENVIRONMENT);
			break;
		case KEY_STREAMING:
			if (v->zero_only && cls == NTMEM_CLASS_SET_NONZERO)
				break;  /* other values keep theirs */
			ntm_ladder_set_streaming(l, v, NTMEM_ORIGIN_ENVIRONMENT);
			break;
		}
	}
	return 0;
}

/* Join item s's value and the '='-less items after it (a ladder's
 * further rungs) into buf.  Returns the last item used. */
static char *join_ladder(const struct items *it, char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strchr(s, '=') + 1);
	for (char *next; (next = next_item(it, s)) && !strchr(next, '='); s = next) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, ",%s", next);
	}
	return s;
}

/* shim_width=sse2|avx2|avx512: the preloaded shim's entry width, at most
 * what the CPU runs (a measuring hook: each width on one machine; the
 * process's policy is then that of a CPU no wider, select.c). */
static void check_shim_width(struct policy *p, const char *value)
{
	enum ntm_width w = ntm_width_named(value);
	enum ntm_width most = ntm_width_for(p->usable);
	if (w == NTM_WIDTH_NONE)
		ntm_policy_note(p, "NTMEM_TUNABLES: shim_width=%.40s: sse2, avx2 or "
				"avx512", value);
	else if (w > most || most > NTM_WIDTH_AVX512)
		ntm_policy_note(p, "NTMEM_TUNABLES: shim_width=%s: this CPU's entry "
				"points are narrower, or not x86-64's", value);
}

enum ntm_width ntm_tunables_shim_width(const char *text)
{
	const char *key = "shim_width=";
	for (const char *s = text; s && (s = strstr(s, key)); s++) {
		if (s != text && s[-1] != ',')
			continue;
		char value[16];
		snprintf(value, sizeof value, "%.*s", (int)strcspn(s + strlen(key), ","),
			 s + strlen(key));
		return ntm_width_named(value);
	}
	return NTM_WIDTH_NONE;
}

/* threads=N|all, parallel_min_chunk=SIZE, adapt=0|1, learn_after=N and
 * builtin=generic|recorded: settings beside
 * the ladders.  Returns 1 if key was one of them (applied or noted). */
static int apply_other_key(struct policy *p, const char *key,
			      const char *value)
{
	const char *err;
	size_t v;
	if (!strcmp(key, "threads")) {
		if (!strcmp(value, "all"))
			v = 0;
		else if (ntm_parse_size(value, &v, &err) || v < 1 || v > 4096 ||
			 strspn(value, "0123456789") != strlen(value)) {
			ntm_policy_note(p, "NTMEM_TUNABLES: threads=%.40s: a count "
					"from 1 to 4096, or all", value);
			return 1;
		}
		p->threads = (unsigned)v;
		p->threads_origin = NTMEM_ORIGIN_ENVIRONMENT;
		return 1;
	}
	if (!strcmp(key, "parallel_min_chunk")) {
		int bad = ntm_parse_size(value, &v, &err);
		if (bad || v == 0) {
			ntm_policy_note(p, "NTMEM_TUNABLES: parallel_min_chunk=%.40s: %s",
					value, bad ? err : "must be at least 1 byte");
			return 1;
		}
		p->min_chunk = v;
		p->min_chunk_origin = NTMEM_ORIGIN_ENVIRONMENT;
		return 1;
	}
	if (!strcmp(key, "adapt")) {
		if (strcmp(value, "0") && strcmp(value, "1")) {
			ntm_policy_note(p, "NTMEM_TUNABLES: adapt=%.40s: 0 or 1",
					value);
			return 1;
		}
		p->learn = value[0] == '1';
		p->learn_origin = NTMEM_ORIGIN_ENVIRONMENT;
		return 1;
	}
	if (!strcmp(key, "learn_after")) {
		if (ntm_parse_size(value, &v, &err) || v > NTM_LEARN_AFTER_MAX ||
		    strspn(value, "0123456789") != strlen(value)) {
			ntm_policy_note(p, "NTMEM_TUNABLES: learn_after=%.40s: a count "
					"of calls from 0 to %u", value, NTM_LEARN_AFTER_MAX);
			return 1;
		}
		p->learn_after = (unsigned)v;
		p->learn_origin = NTMEM_ORIGIN_ENVIRONMENT;
		return 1;
	}
	if (!strcmp(key, "shim_width")) {
		/* Read before the policy is built (ntm_tunables_shim_width). */
		check_shim_width(p, value);
		return 1;
	}
	if (!strcmp(key, "builtin")) {
		/* Read before the ladders are built (ntm_tunables_family_only). */
		if (strcmp(value, "generic") && strcmp(value, "recorded"))
			ntm_policy_note(p, "NTMEM_TUNABLES: builtin=%.40s: generic "
					"(the rule for CPUs not recorded) or recorded",
					value);
		return 1;
	}
	return 0;
}

int ntm_tunables_family_only(const char *text)
{
	for (const char *s = text; s && (s = strstr(s, "builtin=generic")); s++) {
		char after = s[strlen("builtin=generic")];
		if ((s == text || s[-1] == ',') && (after == ',' || after == '\0'))
			return 1;
	}
	return 0;
}

/* One item (a ladder's with its further rungs, up to the one returned):
 * applied, or noted with the reason. */
static char *apply_item(struct policy *p, const struct items *it, char *s)
{
	char *eq = strchr(s, '=');
	if (!eq) {
		ntm_policy_note(p, "NTMEM_TUNABLES: '%s': expected key=value", s);
		return s;
	}
	char key[64], value[NTM_TUNABLES_TEXT], why[NTM_NOTE_LEN - 96];
	snprintf(key, sizeof key, "%.*s", (int)(eq - s), s);
	const struct tunable_key *k = NULL;
	for (size_t j = 0; j < NKEYS; j++)
		if (!strcmp(keys[j].name, key))
			k = &keys[j];
	if (k && k->kind == KEY_LADDER)
		s = join_ladder(it, s, value, sizeof value);
	else
		snprintf(value, sizeof value, "%s", eq + 1);
	if (!k && apply_other_key(p, key, value))
		return s;
	if (!k) {
		ntm_policy_note(p, "NTMEM_TUNABLES: unknown key '%s'", key);
		return s;
	}
	unsigned classes = k->classes;
	if (k->specific && item_named(it, k->specific))
		classes &= ~NONZERO;
	if (apply_key(p, k, classes, value, why, sizeof why))
		ntm_policy_note(p, "NTMEM_TUNABLES: %s=%s: %s", key, value, why);
	return s;
}

void ntm_apply_tunables(struct policy *p, const char *text)
{
	char copy[NTM_TUNABLES_TEXT];
	size_t len = strlen(text);
	if (len >= sizeof copy) {
		ntm_policy_note(p, "NTMEM_TUNABLES: longer than %zu bytes",
				sizeof copy - 1);
		return;
	}
	memcpy(copy, text, len + 1);
	for (char *c = copy; (c = strchr(c, ',')); c++)
		*c = '\0';
	struct items it = {copy, copy + len};
	for (char *s = next_item(&it, NULL); s; s = next_item(&it, s))
		s = apply_item(p, &it, s);
}
