/* shape.c - the settings of the streaming loops' shape (shape.h): see
 * ntm_stream_copy_pages and ntm_stream_prefetch_below in variant.h. */
#include "variant.h"

int ntm_stream_copy_pages;
size_t ntm_stream_prefetch_below;
