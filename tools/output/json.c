/* json.c - write JSON with two-space indentation, one member a line. */
#include "json.h"

#include <inttypes.h>
#include <math.h>

static void write_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Separator, indentation and key before a new member. */
static void member(struct json *j, const char *key)
{
	if (j->count[j->depth]++)
		fputc(',', j->f);
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
	if (key) {
		write_escaped(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char open, char close)
{
	member(j, key);
	fputc(open, j->f);
	j->depth++;  /* callers nest at most a few levels */
	j->count[j->depth] = 0;
	j->close[j->depth] = close;
}

void json_start(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 1;
	j->count[1] = 0;
	j->close[1] = '}';
	fputc('{', f);
}

void json_end(struct json *j)
{
	int empty = j->count[j->depth] == 0;
	char close = j->close[j->depth];
	j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(close, j->f);
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[', ']');
}

void json_finish(struct json *j)
{
	json_end(j);
	fputc('\n', j->f);
}

void json_string(struct json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		write_escaped(j->f, value);
	else
		fputs("null", j->f);
}

void json_double(struct json *j, const char *key, double value)
{
	member(j, key);
	if (isfinite(value))
		fprintf(j->f, "%.6g", value);
	else
		fputs("null", j->f);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, value);
}

void json_bool(struct json *j, const char *key, int value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}
