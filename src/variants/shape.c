/* shape.c - the one setting of the streaming loops' shape (shape.h): see
 * ntm_stream_copy_pages in variant.h. */
#include "variant.h"

int ntm_stream_copy_pages;
