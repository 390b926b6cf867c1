/* addon.c: a "native addon" that proves its code ran. Its constructor runs
 * when the shared object is mapped and relocated, before node looks for a
 * module registration (there is none, so node then reports "Module did not
 * self-register"). It creates the file named by $AIRVSX_ESCAPE_MARKER, or
 * ./addon-ran, holding "ran\n". Built by testdata/vsix/build.sh:
 *   gcc -shared -fPIC -Os -s -o native/addon.node native/addon.c */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void ran(void) {
	const char *p = getenv("AIRVSX_ESCAPE_MARKER");
	int fd = open(p && *p ? p : "addon-ran", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "ran\n", 4);
		close(fd);
	}
}
