/*
 * report_lost.c - what "ntmem run --report" says of the processes it
 * could not count (records_lost.c), and what that leaves of the verdict.
 *
 * Before, a process whose record could not be written (TMPDIR full, no
 * descriptor left) vanished from the report: 0 processes for a command
 * of 1,396 calls, or a verdict drawn from the one process that found
 * room.  Now the report says how many processes left no record and why,
 * and the verdict is qualified (from the recorded processes only) or,
 * where they are as many as those recorded, withheld.
 */
#define _GNU_SOURCE
#include "report.h"

#include <string.h>

#include "output/json.h"

#define WHY_MAX 8

static unsigned distinct_pids(const struct tree *t)
{
	unsigned n = 0;
	for (size_t i = 0; i < t->nproc; i++) {
		int first = 1;
		for (size_t k = 0; k < i && first; k++)
			first = t->proc[k].pid != t->proc[i].pid;
		n += first;
	}
	return n;
}

enum verdict_basis report_verdict_basis(const struct tree *t)
{
	struct tree_lost_why why[WHY_MAX];
	size_t nwhy;
	unsigned lost = tree_lost_processes(t, why, WHY_MAX, &nwhy);
	if ((lost && lost >= distinct_pids(t)) || t->dir_replaced)
		return VERDICT_WITHHELD;
	return lost || tree_without_shim(t) ? VERDICT_PARTIAL : VERDICT_COMPLETE;
}

static const char *reason(int err)
{
	return err ? strerror(err) : "reason unknown";
}

int report_lost_text(FILE *f, const struct tree *t)
{
	struct tree_lost_why why[WHY_MAX];
	size_t nwhy;
	unsigned lost = tree_lost_processes(t, why, WHY_MAX, &nwhy);
	unsigned without = tree_without_shim(t);
	if (lost) {
		fprintf(f, "  %u process%s left no record (", lost, lost == 1 ? "" : "es");
		for (size_t i = 0; i < nwhy; i++)
			if (nwhy == 1)
				fprintf(f, "%s", reason(why[i].err));
			else
				fprintf(f, "%s%s: %u", i ? "; " : "", reason(why[i].err),
					why[i].processes);
		fprintf(f, "): the calls %s made are not in this report\n",
			lost == 1 ? "it" : "they");
	}
	if (without)
		fprintf(f, "  %u process%s went on to run a program without the shim "
			"(LD_PRELOAD cleared, or a static or setuid program): %s calls "
			"from then on are not counted\n", without,
			without == 1 ? "" : "es", without == 1 ? "its" : "their");
	if (t->dir_replaced)
		fprintf(f, "  the record directory was moved or replaced while the "
			"command ran (its path led elsewhere): processes that started "
			"meanwhile could keep no record, and how many is not known\n");
	return lost || without || t->dir_replaced;
}

void report_unseen_text(FILE *f)
{
	fprintf(f, "  not seen at all: programs started without the shim (their "
		"parent cleared LD_PRELOAD, or they are static or setuid)\n");
}

int report_verdict_heading(FILE *f, const struct tree *t)
{
	struct tree_lost_why why[WHY_MAX];
	size_t nwhy;
	unsigned lost = tree_lost_processes(t, why, WHY_MAX, &nwhy);
	unsigned without = tree_without_shim(t);
	switch (report_verdict_basis(t)) {
	case VERDICT_COMPLETE:
		fprintf(f, "\nverdict\n");
		return 1;
	case VERDICT_PARTIAL:
		fprintf(f, "\nverdict, from the recorded processes only (");
		if (lost)
			fprintf(f, "%u left no record%s", lost, without ? ", " : "");
		if (without)
			fprintf(f, "%u ran a program without the shim", without);
		fprintf(f, "): what the others called could change it\n");
		return 1;
	case VERDICT_WITHHELD:
		break;
	}
	if (t->dir_replaced) {
		fprintf(f, "\nverdict: none: the record directory was replaced while "
			"the command ran, so processes may be missing that no count "
			"shows\n");
		return 0;
	}
	fprintf(f, "\nverdict: none: %u of the %u processes left no record, so "
		"the recorded calls cannot stand for the command's\n", lost,
		lost + distinct_pids(t));
	return 0;
}

void report_lost_json(struct json *j, const struct tree *t)
{
	static const char *const basis[] = {
		[VERDICT_COMPLETE] = "complete", [VERDICT_PARTIAL] = "partial",
		[VERDICT_WITHHELD] = "withheld",
	};
	struct tree_lost_why why[WHY_MAX];
	size_t nwhy;
	json_uint(j, "processes_without_record",
		  tree_lost_processes(t, why, WHY_MAX, &nwhy));
	json_array(j, "without_record");
	for (size_t i = 0; i < nwhy; i++) {
		json_object(j, NULL);
		json_int(j, "errno", why[i].err);
		json_string(j, "reason", reason(why[i].err));
		json_uint(j, "processes", why[i].processes);
		json_end(j);
	}
	json_end(j);
	json_uint(j, "processes_without_shim", tree_without_shim(t));
	json_bool(j, "record_directory_replaced", t->dir_replaced);
	json_string(j, "verdict_basis", basis[report_verdict_basis(t)]);
}
