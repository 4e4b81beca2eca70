/* fatbin_check.c - the CI check that the CUDA build embeds the kernel images it was asked for
 * (issue 36: fat binaries): `fatbin_check SASS PTX FILE...` finds every CUDA fat binary in each
 * FILE (an object, a static library, an executable: each .cu's fat binary keeps its own
 * header) and asserts that each holds exactly SASS (ELF) images for the architectures of SASS
 * and PTX for those of PTX, both comma-separated numbers ("80,86,87,88,89,90,...", "121"; "-"
 * for none), printing one line per fat binary as cuobjdump --list-elf / --list-ptx would name
 * them. Exit 0 when every fat binary matches and there is at least one, 1 otherwise, 2 on bad
 * usage or an unreadable file.
 *
 * What it reads, the fat binary's layout as nvcc 12-13 write it (and cuobjdump reads it):
 * a header {u32 magic 0xBA55ED50, u16 version, u16 header size, u64 entries' bytes}, then
 * entries {u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload bytes, ...,
 * u32 architecture at byte 28}, each followed by its payload. cuobjdump is not part of every
 * CUDA install (this project's build machine has nvcc without it), so the check reads the
 * format itself. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0xBA55ED50u
#define ARCH_MAX 64

typedef struct {
	int n, a[ARCH_MAX];
} archs;

/* "80,86,90" (or "-": none) into *s; -EINVAL for anything else */
static int parse(const char *str, archs *s)
{
	s->n = 0;
	if (!strcmp(str, "-"))
		return 0;
	while (*str) {
		char *end = NULL;
		long v = strtol(str, &end, 10);
		if (end == str || v <= 0 || s->n == ARCH_MAX)
			return -EINVAL;
		s->a[s->n++] = (int)v;
		str = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return 0;
}

static int has(const archs *s, int v)
{
	for (int i = 0; i < s->n; i++)
		if (s->a[i] == v)
			return 1;
	return 0;
}

static int rd16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}
static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16;
}
static uint64_t rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* 1 when s and t hold the same architectures (each listed once) */
static int same(const archs *s, const archs *t)
{
	if (s->n != t->n)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (!has(t, s->a[i]))
			return 0;
	return 1;
}

/* Checks every fat binary in the n bytes of file name; returns the fat binaries found (bad
 * counts those that do not match or are malformed). */
static int check(const char *name, const unsigned char *d, size_t n, const archs *want_elf,
		 const archs *want_ptx, int *bad)
{
	int found = 0;
	for (size_t i = 0; i + 16 <= n; i++) {
		if (rd32(d + i) != MAGIC)
			continue;
		size_t hs = (size_t)rd16(d + i + 6), fs = (size_t)rd64(d + i + 8);
		if (hs < 16 || fs > n || i + hs > n - fs)
			continue; /* the magic's bytes by chance: not a header */
		archs elf = {0}, ptx = {0};
		int ok = 1;
		size_t p = i + hs, end = i + hs + fs;
		while (p < end) {
			if (end - p < 32) {
				ok = 0;
				break;
			}
			int kind = rd16(d + p);
			size_t ehs = rd32(d + p + 4);
			uint64_t size = rd64(d + p + 8);
			int arch = (int)rd32(d + p + 28);
			if (ehs < 32 || ehs > end - p || size > end - p - ehs) {
				ok = 0;
				break;
			}
			archs *s = kind == 2 ? &elf : kind == 1 ? &ptx : NULL;
			if (s && !has(s, arch) && s->n < ARCH_MAX)
				s->a[s->n++] = arch;
			p += ehs + size;
		}
		found++;
		printf("%s: fat binary at %zu:", name, i);
		for (int k = 0; k < elf.n; k++)
			printf(" ELF sm_%d.cubin", elf.a[k]);
		for (int k = 0; k < ptx.n; k++)
			printf(" PTX sm_%d.ptx", ptx.a[k]);
		int match = ok && same(&elf, want_elf) && same(&ptx, want_ptx);
		printf("%s\n", !ok ? "  MALFORMED" : match ? "  ok" : "  MISMATCH");
		*bad += !match;
		i = end - 1;
	}
	return found;
}

int main(int argc, char **argv)
{
	archs want_elf, want_ptx;
	if (argc < 4 || parse(argv[1], &want_elf) || parse(argv[2], &want_ptx)) {
		fprintf(stderr,
			"usage: fatbin_check SASS PTX FILE...  (SASS, PTX: 80,86,90 or -)\n");
		return 2;
	}
	int bad = 0, found = 0;
	for (int f = 3; f < argc; f++) {
		FILE *fp = fopen(argv[f], "rb");
		if (!fp) {
			fprintf(stderr, "fatbin_check: %s: %s\n", argv[f], strerror(errno));
			return 2;
		}
		size_t cap = 1 << 20, n = 0;
		unsigned char *d = malloc(cap);
		for (size_t r; d && (r = fread(d + n, 1, cap - n, fp)) > 0;) {
			n += r;
			if (n == cap) {
				unsigned char *d2 = realloc(d, cap *= 2);
				if (!d2)
					free(d);
				d = d2;
			}
		}
		fclose(fp);
		if (!d) {
			fprintf(stderr, "fatbin_check: %s: out of memory\n", argv[f]);
			return 2;
		}
		int k = check(argv[f], d, n, &want_elf, &want_ptx, &bad);
		free(d);
		if (!k) {
			printf("%s: no CUDA fat binary\n", argv[f]);
			bad++;
		}
		found += k;
	}
	printf("%d fat binar%s, %d not as asked (SASS %s, PTX %s)\n", found,
	       found == 1 ? "y" : "ies", bad, argv[1], argv[2]);
	return bad || !found ? 1 : 0;
}
