/*
 * programs/check_elf.c - a plugin's exported constant, read from its file
 * (see check_elf.h).
 */
#include "config.h"

#include "check_elf.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif
#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

/* Whether [off, off + n) lies within a file of `size` bytes. */
static bool within(size_t size, uint64_t off, uint64_t n)
{
	return off <= size && n <= size - off;
}

/* Find `name` in the dynamic symbols of the mapped file; 0 or -1 with
 * `why`. */
static int lookup(const uint8_t *f, size_t size, const char *name,
		  uint32_t *val, char *why, size_t len)
{
	const ElfW(Ehdr) *eh = (const void *)f;
	const ElfW(Shdr) * sh;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != NATIVE_CLASS ||
	    eh->e_ident[EI_DATA] != NATIVE_DATA ||
	    eh->e_shentsize != sizeof(*sh) ||
	    !within(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh))) {
		snprintf(why, len, "not a shared object of this machine");
		return -1;
	}
	sh = (const void *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *syms = &sh[i], *str;
		const char *names;

		if (syms->sh_type != SHT_DYNSYM || syms->sh_link >= eh->e_shnum)
			continue;
		str = &sh[syms->sh_link];
		if (syms->sh_entsize != sizeof(ElfW(Sym)) ||
		    !within(size, syms->sh_offset, syms->sh_size) ||
		    !within(size, str->sh_offset, str->sh_size))
			break;
		names = (const char *)f + str->sh_offset;
		for (uint64_t k = 0; k < syms->sh_size / sizeof(ElfW(Sym));
		     k++) {
			ElfW(Sym) s;
			const ElfW(Shdr) * in;

			memcpy(&s, f + syms->sh_offset + k * sizeof(s),
			       sizeof(s));
			if (s.st_name >= str->sh_size ||
			    strncmp(names + s.st_name, name,
				    str->sh_size - s.st_name) ||
			    s.st_shndx == SHN_UNDEF ||
			    s.st_shndx >= eh->e_shnum)
				continue;
			in = &sh[s.st_shndx];
			if (s.st_size != sizeof(*val) ||
			    in->sh_type == SHT_NOBITS ||
			    s.st_value < in->sh_addr ||
			    s.st_value - in->sh_addr + sizeof(*val) >
				    in->sh_size ||
			    !within(size,
				    in->sh_offset + s.st_value - in->sh_addr,
				    sizeof(*val))) {
				snprintf(why, len,
					 "its %s is not a 4-byte constant",
					 name);
				return -1;
			}
			memcpy(val,
			       f + in->sh_offset + s.st_value - in->sh_addr,
			       sizeof(*val));
			return 0;
		}
	}
	snprintf(why, len, "it exports no %s: not a Slurm plugin", name);
	return -1;
}

int check_elf_u32(const char *path, const char *name, uint32_t *val, char *why,
		  size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	void *map = MAP_FAILED;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, len, "cannot read it: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		snprintf(why, len, "not a regular file");
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(why, len, "cannot map it: %s", strerror(errno));
		goto out;
	}
	rc = lookup(map, (size_t)st.st_size, name, val, why, len);
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	return rc;
}
