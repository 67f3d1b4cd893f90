/* report_learning.c - what learning on real calls cost the command, in
 * "ntmem run --report": per class, the bands whose calls ran a candidate
 * its trial did not keep, and the calls timed and their clock reads. */
#include "report.h"

#include <stdio.h>

#include "introspect.h"
#include "output/json.h"
#include "util/size.h"

static const char *const class_words[NTMEM_CLASSES] = {
	"memset of zeros", "memset of other values", "copies",
};

static int learned(const struct ntm_record_learning *l)
{
	return l->timed != 0;
}

void report_learning_text(FILE *f, const struct tree *t)
{
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ntm_record_learning *l = &t->learning[cls];
		char a[32], b[32];
		if (!learned(l))
			continue;
		fprintf(f, "  learning, %s: %llu calls timed, %.1f us of clock reads",
			class_words[cls], (unsigned long long)l->timed,
			(double)l->clock_ns / 1e3);
		const char *sep = "; calls that ran a candidate its trials did not keep: ";
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++) {
			if (!l->losing[k])
				continue;
			fprintf(f, "%s%llu of %s to %s", sep, (unsigned long long)l->losing[k],
				ntm_format_size(ntm_learn_band_from(k), a, sizeof a),
				k + 1 < NTM_LEARN_BANDS
					? ntm_format_size(ntm_learn_band_from(k + 1), b, sizeof b)
					: "more");
			sep = ", ";
		}
		fprintf(f, "\n");
	}
}

void report_learning_json(struct json *j, const struct tree *t)
{
	json_array(j, "learning");
	for (int cls = 0; cls < NTMEM_CLASSES; cls++) {
		const struct ntm_record_learning *l = &t->learning[cls];
		json_object(j, NULL);
		json_string(j, "class", ntm_class_key[cls]);
		json_uint(j, "timed_calls", l->timed);
		json_uint(j, "clock_ns", l->clock_ns);
		json_array(j, "losing_calls");
		for (unsigned k = 0; k < NTM_LEARN_BANDS; k++) {
			if (!l->losing[k])
				continue;
			json_object(j, NULL);
			json_uint(j, "from", ntm_learn_band_from(k));
			json_uint(j, "calls", l->losing[k]);
			json_end(j);
		}
		json_end(j);
		json_end(j);
	}
	json_end(j);
}
