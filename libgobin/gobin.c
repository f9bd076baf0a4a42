/* gobin.c: the life of a go_bin: open the file, run the readers in the
   order their inputs need, and close it, each reader freeing its own
   state.

   The order:
     read-elf.c        the file, its kind, segments, sections, .symtab,
                       build id: what every other reader reads through;
     read-buildinfo.c  the Go version and build settings;
     read-pclntab.c    the function table and its name index (it needs
                       the ELF view, and the Go version to know a layout
                       the pclntab header does not name);
     read-abi.c        each function's ABI (the function table, the Go
                       version);
     read-code.c       the disassembler, ready for gobin_analyze;
     read-debuginfo.c  only its state: the DWARF is looked up on first
                       use.  */

#include "config.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

int
gobin_open (struct go_bin *b, const char *path)
{
  int ret;
  memset (b, 0, sizeof *b);
  b->path = path;
  if ((b->io = calloc (1, sizeof *b->io)) == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  b->io->fd = -1;
  elf_version (EV_CURRENT);
  if ((ret = gobin_elf_open (b, path)) != EXIT_OK)
    return ret;
  b->probe_path = b->abspath;
  if ((ret = gobin_debuginfo_init (b)) != EXIT_OK
      || (ret = gobin_read_buildinfo (b)) != EXIT_OK
      || (ret = gobin_read_pclntab (b)) != EXIT_OK)
    return ret;
  /* cgo: the build settings say so, or the pclntab shows cgo's runtime
     (a binary without build info).  */
  b->cgo = b->cgo || b->buildinfo_cgo;
  gobin_classify_abi (b);
  return gobin_code_init (b);
}

void
gobin_close (struct go_bin *b)
{
  if (b->io != NULL)
    {
      gobin_code_fini (b);
      gobin_debuginfo_fini (b);
      gobin_pclntab_fini (b);
      gobin_elf_fini (b);
      free (b->io);
    }
  memset (b, 0, sizeof *b);
}
