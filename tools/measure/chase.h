/* chase.h - the victim of "ntmem pollution": a randomized pointer chase,
 * one access per 64-byte line, every line exactly once per pass.
 *
 * Each access depends on the one before it, so the time of a pass is the
 * sum of the load latencies: the prefetchers cannot guess the next line
 * and out-of-order execution cannot overlap the misses. */
#ifndef NTM_CHASE_H
#define NTM_CHASE_H

#include <stddef.h>
#include <stdint.h>

#define CHASE_LINE 64

/*
 * Link the lines of buf[0, lines * CHASE_LINE) into one random cycle
 * (Sattolo's algorithm): the first word of each line points to the next
 * line to visit.  Following `lines` pointers from any line visits every
 * line exactly once and comes back to it.  buf must be aligned to a
 * pointer; seed picks the cycle.  lines must be at least 1 (one line
 * points to itself).
 */
void chase_build(void *buf, size_t lines, uint64_t seed);

/* Follow steps pointers from p; returns where the chase stopped. */
void *chase_run(void *p, size_t steps);

/*
 * m independent lookups of one word each, at random lines of a table of
 * `lines` lines, as a hash table serves them: the loads do not depend on
 * each other, so misses overlap.  *state is the random state (non-zero);
 * returns the sum of the words read.
 */
uint64_t chase_lookups(const void *table, size_t lines, size_t m,
		       uint64_t *state);

/* The next number of a xorshift64* sequence; *state must be non-zero. */
uint64_t chase_random(uint64_t *state);

#endif
