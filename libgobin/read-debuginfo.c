/* read-debuginfo.c: where a binary's DWARF comes from, and the symbols of
   a stripped binary.

   SystemTap finds the DWARF of a user-space binary with elfutils' libdwfl
   (dwflpp.cxx: dwfl_standard_find_debuginfo over a debuginfo path).
   gostap asks the same library the same question, in this order:
     1. the binary's own .debug_* sections;
     2. libdwfl's standard lookup: by GNU build id, DIR/.build-id/xx/yyyy.debug
        in each debug directory; then by .gnu_debuglink (else NAME.debug)
        beside the binary, in its .debug/ subdirectory and in
        DIR/<the binary's directory>/.  The directories are
        SYSTEMTAP_DEBUGINFO_PATH as stap reads it, else stap's default
        (DEFAULT_PATH).  libdwfl checks the build id (or the debuglink's
        CRC) of what it finds;
     3. debuginfod, by build id, when DEBUGINFOD_URLS is set: libdwfl asks
        it through libdebuginfod (which caches what it downloads, and
        reads DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME and the other
        variables libdebuginfod documents).  When configure found
        libdebuginfod's header, gostap shows the download's progress on a
        terminal.
   Nothing is looked up until a caller needs DWARF, or a symbol that the
   binary's own .symtab cannot give: listing a binary or a gostap run cache
   hit never pays for it.  Of a debug file, libdw is given only the DWARF
   sections gostap reads (dwarf_subset), as of the binary itself.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#ifdef HAVE_LIBDEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "reader.h"

/* SystemTap's debuginfo path for user-space binaries (dwflpp.cxx).  */
#define DEFAULT_PATH "+:.debug:/usr/lib/debug:/var/cache/abrt-di/usr/lib/debug"

struct go_debuginfo
{
  bool tried;                   /* the lookup ran (once) */
  enum go_dwarf_source source;
  Dwarf *dwarf;
  char *path;                   /* the debug file (malloc'd), or NULL */
  int fd;                       /* the debug file, or -1 */
  Elf *file;                    /* the debug file, or NULL */
  Elf *subset;                  /* what dwarf reads, when not FILE itself */
  void *subset_image;           /* SUBSET's bytes */
  struct go_sym *syms;          /* the debug file's function symbols, for */
  size_t nsyms;                 /* a binary without .symtab */
  bool companion;               /* the debug file is gostap's companion
                                   (write-companion.c): no types */
};

/* The producer of write-companion.c's unit.  */
#define COMPANION_PRODUCER "gostap companion "

/* Does DW's first unit say it was made by write-companion.c?  */
static bool
is_companion (Dwarf *dw)
{
  Dwarf_Off next;
  size_t hsize;
  Dwarf_Die cu;
  Dwarf_Attribute a;
  const char *producer;
  return dwarf_nextcu (dw, 0, &next, &hsize, NULL, NULL, NULL) == 0
    && dwarf_offdie (dw, hsize, &cu) != NULL
    && dwarf_attr (&cu, DW_AT_producer, &a) != NULL
    && (producer = dwarf_formstring (&a)) != NULL
    && strncmp (producer, COMPANION_PRODUCER,
                sizeof COMPANION_PRODUCER - 1) == 0;
}

/* The bytes of ELF's section NAME, or NULL.  */
static const void *
section_bytes (Elf *elf, const char *name, size_t *size)
{
  GElf_Shdr sh;
  Elf_Scn *s = elf_section (elf, name, &sh);
  Elf_Data *d = s != NULL && sh.sh_type != SHT_NOBITS
    ? elf_rawdata (s, NULL) : NULL;
  if (d == NULL)
    return NULL;
  *size = d->d_size;
  return d->d_buf;
}

/* A companion found by name (no GNU build id to check) may be of an
   earlier build of the same path: it keeps the binary's Go build id note,
   compared here.  */
static bool
companion_matches (const struct go_bin *b, Elf *debug)
{
  size_t n1 = 0, n2 = 0;
  const void *mine = b->has_section_headers
    ? section_bytes (b->io->elf, ".note.go.buildid", &n1) : NULL;
  const void *its = section_bytes (debug, ".note.go.buildid", &n2);
  return mine == NULL || (its != NULL && n1 == n2
                          && memcmp (mine, its, n1) == 0);
}

