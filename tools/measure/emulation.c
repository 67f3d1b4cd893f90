/* emulation.c - an honest, simple test for "these numbers may come from
 * an emulator".
 *
 * Nothing in user space proves it runs on real hardware, so the tool says
 * so whenever it cannot confirm it:
 *   - NTMEM_EMULATED is set (not "" or "0"): the test harness sets it when
 *     it runs the tool under qemu;
 *   - a build for another architecture than x86-64 must find its own
 *     architecture in the kernel's /proc/cpuinfo ("CPU implementer" lines
 *     on AArch64, an "isa" of rv64 on RISC-V); user-mode emulators such as
 *     qemu-user 7.2 pass the host's through.  AArch64 must also find the
 *     kernel's MIDR_EL1 in sysfs, which qemu (8.1 and later fake
 *     /proc/cpuinfo for AArch64) cannot fake: it shows the host's /sys.
 * An x86-64 build is taken to be native: qemu-x86_64 on an x86-64 host
 * shows the same /proc and /sys, and no cheap test tells them apart.  A
 * virtual machine is real hardware for these purposes. */
#include "emulation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__aarch64__) || defined(__riscv)
/* 1 when a line of /proc/cpuinfo starts with key and its value starts
 * with value ("" matches any). */
static int cpuinfo_has(const char *key, const char *value)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		const char *colon = strchr(line, ':');
		if (!colon || strncmp(line, key, strlen(key)))
			continue;
		colon++;
		colon += strspn(colon, " \t");
		found = !strncmp(colon, value, strlen(value));
	}
	if (f)
		fclose(f);
	return found;
}
#endif

const char *tool_emulation_reason(void)
{
	const char *env = getenv("NTMEM_EMULATED");
	if (env && *env && strcmp(env, "0"))
		return "NTMEM_EMULATED is set";
#if defined(__aarch64__)
	if (!cpuinfo_has("CPU implementer", ""))
		return "/proc/cpuinfo describes no AArch64 CPU";
	if (access("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
		   R_OK))
		return "the kernel publishes no MIDR_EL1 in sysfs";
#elif defined(__riscv)
	if (!cpuinfo_has("isa", "rv64") && !cpuinfo_has("isa", "rv32"))
		return "/proc/cpuinfo describes no RISC-V CPU";
#elif !defined(__x86_64__)
	return "this architecture's hardware cannot be confirmed";
#endif
	return NULL;
}
