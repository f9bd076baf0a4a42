/* read-elf.c: the ELF primitives every reader uses: open the file, check
   what kind of ELF file it is, give bounds-checked access to its bytes by
   file offset and by virtual address, find sections, symbols, the build
   id.  The order in which the readers run is gobin.c's.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "reader.h"

const uint8_t *
gobin_at (const struct go_bin *b, uint64_t off, uint64_t len)
{
  if (off > b->size || len > b->size - off)
    return NULL;
  return b->image + off;
}

uint64_t
gobin_read_uint (const struct go_bin *b, const uint8_t *p, unsigned size)
{
  (void) b;                     /* only little-endian files are accepted */
  uint64_t v = 0;
  for (unsigned i = 0; i < size; i++)
    v |= (uint64_t) p[i] << (8 * i);
  return v;
}

/* The bytes at VADDR, if LEN of them are in the file within one segment.
   With AVAIL, LEN may be 0 and *AVAIL says how many bytes follow.  */
const uint8_t *
gobin_vaddr (const struct go_bin *b, uint64_t vaddr, uint64_t len,
             size_t *avail)
{
  for (size_t i = 0; i < b->nsegs; i++)
    {
      const struct go_seg *s = &b->segs[i];
      if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
        {
          uint64_t rest = s->filesz - (vaddr - s->vaddr);
          if (len > rest)
            return NULL;
          if (avail)
            *avail = rest;
          return b->image + s->offset + (vaddr - s->vaddr);
        }
    }
  return NULL;
}

Elf *
gobin_elf (const struct go_bin *b)
{
  return b->io->elf;
}

const struct go_seg *
gobin_exec_segment (const struct go_bin *b)
{
  for (size_t i = 0; i < b->nsegs; i++)
    if (b->segs[i].exec)
      return &b->segs[i];
  return NULL;
}

Elf_Scn *
gobin_section (const struct go_bin *b, const char *name, GElf_Shdr *shdr)
{
  return b->has_section_headers ? elf_section (b->io->elf, name, shdr) : NULL;
}

Elf_Scn *
elf_section (Elf *elf, const char *name, GElf_Shdr *shdr)
{
  size_t shstrndx;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr mem;
      GElf_Shdr *sh = gelf_getshdr (scn, &mem);
      if (sh == NULL)
        continue;
      const char *n = elf_strptr (elf, shstrndx, sh->sh_name);
      if (n != NULL && strcmp (n, name) == 0)
        {
          if (shdr)
            *shdr = *sh;
          return scn;
        }
    }
  return NULL;
}

bool
elf_symbol (Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr mem;
      GElf_Shdr *sh = gelf_getshdr (scn, &mem);
      if (sh == NULL || sh->sh_type != SHT_SYMTAB || sh->sh_entsize == 0)
        continue;
      Elf_Data *data = elf_getdata (scn, NULL);
      if (data == NULL)
        continue;
      size_t n = data->d_size / sh->sh_entsize;
      for (size_t i = 0; i < n; i++)
        {
          GElf_Sym sym;
          if (gelf_getsym (data, (int) i, &sym) == NULL)
            break;
          const char *s = elf_strptr (elf, sh->sh_link, sym.st_name);
          if (s != NULL && strcmp (s, name) == 0)
            {
              *value = sym.st_value;
              if (size)
                *size = sym.st_size;
              return true;
            }
        }
    }
  return false;
}

bool
gobin_own_symbol (const struct go_bin *b, const char *name, uint64_t *value,
                  uint64_t *size)
{
  return b->has_symtab && elf_symbol (b->io->elf, name, value, size);
}

