/*
 * introspect.h - the one view the ntmem tool has of the library's
 * internals, beyond ntmem.h: what measuring and calibrating a machine
 * needs and a program linking the library never should.  As zstd's
 * programs use the static-linking-only part of zstd.h, the tools include
 * this header (and the shared utilities of src/util/), never a header of
 * src/ directly.  They get:
 *
 *   - the CPU as detected (struct cpu, ntm_cpu(), feature names) and the
 *     CPUs this process may use (ntm_process_cpus());
 *   - variants by id (ntm_variant()) and trial policies: one variant for
 *     every size (ntm_policy_pin()), or a whole policy built from
 *     tunables for a look (ntm_policy_build());
 *   - the calibration profile: where it goes and how it is written
 *     (ntm_profile_path(), ntm_profile_init(), ntm_profile_write()) and
 *     whether libntmem would read it (ntm_profile_open());
 *   - the shim's width: the CPU's (ntm_width_choose()), the one
 *     NTMEM_TUNABLES shim_width= names (ntm_tunables_shim_width()) and
 *     its name, which names that width's own shim (ntm_width_name());
 *   - the shim's report: its variable (NTM_REPORT_ENV) and the layout of
 *     the record each process keeps (preload/record.h).
 *
 * Nothing here is a stable interface: it changes with the library.
 */
#ifndef NTM_INTROSPECT_H
#define NTM_INTROSPECT_H

#include "dispatch/cpu.h"
#include "dispatch/policy.h"
#include "dispatch/profile.h"
#include "dispatch/registry.h"
#include "dispatch/select.h"
#include "parallel/pool.h"
#include "preload/preload.h"

#endif
