/* jsonread.c - a strict JSON reader (see jsonread.h): recursive descent,
 * nesting bounded so that a hostile file cannot exhaust the stack. */
#include "jsonread.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct reader {
	const char *p, *end;
	unsigned line;
	char *err;
	size_t err_len;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *r, const char *fmt, ...)
{
	if (r->err[0])  /* the first error is the one to report */
		return -1;
	int n = snprintf(r->err, r->err_len, "line %u: ", r->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->err_len)
		vsnprintf(r->err + n, r->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct reader *r)
{
	for (; r->p < r->end; r->p++) {
		if (*r->p == '\n')
			r->line++;
		else if (*r->p != ' ' && *r->p != '\t' && *r->p != '\r')
			return;
	}
}

static int peek(struct reader *r)
{
	skip_space(r);
	return r->p < r->end ? (unsigned char)*r->p : -1;
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return fail(r, "unexpected text (a value must be an object, array, "
			    "string, number, true, false or null)");
	r->p += n;
	return 0;
}

/* The number grammar of RFC 8259, then strtod on a copy. */
static int number(struct reader *r, struct jr_value *v)
{
	const char *s = r->p, *q = s;
	if (q < r->end && *q == '-')
		q++;
	if (q >= r->end || *q < '0' || *q > '9')
		return fail(r, "bad number");
	if (*q == '0')
		q++;
	else
		while (q < r->end && *q >= '0' && *q <= '9')
			q++;
	if (q < r->end && *q == '.') {
		if (++q >= r->end || *q < '0' || *q > '9')
			return fail(r, "bad number: a digit must follow '.'");
		while (q < r->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < r->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < r->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= r->end || *q < '0' || *q > '9')
			return fail(r, "bad number: a digit must follow the exponent");
		while (q < r->end && *q >= '0' && *q <= '9')
			q++;
	}
	char buf[64];
	if ((size_t)(q - s) >= sizeof buf)
		return fail(r, "number too long");
	memcpy(buf, s, (size_t)(q - s));
	buf[q - s] = '\0';
	v->type = JR_NUMBER;
	v->number = strtod(buf, NULL);
	r->p = q;
	return 0;
}

static int hex4(struct reader *r, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++, r->p++) {
		if (r->p >= r->end)
			return fail(r, "unterminated \\u escape");
		char c = *r->p;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
		if (d > 15)
			return fail(r, "bad \\u escape");
		*out = *out * 16 + d;
	}
	return 0;
}

/* Code point cp as UTF-8 at out; returns the bytes written. */
static size_t utf8(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One escape after '\\' into out; returns the bytes written, or 0. */
static size_t escape(struct reader *r, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (r->p >= r->end)
		return fail(r, "unterminated string"), 0;
	const char *k = strchr(from, *r->p);
	if (k && *r->p) {
		r->p++;
		*out = to[k - from];
		return 1;
	}
	if (*r->p++ != 'u')
		return fail(r, "bad escape '\\%c'", r->p[-1]), 0;
	unsigned cp, lo;
	if (hex4(r, &cp))
		return 0;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, "a lone low surrogate"), 0;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
			return fail(r, "a high surrogate alone"), 0;
		r->p += 2;
		if (hex4(r, &lo))
			return 0;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(r, "a high surrogate alone"), 0;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return utf8(cp, out);
}

/* A string after its opening quote; its bytes (malloc'd) into *out.
 * Escapes never grow the text, so the room is known at the start. */
static int string(struct reader *r, char **out)
{
	const char *close = r->p;
	while (close < r->end && *close != '"')
		close += *close == '\\' ? 2 : 1;
	if (close >= r->end)
		return fail(r, "unterminated string");
	char *s = malloc((size_t)(close - r->p) + 1), *w = s;
	if (!s)
		return fail(r, "out of memory");
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		size_t n = 1;
		if (c < 0x20) {
			free(s);
			return fail(r, "a control character in a string");
		}
		if (c == '\\')
			n = escape(r, w);
		else
			*w = (char)c;
		if (!n) {
			free(s);
			return -1;
		}
		w += n;
	}
	r->p++;
	*w = '\0';
	*out = s;
	return 0;
}

