/* zka_version.h - the version line of every installed binary (`--version`, `-V`).
 *
 * One source: the top CMakeLists.txt's project() version and the git commit it found at
 * configure time reach a binary as the compile definitions ZKA_VERSION and ZKA_GIT_COMMIT
 * (zka_use_version(target)); a file that includes this header in a target without them does
 * not compile, so no binary can print a version of its own. The line is "PROG VERSION", then
 * " (git COMMIT)" when the commit is known: the first word pair is what help2man reads. */
#ifndef ZKA_VERSION_H
#define ZKA_VERSION_H

#include <stdio.h>
#include <string.h>

#if !defined(ZKA_VERSION) || !defined(ZKA_GIT_COMMIT)
#error "zka_version.h: the target needs zka_use_version() in its CMakeLists.txt"
#endif

/* Writes PROG's version line to stdout; returns 0 (the exit status of `PROG --version`). */
static inline int zka_version_print(const char *prog)
{
	if (ZKA_GIT_COMMIT[0])
		printf("%s %s (git %s)\n", prog, ZKA_VERSION, ZKA_GIT_COMMIT);
	else
		printf("%s %s\n", prog, ZKA_VERSION);
	return 0;
}

/* Whether ARG asks for the version: "--version" or "-V". */
static inline int zka_version_asked(const char *arg)
{
	return !strcmp(arg, "--version") || !strcmp(arg, "-V");
}

#endif