/* DWARF sections gostap has no use for: call-frame information and,
   unless WITH_LOC, location lists (argument locations come from types and
   Go's ABI; gobin_dwarf_omits_params says when read-params.c checks them
   against the lists).  In a Go binary they are over half of the DWARF,
   and libdw 0.188 inflates every compressed section it is given when it
   opens them.  */
static bool
dwarf_section_unused (const char *name, bool with_loc)
{
  const char *base = strncmp (name, ".debug_", 7) == 0 ? name + 7
    : strncmp (name, ".zdebug_", 8) == 0 ? name + 8 : NULL;
  if (base == NULL)
    return true;                /* not DWARF at all */
  return strcmp (base, "frame") == 0
    || (!with_loc && (strcmp (base, "loc") == 0
                      || strcmp (base, "loclists") == 0));
}

/* The name of SCN when it is a DWARF section with contents that gostap
   reads, else NULL; its header in *SH.  */
static const char *
kept_section (Elf *elf, Elf_Scn *scn, size_t shstrndx, GElf_Shdr *sh,
              bool with_loc)
{
  const char *name;
  if (gelf_getshdr (scn, sh) == NULL || sh->sh_type == SHT_NOBITS
      || (name = elf_strptr (elf, shstrndx, sh->sh_name)) == NULL
      || dwarf_section_unused (name, with_loc))
    return NULL;
  return name;
}

/* An ELF image in memory with only the DWARF sections of ELF (whose SIZE
   bytes are at IMAGE) that gostap reads, copied as they are (compressed or
   not), for dwarf_begin_elf: NULL when it cannot be made (the caller then
   gives libdw the whole file).  */
static Elf *
dwarf_subset (Elf *elf, const uint8_t *image, size_t size, bool with_loc,
              void **imagep)
{
  size_t shstrndx, nkeep = 0, datasize = 0, namesize = 1;
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *name = kept_section (elf, scn, shstrndx, &sh, with_loc);
      if (name == NULL)
        continue;
      if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
        return NULL;            /* libdw will say what is wrong */
      nkeep++;
      datasize += (sh.sh_size + 7) / 8 * 8;
      namesize += strlen (name) + 1;
    }
  if (nkeep == 0)
    return NULL;
  /* ELF header, section contents, section names, section headers.  */
  size_t names_at = sizeof (GElf_Ehdr) + datasize;
  size_t shdrs_at = (names_at + namesize + 7) / 8 * 8;
  size_t nsh = nkeep + 2;       /* with the null section and the names */
  size_t total = shdrs_at + nsh * sizeof (Elf64_Shdr);
  unsigned char *img = calloc (1, total);
  if (img == NULL)
    return NULL;
  Elf64_Ehdr *eh = (Elf64_Ehdr *) img;
  Elf64_Shdr *out = (Elf64_Shdr *) (img + shdrs_at);
  GElf_Ehdr orig;
  if (gelf_getehdr (elf, &orig) == NULL)
    {
      free (img);
      return NULL;
    }
  memcpy (eh->e_ident, orig.e_ident, EI_NIDENT);
  eh->e_type = ET_EXEC;
  eh->e_machine = orig.e_machine;
  eh->e_version = EV_CURRENT;
  eh->e_ehsize = sizeof *eh;
  eh->e_shentsize = sizeof *out;
  eh->e_shoff = shdrs_at;
  eh->e_shnum = (Elf64_Half) nsh;
  eh->e_shstrndx = (Elf64_Half) (nsh - 1);
  size_t data = sizeof *eh, name = 1, k = 1;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *n = kept_section (elf, scn, shstrndx, &sh, with_loc);
      if (n == NULL)
        continue;
      memcpy (img + data, image + sh.sh_offset, sh.sh_size);
      memcpy (img + names_at + name, n, strlen (n) + 1);
      out[k++] = (Elf64_Shdr) {
        .sh_name = (Elf64_Word) name, .sh_type = sh.sh_type,
        .sh_flags = sh.sh_flags, .sh_offset = data, .sh_size = sh.sh_size,
        .sh_addralign = sh.sh_addralign };
      data += (sh.sh_size + 7) / 8 * 8;
      name += strlen (n) + 1;
    }
  out[k] = (Elf64_Shdr) {         /* the names, themselves unnamed */
    .sh_name = 0, .sh_type = SHT_STRTAB, .sh_offset = names_at,
    .sh_size = namesize, .sh_addralign = 1 };
  Elf *e = elf_memory ((char *) img, total);
  if (e == NULL)
    {
      free (img);
      return NULL;
    }
  *imagep = img;
  return e;
}

