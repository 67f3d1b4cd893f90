/* emulation.h - whether the tool may be running under an emulator, whose
 * timings and cache sizes say nothing about real hardware. */
#ifndef NTM_EMULATION_H
#define NTM_EMULATION_H

/* Why this process may not be on the hardware it was built for, in
 * words, or NULL when nothing says so.  See emulation.c for the rules. */
const char *tool_emulation_reason(void);

#endif
