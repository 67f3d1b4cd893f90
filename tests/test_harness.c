/* test_harness.c - the harness's own JSON parser accepts what RFC 8259
 * allows and rejects the rest, so the --json checks that use it mean
 * something. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

int main(void)
{
	char err[160] = "";
	struct t_json *j = t_json_parse(
		"{\"a\": [1, -2.5e3, 0.5, true, false, null, \"x\\n\\u00e9\\\"\"],"
		" \"b\": {}, \"c\": []}", err, sizeof err);
	const struct t_json *a = t_json_get(j, "a");
	t_check(j && a && a->type == TJ_ARRAY && a->count == 7 &&
		a->items[1].number == -2500 && a->items[3].boolean &&
		a->items[5].type == TJ_NULL && !strcmp(a->items[6].string, "x\n?\"") &&
		t_json_get(j, "b")->type == TJ_OBJECT && !t_json_get(j, "d"),
		"json parser: accepts and reads valid JSON", "%s", err);
	t_json_free(j);

	static const char *const bad[] = {
		"{\"a\": 1,}", "{\"a\" 1}", "{\"a\": [1, 2}", "{\"a\": nan}",
		"{\"a\": 01}", "{\"a\": \"x}", "{} {}", "{\"a\": tru}", "",
		"{\"a\": 1, \"a\": 2}", "{\"a\": \"tab\there\"}", "{\"a\": 1.}",
		"{\"a\": .5}", "{\"a\": 1e}", "{\"a\": \"\\x\"}", "[1, 2",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char name[96];
		snprintf(name, sizeof name, "json parser: rejects '%s'", bad[i]);
		struct t_json *k = t_json_parse(bad[i], err, sizeof err);
		t_check(k == NULL && err[0], name, "accepted");
		t_json_free(k);
	}
	return t_finish();
}
