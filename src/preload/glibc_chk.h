/* glibc_chk.h - glibc's fortified and internal string functions, which no
 * header declares: the shim defines them, and its tests call them. */
#ifndef NTMEM_GLIBC_CHK_H
#define NTMEM_GLIBC_CHK_H

#include <stddef.h>

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);
void *__mempcpy(void *dst, const void *src, size_t n);
void __bzero(void *dst, size_t n);

#endif
