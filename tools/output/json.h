/* json.h - a small streaming JSON writer for the tool's --json output.
 *
 * Inside an object pass a key; inside an array pass NULL.  Numbers that
 * are not finite are written as null, which JSON can represent. */
#ifndef NTM_JSON_H
#define NTM_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	int count[JSON_MAX_DEPTH];  /* members written so far, per level */
	char close[JSON_MAX_DEPTH]; /* the bracket that ends each level */
};

void json_start(struct json *j, FILE *f);     /* opens the top object */
void json_finish(struct json *j);             /* closes it, adds "\n" */

void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);                /* closes the innermost */

void json_string(struct json *j, const char *key, const char *value);
void json_double(struct json *j, const char *key, double value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_int(struct json *j, const char *key, int64_t value);
void json_bool(struct json *j, const char *key, int value);
void json_null(struct json *j, const char *key);

#endif