static int
compare_sym (const void *a, const void *b)
{
  const struct go_sym *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int
elf_function_symbols (Elf *elf, const char *path, struct go_sym **syms,
                      size_t *nsyms)
{
  Elf_Scn *scn = NULL;
  size_t cap = 0, n = 0;
  struct go_sym *v = NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr mem;
      GElf_Shdr *sh = gelf_getshdr (scn, &mem);
      if (sh == NULL || sh->sh_type != SHT_SYMTAB || sh->sh_entsize == 0)
        continue;
      Elf_Data *data = elf_getdata (scn, NULL);
      if (data == NULL)
        continue;
      size_t count = data->d_size / sh->sh_entsize;
      for (size_t i = 0; i < count; i++)
        {
          GElf_Sym sym;
          if (gelf_getsym (data, (int) i, &sym) == NULL)
            break;
          if (GELF_ST_TYPE (sym.st_info) != STT_FUNC)
            continue;
          const char *name = elf_strptr (elf, sh->sh_link, sym.st_name);
          if (name == NULL)
            continue;
          if (n == cap)
            {
              cap = cap ? 2 * cap : 1024;
              struct go_sym *nv = reallocarray (v, cap, sizeof *nv);
              if (nv == NULL)
                {
                  error (0, errno, "%s: reallocarray", path);
                  free (v);
                  return -1;
                }
              v = nv;
            }
          v[n++] = (struct go_sym) { sym.st_value, name };
        }
    }
  if (n > 0)
    qsort (v, n, sizeof *v, compare_sym);
  *syms = v;
  *nsyms = n;
  return 0;
}

const char *
symbols_at (const struct go_sym *syms, size_t n, uint64_t addr)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (syms[mid].addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && syms[lo].addr == addr ? syms[lo].name : NULL;
}