/* Open libdw on ELF (SIZE bytes at IMAGE), the DWARF of B: on the subset
   of its DWARF sections where one can be made, else on the whole file.  */
static Dwarf *
begin_dwarf (const struct go_bin *b, struct go_debuginfo *d, Elf *elf,
             const uint8_t *image, size_t size)
{
  Dwarf *dw = NULL;
  d->subset = image != NULL
    ? dwarf_subset (elf, image, size, gobin_dwarf_omits_params (b),
                    &d->subset_image) : NULL;
  if (d->subset != NULL)
    dw = dwarf_begin_elf (d->subset, DWARF_C_READ, NULL);
  if (dw == NULL)
    dw = dwarf_begin_elf (elf, DWARF_C_READ, NULL);
  return dw;
}

/* Take the debug file open on FD (named PATH, malloc'd or NULL): its
   DWARF and symbols.  False, with a message, when libdw cannot read it.  */
static bool
take_debug_file (const struct go_bin *b, struct go_debuginfo *d, int fd,
                 char *path, enum go_dwarf_source source)
{
  const char *shown = path != NULL ? path : "the debug file";
  d->fd = fd;
  d->path = path;
  d->file = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  if (d->file == NULL || elf_kind (d->file) != ELF_K_ELF)
    {
      error (0, 0, "%s: debug file %s: not an ELF file: elf_begin: %s",
             b->path, shown, elf_errmsg (-1));
      return false;
    }
  size_t size;
  const uint8_t *image = (const uint8_t *) elf_rawfile (d->file, &size);
  d->dwarf = begin_dwarf (b, d, d->file, image, size);
  if (d->dwarf == NULL)
    {
      error (0, 0, "%s: debug file %s cannot be read: dwarf_begin_elf: %s",
             b->path, shown, dwarf_errmsg (-1));
      return false;
    }
  d->companion = is_companion (d->dwarf);
  if (d->companion && !companion_matches (b, d->file))
    {
      error (0, 0, "%s: %s is a gostap companion debug file of another "
             "build (its Go build id differs): not used; write it again "
             "with gostap companion", b->path, shown);
      return false;
    }
  if (!b->has_symtab
      && elf_function_symbols (d->file, shown, &d->syms, &d->nsyms) != 0)
    return false;
  d->source = source;
  return true;
}

/* Is PATH inside libdebuginfod's cache (DEBUGINFOD_CACHE_PATH, else
   $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client)?  */
static bool
in_debuginfod_cache (const char *path)
{
  char dir[4096];
  const char *env = getenv ("DEBUGINFOD_CACHE_PATH");
  const char *xdg = getenv ("XDG_CACHE_HOME");
  const char *home = getenv ("HOME");
  if (env != NULL && env[0] != '\0')
    snprintf (dir, sizeof dir, "%s/", env);
  else if (xdg != NULL && xdg[0] != '\0')
    snprintf (dir, sizeof dir, "%s/debuginfod_client/", xdg);
  else if (home != NULL)
    snprintf (dir, sizeof dir, "%s/.cache/debuginfod_client/", home);
  else
    return false;
  return strncmp (path, dir, strlen (dir)) == 0;
}

/* A file at the build-id path of a debug directory, or the debuglink
   beside the binary, that libdwfl rejected: say why in one line.  The
   lookup itself is libdwfl's; this only names what it passed over.  */
