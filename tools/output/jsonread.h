/* jsonread.h - read a JSON document (RFC 8259) into a tree, for the files
 * the tool takes as input: "ntmem bench --mix" reads the report that
 * "ntmem run --report-json" writes.
 *
 * Every value remembers the line it starts on, so that a caller that
 * finds a value it cannot use names the line as well as the field. */
#ifndef NTM_JSONREAD_H
#define NTM_JSONREAD_H

#include <stddef.h>

enum jr_type { JR_NULL, JR_BOOL, JR_NUMBER, JR_STRING, JR_ARRAY, JR_OBJECT };

struct jr_value {
	enum jr_type type;
	unsigned line;            /* 1-based */
	int boolean;
	double number;
	char *string;             /* JR_STRING: UTF-8, NUL-terminated */
	size_t count;             /* JR_ARRAY, JR_OBJECT: members */
	char **keys;              /* JR_OBJECT */
	struct jr_value *items;
};

/* Parse text[0..len).  Returns the tree (free it with jr_free), or NULL
 * with "line N: what was wrong" in err. */
struct jr_value *jr_parse(const char *text, size_t len, char *err,
			  size_t err_len);

/* The member key of object v, or NULL (also when v is not an object). */
const struct jr_value *jr_get(const struct jr_value *v, const char *key);

/* A JSON type's name for messages: "a string", "an array", ... */
const char *jr_type_name(enum jr_type t);

void jr_free(struct jr_value *v);

#endif
