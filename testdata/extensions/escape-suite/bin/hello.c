/* hello.c: a dynamically linked program shipped in the extension, for
 * running through the ELF interpreter (ld.so bin/hello), which maps it
 * without an execve of it. Prints "escaped". Built by
 * testdata/vsix/build.sh:
 *   gcc -Os -s -Wl,--build-id=none -o bin/hello bin/hello.c */
#include <stdio.h>

int main(void) {
	puts("escaped");
	return 0;
}