static int value(struct reader *r, struct jr_value *v, int depth);

/* Room for one more member of v. */
static struct jr_value *grow(struct reader *r, struct jr_value *v, int keyed)
{
	if ((v->count & (v->count - 1)) == 0) {  /* 0, 1, 2, 4, ...: double */
		size_t cap = v->count ? v->count * 2 : 1;
		struct jr_value *items = realloc(v->items, cap * sizeof *items);
		if (items)
			v->items = items;
		char **keys = keyed ? realloc(v->keys, cap * sizeof *keys) : NULL;
		if (keys)
			v->keys = keys;
		if (!items || (keyed && !keys))
			return fail(r, "out of memory"), NULL;
	}
	struct jr_value *m = &v->items[v->count];
	memset(m, 0, sizeof *m);
	if (keyed)
		v->keys[v->count] = NULL;
	v->count++;
	return m;
}

/* An array or object after its bracket. */
static int members(struct reader *r, struct jr_value *v, int depth)
{
	int keyed = v->type == JR_OBJECT;
	char close = keyed ? '}' : ']';
	if (peek(r) == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		struct jr_value *m = grow(r, v, keyed);
		if (!m)
			return -1;
		if (keyed) {
			if (peek(r) != '"')
				return fail(r, "expected a member name in quotes");
			r->p++;
			if (string(r, &v->keys[v->count - 1]))
				return -1;
			if (peek(r) != ':')
				return fail(r, "expected ':' after a member name");
			r->p++;
		}
		if (value(r, m, depth + 1))
			return -1;
		int c = peek(r);
		r->p++;
		if (c == close)
			return 0;
		if (c != ',')
			return fail(r, "expected ',' or '%c'", close);
	}
}

static int value(struct reader *r, struct jr_value *v, int depth)
{
	if (depth > MAX_DEPTH)
		return fail(r, "nested deeper than %d levels", MAX_DEPTH);
	int c = peek(r);
	v->line = r->line;
	switch (c) {
	case -1:
		return fail(r, "unexpected end of the text");
	case '{':
	case '[':
		r->p++;
		v->type = c == '{' ? JR_OBJECT : JR_ARRAY;
		return members(r, v, depth);
	case '"':
		r->p++;
		v->type = JR_STRING;
		return string(r, &v->string);
	case 't':
	case 'f':
		v->type = JR_BOOL;
		v->boolean = c == 't';
		return literal(r, c == 't' ? "true" : "false");
	case 'n':
		v->type = JR_NULL;
		return literal(r, "null");
	default:
		if (c != '-' && (c < '0' || c > '9'))
			return fail(r, c >= 0x20 && c < 0x7f ? "unexpected '%c'"
							     : "unexpected byte %#x", c);
		return number(r, v);
	}
}

static void free_members(struct jr_value *v)
{
	for (size_t i = 0; i < v->count; i++) {
		free_members(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
}

void jr_free(struct jr_value *v)
{
	if (v)
		free_members(v);
	free(v);
}

struct jr_value *jr_parse(const char *text, size_t len, char *err,
			  size_t err_len)
{
	struct reader r = {text, text + len, 1, err, err_len};
	struct jr_value *v = calloc(1, sizeof *v);
	err[0] = '\0';
	if (!v) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	if (value(&r, v, 0) == 0 && peek(&r) != -1)
		fail(&r, "text after the end of the document");
	if (err[0]) {
		jr_free(v);
		return NULL;
	}
	return v;
}

const struct jr_value *jr_get(const struct jr_value *v, const char *key)
{
	if (!v || v->type != JR_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->count; i++)
		if (v->keys[i] && !strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *jr_type_name(enum jr_type t)
{
	static const char *const names[] = {"null", "a boolean", "a number",
					    "a string", "an array", "an object"};
	return names[t];
}