static void
explain_rejected (const struct go_bin *b, const char *search)
{
  char want[128], got[128], cand[4096];
  if (b->gnu_build_id == NULL || b->gnu_build_id_len < 2)
    return;
  hex_string (want, sizeof want, b->gnu_build_id, b->gnu_build_id_len);
  char *dirs = strdup (search);
  if (dirs == NULL)
    return;
  char *save = NULL;
  for (char *dir = strtok_r (dirs, ":", &save); dir != NULL;
       dir = strtok_r (NULL, ":", &save))
    {
      if (dir[0] != '/')
        continue;               /* "+", "-", relative: beside the binary */
      snprintf (cand, sizeof cand, "%s/.build-id/%.2s/%s.debug", dir, want,
                want + 2);
      int fd = open (cand, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      Elf *e = elf_begin (fd, ELF_C_READ_MMAP, NULL);
      const void *id;
      ssize_t n = e != NULL ? dwelf_elf_gnu_build_id (e, &id) : -1;
      if (n > 0)
        hex_string (got, sizeof got, id, (size_t) n);
      if (e != NULL)
        elf_end (e);
      close (fd);
      if (n <= 0)
        error (0, 0, "%s: ignored %s: no build id can be read from it",
               b->path, cand);
      else if (strcmp (got, want) != 0)
        error (0, 0, "%s: ignored %s: its build id %s is not the "
               "binary's %s", b->path, cand, got, want);
      else
        error (0, 0, "%s: ignored %s: libdwfl rejected it", b->path, cand);
      break;
    }
  free (dirs);
}

#ifdef HAVE_LIBDEBUGINFOD
struct download
{
  const char *path;             /* the binary, for the message */
  bool tty;                     /* stderr is a terminal */
  bool shown;                   /* a progress line is on it */
};

/* The progress function of libdwfl's debuginfod client: a line on a
   terminal, redrawn as the download goes.  */
static int
show_progress (debuginfod_client *c, long done, long total)
{
  struct download *p = debuginfod_get_user_data (c);
  if (p != NULL && p->tty)
    {
      if (total > 0)
        fprintf (stderr, "\rgostap: %s: downloading debuginfo: %ld of %ld "
                 "KiB", p->path, done / 1024, total / 1024);
      else
        fprintf (stderr, "\rgostap: %s: downloading debuginfo: %ld KiB",
                 p->path, done / 1024);
      p->shown = true;
    }
  return 0;
}
#endif

const char *
gobin_debuginfo_path (void)
{
  const char *env = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  return env != NULL ? env : DEFAULT_PATH;
}

/* The file open on FD, by /proc/self/fd (malloc'd; NULL when it cannot
   be named): libdwfl gives no path for a file from debuginfod, which
   libdebuginfod keeps in its cache.  */
static char *
fd_path (int fd)
{
  char link[64], buf[4096];
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink (link, buf, sizeof buf - 1);
  if (n <= 0 || buf[0] != '/')
    return NULL;
  buf[n] = '\0';
  return strdup (buf);
}

/* Steps 2 and 3: libdwfl's standard lookup.  */
static bool
from_dwfl (const struct go_bin *b, struct go_debuginfo *d)
{
  char *search = (char *) gobin_debuginfo_path ();
  const Dwfl_Callbacks cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &search,
  };
  bool ok = false;
  Dwfl *dwfl = dwfl_begin (&cb);
  if (dwfl == NULL)
    {
      error (0, 0, "%s: dwfl_begin: %s", b->path, dwfl_errmsg (-1));
      return false;
    }
#ifdef HAVE_LIBDEBUGINFOD
  struct download progress = { b->path, isatty (STDERR_FILENO) == 1, false };
  debuginfod_client *dc = dwfl_get_debuginfod_client (dwfl);
  if (dc != NULL)
    {
      debuginfod_set_user_data (dc, &progress);
      debuginfod_set_progressfn (dc, show_progress);
    }
#endif
  dwfl_report_begin (dwfl);
  Dwfl_Module *mod = dwfl_report_offline (dwfl, b->abspath, b->abspath, -1);
  if (dwfl_report_end (dwfl, NULL, NULL) != 0 || mod == NULL)
    {
      error (0, 0, "%s: dwfl_report_offline: %s", b->path, dwfl_errmsg (-1));
      goto out;
    }
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  GElf_Word crc = 0;
  const char *link = b->has_section_headers
    ? dwelf_elf_gnu_debuglink (b->io->elf, &crc) : NULL;
  char *path = NULL;
  int fd = dwfl_standard_find_debuginfo (mod, userdata, b->abspath, 0,
                                         b->abspath, link, crc, &path);
#ifdef HAVE_LIBDEBUGINFOD
  if (progress.shown)
    fputs ("\r\033[K", stderr);
#endif
  if (fd < 0)
    {
      free (path);
      explain_rejected (b, search);
      const char *urls = getenv ("DEBUGINFOD_URLS");
      if (b->gnu_build_id != NULL && urls != NULL && urls[0] != '\0')
        {
          char id[128];
          hex_string (id, sizeof id, b->gnu_build_id, b->gnu_build_id_len);
          error (0, 0, "%s: no debuginfo for build id %s in the debug "
                 "directories or from debuginfod (%s; DEBUGINFOD_VERBOSE=1 "
                 "shows what it answered)", b->path, id, urls);
        }
      goto out;
    }
  if (path == NULL)
    path = fd_path (fd);
  enum go_dwarf_source source = path == NULL || in_debuginfod_cache (path)
    ? GO_DWARF_DEBUGINFOD : strstr (path, "/.build-id/") != NULL
    ? GO_DWARF_BUILD_ID : GO_DWARF_DEBUGLINK;
  ok = take_debug_file (b, d, fd, path, source);
out:
  dwfl_end (dwfl);
  return ok;
}

