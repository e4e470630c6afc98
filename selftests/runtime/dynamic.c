// SPDX-License-Identifier: GPL-2.0-only
/* A dynamically linked program: umlrun must refuse it (exit 126). */
#include <stdio.h>

int main(void)
{
	puts("dynamic");
	return 0;
}
