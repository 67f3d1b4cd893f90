/* stackcheck.h - how much stack a memcpy or memset takes, and whether it
 * fits the small stacks programs give them: for test_stack, which runs
 * it linked with libntmem.a (STACK_COPY and STACK_SET are ntmem_copy and
 * ntmem_set, or with "libc" memcpy and memset) and as a plain program,
 * with the shim and without.
 *
 *   depth OP N   one call (the process's first of its kind) on a painted
 *                256 KiB stack; prints "depth BYTES", the deepest byte
 *                it changed below the stack's top
 *   altstack     a 2 MiB copy in a SIGUSR1 handler with 2 KiB of locals,
 *                on an SS_AUTODISARM alternate stack of 8 KiB (the old
 *                SIGSTKSZ); prints PASS or FAIL: whether the painted
 *                bytes below the stack are unchanged
 *   coroutine    the same on a ucontext stack of 8 KiB, with 5 KiB of
 *                locals
 *
 * Below each small stack lie 4 KiB of painted bytes, then a page that
 * cannot be touched: an overrun either changes the paint or faults. */
#ifndef NTM_TEST_STACKCHECK_H
#define NTM_TEST_STACKCHECK_H

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* Linux's flag (2.6.37 and later), which glibc's headers do not name. */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

#define PAINT 0xa5
#define SMALL_STACK 8192
#define BELOW 4096
#define COPY_BYTES ((size_t)2 << 20)

static unsigned char *stack_dst, *stack_src;
static int stack_op_copy;
static size_t stack_n;
static ucontext_t stack_main_ctx, stack_call_ctx;

/* The call under test, kept out of line and unmerged. */
static __attribute__((noinline)) void stack_call(void)
{
	if (stack_op_copy)
		STACK_COPY(stack_dst, stack_src, stack_n);
	else
		STACK_SET(stack_dst, 0x5a, stack_n);
	__asm__ volatile("" ::: "memory");
}

/* A mapping of a guard page, `below` painted bytes and a stack of len
 * bytes, painted: the stack's base, or NULL. */
static unsigned char *stack_region(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, page + BELOW + len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, page, PROT_NONE))
		return NULL;
	memset(m + page, PAINT, BELOW + len);
	return m + page + BELOW;
}

static int below_intact(const unsigned char *stack)
{
	for (const unsigned char *p = stack - BELOW; p < stack; p++)
		if (*p != PAINT)
			return 0;
	return 1;
}

static int stack_buffers(size_t n)
{
	stack_dst = mmap(NULL, n + 64, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_src = mmap(NULL, n + 64, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack_dst == MAP_FAILED || stack_src == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < n; i += 4096)
		stack_src[i] = (unsigned char)(i >> 12), stack_dst[i] = 1;
	return 0;
}

static int stack_depth(int copy, size_t n)
{
	size_t len = 256 * 1024;
	unsigned char *stack = stack_region(len);
	if (!stack || stack_buffers(n))
		return 3;
	stack_op_copy = copy;
	stack_n = n;
	getcontext(&stack_call_ctx);
	stack_call_ctx.uc_stack.ss_sp = stack;
	stack_call_ctx.uc_stack.ss_size = len;
	stack_call_ctx.uc_link = &stack_main_ctx;
	makecontext(&stack_call_ctx, stack_call, 0);
	if (swapcontext(&stack_main_ctx, &stack_call_ctx))
		return 3;
	size_t low = 0;
	while (low < len && stack[low] == PAINT)
		low++;
	printf("depth %zu\n", len - low);
	return 0;
}

/* The handler and the coroutine: locals that take their share of the
 * stack (2 KiB, 5 KiB), then the first 2 MiB copy of the process. */
#define WITH_LOCALS(bytes)                                  \
	volatile unsigned char pad[bytes];                  \
	for (size_t i = 0; i < sizeof pad; i += 64)         \
		pad[i] = (unsigned char)i;                  \
	stack_call();                                       \
	(void)pad[0]

static void on_usr1(int sig)
{
	(void)sig;
	WITH_LOCALS(2 * 1024);
}

static void in_coroutine(void)
{
	WITH_LOCALS(5 * 1024);
}

static int stack_small(int handler)
{
	unsigned char *stack = stack_region(SMALL_STACK);
	if (!stack || stack_buffers(COPY_BYTES))
		return 3;
	stack_op_copy = 1;
	stack_n = COPY_BYTES;
	if (handler) {
		stack_t ss = {.ss_sp = stack, .ss_size = SMALL_STACK, .ss_flags = (int)SS_AUTODISARM};
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK;
		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
			return 3;
		raise(SIGUSR1);
	} else {
		getcontext(&stack_call_ctx);
		stack_call_ctx.uc_stack.ss_sp = stack;
		stack_call_ctx.uc_stack.ss_size = SMALL_STACK;
		stack_call_ctx.uc_link = &stack_main_ctx;
		makecontext(&stack_call_ctx, in_coroutine, 0);
		if (swapcontext(&stack_main_ctx, &stack_call_ctx))
			return 3;
	}
	int ok = below_intact(stack) && !memcmp(stack_dst, stack_src, COPY_BYTES);
	printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 2;
}

static int stackcheck_main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "depth"))
		return stack_depth(!strcmp(argv[2], "copy"), (size_t)strtoull(argv[3], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "altstack"))
		return stack_small(1);
	if (argc == 2 && !strcmp(argv[1], "coroutine"))
		return stack_small(0);
	fprintf(stderr, "usage: %s depth copy|set N | altstack | coroutine\n", argv[0]);
	return 2;
}

#endif