static struct go_debuginfo *
lookup (const struct go_bin *b)
{
  struct go_debuginfo *d = b->io->debuginfo;
  if (d == NULL || d->tried)
    return d;
  d->tried = true;
  if (b->has_dwarf)
    {
      d->dwarf = begin_dwarf (b, d, b->io->elf, b->image, b->size);
      d->source = d->dwarf != NULL ? GO_DWARF_BINARY : GO_DWARF_NONE;
      return d;
    }
  bool found = from_dwfl (b, d);
  if (!found && d->dwarf != NULL)
    {
      dwarf_end (d->dwarf);
      d->dwarf = NULL;
    }
  if (!found)
    d->source = GO_DWARF_NONE;
  return d;
}

bool
gobin_dwarf_companion (const struct go_bin *b)
{
  const struct go_debuginfo *d = lookup (b);
  return d != NULL && d->dwarf != NULL && d->companion;
}

int
gobin_debuginfo_init (struct go_bin *b)
{
  b->io->debuginfo = calloc (1, sizeof *b->io->debuginfo);
  if (b->io->debuginfo == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  b->io->debuginfo->fd = -1;
  return EXIT_OK;
}

void
gobin_debuginfo_fini (struct go_bin *b)
{
  struct go_debuginfo *d = b->io->debuginfo;
  if (d == NULL)
    return;
  if (d->dwarf != NULL)
    dwarf_end (d->dwarf);
  if (d->subset != NULL)
    elf_end (d->subset);
  free (d->subset_image);
  free (d->syms);
  if (d->file != NULL)
    elf_end (d->file);
  if (d->fd >= 0)
    close (d->fd);
  free (d->path);
  free (d);
  b->io->debuginfo = NULL;
}

Dwarf *
gobin_dwarf (const struct go_bin *b)
{
  struct go_debuginfo *d = lookup (b);
  return d != NULL ? d->dwarf : NULL;
}

bool
gobin_has_debuginfo (const struct go_bin *b)
{
  return b->has_dwarf || gobin_dwarf (b) != NULL;
}

enum go_dwarf_source
gobin_dwarf_source (const struct go_bin *b, const char **path)
{
  struct go_debuginfo *d = lookup (b);
  if (path != NULL)
    *path = d != NULL ? d->path : NULL;
  return d != NULL ? d->source : GO_DWARF_NONE;
}

const char *
gobin_dwarf_source_name (enum go_dwarf_source s)
{
  switch (s)
    {
    case GO_DWARF_BINARY: return "binary";
    case GO_DWARF_BUILD_ID: return "build-id";
    case GO_DWARF_DEBUGLINK: return "debuglink";
    case GO_DWARF_DEBUGINFOD: return "debuginfod";
    default: return "none";
    }
}

int
gobin_dwarf_version (const struct go_bin *b)
{
  Dwarf *dw = gobin_dwarf (b);
  Dwarf_Off next;
  size_t hsize;
  Dwarf_Half version;
  if (dw == NULL || dwarf_next_unit (dw, 0, &next, &hsize, &version, NULL,
                                     NULL, NULL, NULL, NULL) != 0)
    return 0;
  return version;
}

bool
gobin_symbol (const struct go_bin *b, const char *name, uint64_t *value,
              uint64_t *size)
{
  if (b->has_symtab)
    return gobin_own_symbol (b, name, value, size);
  struct go_debuginfo *d = lookup (b);
  return d != NULL && d->file != NULL && d->nsyms > 0
    && elf_symbol (d->file, name, value, size);
}

const char *
gobin_symbol_at (const struct go_bin *b, uint64_t addr)
{
  if (b->has_symtab)
    return symbols_at (b->io->syms, b->io->nsyms, addr);
  struct go_debuginfo *d = lookup (b);
  return d != NULL ? symbols_at (d->syms, d->nsyms, addr) : NULL;
}

bool
gobin_has_symbols (const struct go_bin *b)
{
  if (b->has_symtab)
    return true;
  struct go_debuginfo *d = lookup (b);
  return d != NULL && d->nsyms > 0;
}