static int
read_segments (struct go_bin *b)
{
  size_t phnum;
  if (elf_getphdrnum (b->io->elf, &phnum) != 0)
    {
      error (0, 0, "%s: cannot read program headers: elf_getphdrnum: %s",
             b->path, elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  GElf_Ehdr eh;
  if (gelf_getehdr (b->io->elf, &eh) != NULL
      && (eh.e_phoff > b->size
          || (uint64_t) eh.e_phnum * eh.e_phentsize > b->size - eh.e_phoff))
    {
      error (0, 0, "%s: truncated file: program headers end past the end "
             "of the file (%zu bytes)", b->path, b->size);
      return EXIT_BADINPUT;
    }
  b->segs = calloc (phnum ? phnum : 1, sizeof *b->segs);
  if (b->segs == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr mem;
      GElf_Phdr *ph = gelf_getphdr (b->io->elf, (int) i, &mem);
      if (ph == NULL)
        {
          error (0, 0, "%s: cannot read program header %zu: gelf_getphdr: %s",
                 b->path, i, elf_errmsg (-1));
          return EXIT_BADINPUT;
        }
      if (ph->p_type != PT_LOAD || ph->p_filesz == 0)
        continue;
      struct go_seg *s = &b->segs[b->nsegs++];
      s->vaddr = ph->p_vaddr;
      s->offset = ph->p_offset;
      s->filesz = ph->p_filesz;
      s->memsz = ph->p_memsz;
      s->exec = (ph->p_flags & PF_X) != 0;
      if (s->offset > b->size || s->filesz > b->size - s->offset)
        {
          error (0, 0, "%s: truncated file: a segment needs bytes %#" PRIx64
                 "-%#" PRIx64 ", the file has %zu", b->path, s->offset,
                 s->offset + s->filesz, b->size);
          return EXIT_BADINPUT;
        }
    }
  if (b->nsegs == 0)
    {
      error (0, 0, "%s: no loadable segment in the file", b->path);
      return EXIT_BADINPUT;
    }
  return EXIT_OK;
}

/* Walk the notes of every PT_NOTE segment for the Go build id (name "Go",
   type 4), else the GNU one (name "GNU", type 3) in hex.  */
static void
read_build_id (struct go_bin *b)
{
  size_t phnum;
  char gnu[sizeof b->build_id] = "";
  bool go = false;
  if (elf_getphdrnum (b->io->elf, &phnum) != 0)
    return;
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr mem;
      GElf_Phdr *ph = gelf_getphdr (b->io->elf, (int) i, &mem);
      if (ph == NULL || ph->p_type != PT_NOTE)
        continue;
      const uint8_t *p = gobin_at (b, ph->p_offset, ph->p_filesz);
      if (p == NULL)
        continue;
      uint64_t pos = 0;
      while (pos + 12 <= ph->p_filesz)
        {
          uint32_t namesz = (uint32_t) gobin_read_uint (b, p + pos, 4);
          uint32_t descsz = (uint32_t) gobin_read_uint (b, p + pos + 4, 4);
          uint32_t type = (uint32_t) gobin_read_uint (b, p + pos + 8, 4);
          uint64_t name = pos + 12;
          uint64_t desc = name + (((uint64_t) namesz + 3) & ~3ULL);
          uint64_t next = desc + (((uint64_t) descsz + 3) & ~3ULL);
          if (next > ph->p_filesz)
            break;
          if (namesz == 3 && memcmp (p + name, "Go", 3) == 0 && type == 4
              && descsz < sizeof b->build_id)
            {
              memcpy (b->build_id, p + desc, descsz);
              b->build_id[descsz] = '\0';
              go = true;
            }
          if (namesz == 4 && memcmp (p + name, "GNU", 4) == 0
              && type == NT_GNU_BUILD_ID && descsz * 2 < sizeof gnu)
            for (uint32_t k = 0; k < descsz; k++)
              snprintf (gnu + 2 * k, 3, "%02x", p[desc + k]);
          pos = next;
        }
    }
  /* The GNU build id as libdwfl reads it (notes of sections or of
     segments: Go's linker puts its GNU note outside PT_NOTE), for the
     lookup of a separate debug file.  */
  const void *id;
  ssize_t n = dwelf_elf_gnu_build_id (b->io->elf, &id);
  if (n > 0 && (size_t) n * 2 < sizeof gnu)
    {
      b->gnu_build_id = id;
      b->gnu_build_id_len = (size_t) n;
      for (ssize_t k = 0; k < n; k++)
        snprintf (gnu + 2 * k, 3, "%02x", ((const uint8_t *) id)[k]);
    }
  if (!go)
    memcpy (b->build_id, gnu, sizeof gnu);
}

/* DWARF presence: the section, not yet its contents (gobin_dwarf).  */
static void
read_dwarf_facts (struct go_bin *b)
{
  GElf_Shdr sh;
  b->has_dwarf = gobin_section (b, ".debug_info", &sh) != NULL
    || gobin_section (b, ".zdebug_info", &sh) != NULL;
}

/* B's absolute path for PATH, the file ST describes: its canonical name,
   unless that names another file: under /proc/PID/root/ a link may name
   a file of another mount namespace, which the same path names
   differently here (a container's binary); then the path as given, made
   absolute.  */
static int
name_file (struct go_bin *b, const char *path, const struct stat *st)
{
  b->abspath = realpath (path, NULL);
  if (b->abspath == NULL)
    {
      error (0, errno, "%s: realpath", path);
      return EXIT_ERROR;
    }
  struct stat canon;
  if (stat (b->abspath, &canon) == 0 && canon.st_dev == st->st_dev
      && canon.st_ino == st->st_ino)
    return EXIT_OK;
  char *cwd = path[0] == '/' ? NULL : getcwd (NULL, 0);
  free (b->abspath);
  b->abspath = NULL;
  if (path[0] == '/')
    b->abspath = strdup (path);
  else if (cwd != NULL && asprintf (&b->abspath, "%s/%s", cwd, path) < 0)
    b->abspath = NULL;
  free (cwd);
  if (b->abspath == NULL)
    {
      error (0, errno, "%s: cannot name it", path);
      return EXIT_ERROR;
    }
  return EXIT_OK;
}

/* Open PATH, a regular file, into B (its descriptor and absolute path).  */
static int
open_file (struct go_bin *b, const char *path)
{
  b->io->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (b->io->fd < 0)
    {
      error (0, errno, "%s: cannot open", path);
      return errno == ENOENT || errno == EACCES ? EXIT_BADINPUT : EXIT_ERROR;
    }
  struct stat st;
  if (fstat (b->io->fd, &st) != 0)
    {
      error (0, errno, "%s: fstat", path);
      return EXIT_ERROR;
    }
  if (!S_ISREG (st.st_mode))
    {
      error (0, 0, "%s: not a regular file", path);
      return EXIT_BADINPUT;
    }
  b->st = st;
  return name_file (b, path, &st);
}

/* Read B's file (B->st.st_size bytes) into anonymous memory of its own
   and make B->elf of it.  Read, not mapped from the file: a private
   mapping of an executable file may be executed, so the kernel puts the
   breakpoints of every uprobe that another tracer (a stap session, perf,
   bpftrace) has on the binary into it, and gostap would decode an int3
   where a RET is (measured: `gostap list` said 0 RETs for main.work with
   a uprobe on its RET; the faults job saw the same beside an orphaned
   stap session); and a copy cannot change under the checks made of it.
   The memory is aligned to and advised for transparent huge pages: a
   binary of 53 MB (Debian's hugo) was read in 10-20 ms so, in 38-66 ms
   into malloc'd memory (libelf's ELF_C_READ), most of it the faults of
   its 4 KiB pages (bench/README.md, T11).  */
static int
read_image (struct go_bin *b, const char *path)
{
  const size_t huge = (size_t) 2 << 20;
  if (b->st.st_size <= 0 || (uint64_t) b->st.st_size > SIZE_MAX - 2 * huge)
    {
      error (0, 0, "%s: not an ELF file: %s", path,
             b->st.st_size <= 0 ? "empty" : "too large");
      return EXIT_BADINPUT;
    }
  size_t n = (size_t) b->st.st_size, len = (n + huge - 1) & ~(huge - 1);
  /* Over-allocated by one huge page and cut to an aligned LEN.  */
  uint8_t *m = mmap (NULL, len + huge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    {
      error (0, errno, "%s: mmap of %zu bytes to read it into", path, len);
      return EXIT_ERROR;
    }
  uint8_t *p = (uint8_t *) (((uintptr_t) m + huge - 1) & ~(uintptr_t) (huge - 1));
  if (p > m)
    munmap (m, (size_t) (p - m));
  if (p + len < m + len + huge)
    munmap (p + len, (size_t) (m + len + huge - (p + len)));
  b->io->image_map = p;
  b->io->image_map_len = len;
  (void) madvise (p, len, MADV_HUGEPAGE);      /* a hint: errors mean none */
  for (size_t off = 0; off < n;)
    {
      ssize_t k = pread (b->io->fd, p + off, n - off, (off_t) off);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        {
          if (k < 0)
            error (0, errno, "%s: cannot read the file: pread", path);
          else
            error (0, 0, "%s: cannot read the file: it ended at byte %zu of "
                   "%zu (changed while read?)", path, off, n);
          return k < 0 ? EXIT_ERROR : EXIT_BADINPUT;
        }
      off += (size_t) k;
    }
  b->io->elf = elf_memory ((char *) p, n);
  if (b->io->elf == NULL)
    {
      error (0, 0, "%s: not an ELF file: elf_memory: %s", path,
             elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  b->image = p;
  b->size = n;
  return EXIT_OK;
}

/* B's ELF handle, its bytes and its header (*EHDR): a 64-bit
   little-endian x86-64 or aarch64 file, or one line saying what it is
   not.  */
static int
read_header (struct go_bin *b, const char *path, GElf_Ehdr *ehdr)
{
  int ret = read_image (b, path);
  if (ret != EXIT_OK)
    return ret;
  if (elf_kind (b->io->elf) != ELF_K_ELF)
    {
      error (0, 0, "%s: not an ELF file", path);
      return EXIT_BADINPUT;
    }
  if (gelf_getehdr (b->io->elf, ehdr) == NULL)
    {
      error (0, 0, "%s: bad ELF header: gelf_getehdr: %s", path,
             elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  if (ehdr->e_ident[EI_CLASS] != ELFCLASS64)
    {
      error (0, 0, "%s: 32-bit ELF files are not supported", path);
      return EXIT_BADINPUT;
    }
  if (ehdr->e_ident[EI_DATA] != ELFDATA2LSB)
    {
      error (0, 0, "%s: big-endian ELF files are not supported", path);
      return EXIT_BADINPUT;
    }
  switch (ehdr->e_machine)
    {
    case EM_X86_64:
      b->arch = GO_ARCH_AMD64;
      break;
    case EM_AARCH64:
      b->arch = GO_ARCH_ARM64;
      break;
    default:
      error (0, 0, "%s: unsupported architecture (ELF machine %u); "
             "gostap reads x86-64 and aarch64 binaries", path,
             (unsigned) ehdr->e_machine);
      return EXIT_BADINPUT;
    }
  b->ptrsize = 8;
  b->pie = ehdr->e_type == ET_DYN;
  return EXIT_OK;
}

/* What B's section headers say, when it has readable ones: .symtab and
   its function symbols, an external link, the DWARF's facts.  */
static int
read_sections (struct go_bin *b, const char *path, const GElf_Ehdr *ehdr)
{
  size_t shnum = 0, shstrndx;
  b->has_section_headers = elf_getshdrnum (b->io->elf, &shnum) == 0 && shnum > 1
    && elf_getshdrstrndx (b->io->elf, &shstrndx) == 0
    && elf_getscn (b->io->elf, 1) != NULL;
  if (!b->has_section_headers && ehdr->e_shoff != 0)
    error (0, 0, "%s: warning: unreadable section headers (%s); using the "
           "program headers only", path, elf_errmsg (-1));
  if (!b->has_section_headers)
    return EXIT_OK;
  GElf_Shdr sh;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (b->io->elf, scn)) != NULL)
    {
      GElf_Shdr *s = gelf_getshdr (scn, &sh);
      if (s != NULL && s->sh_type == SHT_SYMTAB && s->sh_size > 0)
        b->has_symtab = true;
    }
  if (b->has_symtab
      && elf_function_symbols (b->io->elf, path, &b->io->syms, &b->io->nsyms) != 0)
    return EXIT_ERROR;
  /* Go's own linker writes no .comment; gcc and clang do.  */
  b->external_link = gobin_section (b, ".comment", &sh) != NULL;
  read_dwarf_facts (b);
  return EXIT_OK;
}

int
gobin_elf_open (struct go_bin *b, const char *path)
{
  int ret;
  GElf_Ehdr ehdr;
  elf_version (EV_CURRENT);
  if ((ret = open_file (b, path)) != EXIT_OK
      || (ret = read_header (b, path, &ehdr)) != EXIT_OK
      || (ret = read_segments (b)) != EXIT_OK
      || (ret = read_sections (b, path, &ehdr)) != EXIT_OK)
    return ret;
  read_build_id (b);
  return EXIT_OK;
}

void
gobin_elf_fini (struct go_bin *b)
{
  free (b->io->syms);
  free (b->segs);
  free (b->abspath);
  if (b->io->elf != NULL)
    elf_end (b->io->elf);
  if (b->io->image_map != NULL)
    munmap (b->io->image_map, b->io->image_map_len);
  if (b->io->fd >= 0)
    close (b->io->fd);
  b->io->image_map = NULL;
  b->image = NULL;
  b->io->syms = NULL;
  b->segs = NULL;
  b->abspath = NULL;
  b->io->elf = NULL;
  b->io->fd = -1;
}
