/*
 * programs/check_elf.h - a constant a Slurm plugin exports (its
 * plugin_version), read from the file: the plugin is never loaded, so
 * neither its code nor Slurm's runs. Native ELF class and byte order only.
 */
#ifndef PMIXEV_CHECK_ELF_H_
#define PMIXEV_CHECK_ELF_H_

#include <stddef.h>
#include <stdint.h>

/*
 * The 4-byte value of the dynamic symbol `name` of the shared object
 * `path`: 0, or -1 with the reason in `why`.
 */
int check_elf_u32(const char *path, const char *name, uint32_t *val, char *why,
		  size_t len);

#endif /* PMIXEV_CHECK_ELF_H_ */
