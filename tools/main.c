#include <stdio.h>
#include "ntmem.h"
int main(void){ printf("%s\n", ntmem_version()); return 0; }
