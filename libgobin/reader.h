/* reader.h: libgobin's private header, how a Go binary is read: the
   state struct go_bin_io keeps for each reader, the readers' init and fini
   steps gobin_open and gobin_close run, and the bounds-checked access to
   the file they all read through.  Only the library's sources include it;
   its users have gobin.h.

   Where each fact about a Go binary is read:
     read-elf.c        ELF headers, segments, sections, .symtab, build id
     read-buildinfo.c  Go version and build settings (.go.buildinfo)
     read-pclntab.c    function table, names, file and line, pcsp (.gopclntab)
     read-inline.c     the inline tree
     read-abi.c        ABIInternal or ABI0 for each function
     read-code.c       RET sites, tail exits, body after the stack check
     read-debuginfo.c  where the DWARF comes from (the binary, a separate
                       debug file, debuginfod), opened on first use
     read-params.c     argument and result locations (DWARF + Go's ABI)
     read-dwarf-path.c what a DWARF value path reaches
     read-dwarf-index.c subprograms and line rows by address
     read-layout.c     runtime.g, m, gobuf offsets; TLS; wait reasons
     read-types.c      runtime type descriptors

   Every read from the file goes through gobin_at() or gobin_vaddr(), which
   check bounds, so a malformed binary gives an error, never a crash.  */

#ifndef GOSTAP_READER_H
#define GOSTAP_READER_H

#include "gobin.h"

struct go_bin_io
{
  int fd;
  Elf *elf;
  void *image_map;              /* the memory holding the file (read-elf.c),
                                   and its length */
  size_t image_map_len;
  struct go_pclntab *pclntab;   /* read-pclntab.c's state: its tables and
                                   the name index */
  struct go_sym *syms;          /* .symtab functions, sorted by address */
  size_t nsyms;
  void *disasm;                 /* read-code.c's decoder state */
  /* read-debuginfo.c's state: where the DWARF comes from, opened on
     first use (dwarf_begin_elf inflates every compressed .debug_* section
     and a separate debug file may have to be looked up or downloaded,
     work that listing a binary or a gostap run cache hit never needs).
     Allocated by gobin_open; the lazy lookup fills what it points to.  */
  struct go_debuginfo *debuginfo;
};

/* read-elf.c */
int gobin_elf_open (struct go_bin *b, const char *path);
void gobin_elf_fini (struct go_bin *b);
const uint8_t *gobin_vaddr (const struct go_bin *b, uint64_t vaddr,
                            uint64_t len, size_t *avail);
Elf_Scn *gobin_section (const struct go_bin *b, const char *name,
                        GElf_Shdr *shdr);
/* The first section of ELF named NAME (its header into *SHDR), or NULL.  */
Elf_Scn *elf_section (Elf *elf, const char *name, GElf_Shdr *shdr);
/* NAME in the binary's own .symtab (what the readers of gobin_open use).  */
bool gobin_own_symbol (const struct go_bin *b, const char *name,
                       uint64_t *value, uint64_t *size);
uint64_t gobin_read_uint (const struct go_bin *b, const uint8_t *p,
                          unsigned size);
/* The function symbols of ELF's .symtab, sorted by address (malloc'd; 0,
   or -1 with a message naming PATH).  */
int elf_function_symbols (Elf *elf, const char *path, struct go_sym **syms,
                          size_t *nsyms);
/* NAME in ELF's .symtab, linearly (for a handful of names).  */
bool elf_symbol (Elf *elf, const char *name, uint64_t *value,
                 uint64_t *size);
/* The first function symbol at ADDR in SYMS, or NULL.  */
const char *symbols_at (const struct go_sym *syms, size_t n, uint64_t addr);

/* read-debuginfo.c */
int gobin_debuginfo_init (struct go_bin *b);
void gobin_debuginfo_fini (struct go_bin *b);

/* read-buildinfo.c */
int gobin_read_buildinfo (struct go_bin *b);
int go_version_minor (const char *version);
/* An unsigned LEB128 varint at *P (advanced past it) into *V; false when
   it runs past END or overflows.  */
bool uvarint (const uint8_t **p, const uint8_t *end, uint64_t *v);

/* read-pclntab.c */
int gobin_read_pclntab (struct go_bin *b);
void gobin_pclntab_fini (struct go_bin *b);

/* read-code.c: gobin_code_fini also frees what gobin_analyze found.  */
int gobin_code_init (struct go_bin *b);
void gobin_code_fini (struct go_bin *b);

/* read-abi.c */
void gobin_classify_abi (struct go_bin *b);

#endif
