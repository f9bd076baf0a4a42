/* read-elf.c: open a Go binary, check what kind of ELF file it is, and give
   bounds-checked access to its bytes by file offset and by virtual address.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "gobin.h"

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

bool
gobin_vaddr_to_off (const struct go_bin *b, uint64_t vaddr, uint64_t *off)
{
  for (size_t i = 0; i < b->nsegs; i++)
    {
      const struct go_seg *s = &b->segs[i];
      if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
        {
          *off = s->offset + (vaddr - s->vaddr);
          return true;
        }
    }
  return false;
}

bool
gobin_off_to_vaddr (const struct go_bin *b, uint64_t off, uint64_t *vaddr)
{
  for (size_t i = 0; i < b->nsegs; i++)
    {
      const struct go_seg *s = &b->segs[i];
      if (off >= s->offset && off - s->offset < s->filesz)
        {
          *vaddr = s->vaddr + (off - s->offset);
          return true;
        }
    }
  return false;
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

Elf_Scn *
gobin_section (const struct go_bin *b, const char *name, GElf_Shdr *shdr)
{
  size_t shstrndx;
  if (!b->has_section_headers || elf_getshdrstrndx (b->elf, &shstrndx) != 0)
    return NULL;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (b->elf, scn)) != NULL)
    {
      GElf_Shdr mem;
      GElf_Shdr *sh = gelf_getshdr (scn, &mem);
      if (sh == NULL)
        continue;
      const char *n = elf_strptr (b->elf, shstrndx, sh->sh_name);
      if (n != NULL && strcmp (n, name) == 0)
        {
          if (shdr)
            *shdr = *sh;
          return scn;
        }
    }
  return NULL;
}

/* Look NAME up in .symtab (linear: used for a handful of names).  */
bool
gobin_symbol (const struct go_bin *b, const char *name, uint64_t *value,
              uint64_t *size)
{
  if (!b->has_symtab)
    return false;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn (b->elf, scn)) != NULL)
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
          const char *s = elf_strptr (b->elf, sh->sh_link, sym.st_name);
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

static int
compare_sym (const void *a, const void *b)
{
  const struct go_sym *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Index the function symbols of .symtab by address.  */
static int
read_symbols (struct go_bin *b)
{
  Elf_Scn *scn = NULL;
  size_t cap = 0;
  while ((scn = elf_nextscn (b->elf, scn)) != NULL)
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
          if (GELF_ST_TYPE (sym.st_info) != STT_FUNC)
            continue;
          const char *name = elf_strptr (b->elf, sh->sh_link, sym.st_name);
          if (name == NULL)
            continue;
          if (b->nsyms == cap)
            {
              cap = cap ? 2 * cap : 1024;
              struct go_sym *nv = reallocarray (b->syms, cap, sizeof *nv);
              if (nv == NULL)
                {
                  error (0, errno, "reallocarray");
                  return EXIT_ERROR;
                }
              b->syms = nv;
            }
          b->syms[b->nsyms++] = (struct go_sym) { sym.st_value, name };
        }
    }
  if (b->nsyms > 0)
    qsort (b->syms, b->nsyms, sizeof *b->syms, compare_sym);
  return EXIT_OK;
}

/* The first function symbol at ADDR, or NULL.  */
const char *
gobin_symbol_at (const struct go_bin *b, uint64_t addr)
{
  size_t lo = 0, hi = b->nsyms;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (b->syms[mid].addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < b->nsyms && b->syms[lo].addr == addr ? b->syms[lo].name : NULL;
}

static int
read_segments (struct go_bin *b)
{
  size_t phnum;
  if (elf_getphdrnum (b->elf, &phnum) != 0)
    {
      error (0, 0, "%s: cannot read program headers: elf_getphdrnum: %s",
             b->path, elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  GElf_Ehdr eh;
  if (gelf_getehdr (b->elf, &eh) != NULL
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
      GElf_Phdr *ph = gelf_getphdr (b->elf, (int) i, &mem);
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
  if (elf_getphdrnum (b->elf, &phnum) != 0)
    return;
  for (size_t i = 0; i < phnum; i++)
    {
      GElf_Phdr mem;
      GElf_Phdr *ph = gelf_getphdr (b->elf, (int) i, &mem);
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
              return;
            }
          if (namesz == 4 && memcmp (p + name, "GNU", 4) == 0
              && type == NT_GNU_BUILD_ID && descsz * 2 < sizeof gnu)
            for (uint32_t k = 0; k < descsz; k++)
              snprintf (gnu + 2 * k, 3, "%02x", p[desc + k]);
          pos = next;
        }
    }
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

/* DWARF sections gostap has no use for: location lists (argument
   locations come from types and Go's ABI) and call-frame information.  In
   a Go binary they are over half of the DWARF, and libdw 0.188 inflates
   every compressed section it is given when it opens them.  */
static bool
dwarf_section_unused (const char *name)
{
  static const char *const unused[] = { "loc", "loclists", "frame" };
  const char *base = strncmp (name, ".debug_", 7) == 0 ? name + 7
    : strncmp (name, ".zdebug_", 8) == 0 ? name + 8 : NULL;
  if (base == NULL)
    return true;                /* not DWARF at all */
  for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
    if (strcmp (base, unused[i]) == 0)
      return true;
  return false;
}

/* The name of SCN when it is a DWARF section with contents that gostap
   reads, else NULL; its header in *SH.  */
static const char *
kept_section (const struct go_bin *b, Elf_Scn *scn, size_t shstrndx,
              GElf_Shdr *sh)
{
  const char *name;
  if (gelf_getshdr (scn, sh) == NULL || sh->sh_type == SHT_NOBITS
      || (name = elf_strptr (b->elf, shstrndx, sh->sh_name)) == NULL
      || dwarf_section_unused (name))
    return NULL;
  return name;
}

/* An ELF image in memory with only the DWARF sections gostap reads,
   copied as they are (compressed or not), for dwarf_begin_elf: NULL when
   it cannot be made (the caller then gives libdw the whole file).  */
static Elf *
dwarf_subset (const struct go_bin *b, void **imagep)
{
  size_t shstrndx, nkeep = 0, datasize = 0, namesize = 1;
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  if (elf_getshdrstrndx (b->elf, &shstrndx) != 0)
    return NULL;
  while ((scn = elf_nextscn (b->elf, scn)) != NULL)
    {
      const char *name = kept_section (b, scn, shstrndx, &sh);
      if (name == NULL)
        continue;
      if (gobin_at (b, sh.sh_offset, sh.sh_size) == NULL)
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
  size_t size = shdrs_at + nsh * sizeof (Elf64_Shdr);
  unsigned char *img = calloc (1, size);
  if (img == NULL)
    return NULL;
  Elf64_Ehdr *eh = (Elf64_Ehdr *) img;
  Elf64_Shdr *out = (Elf64_Shdr *) (img + shdrs_at);
  GElf_Ehdr orig;
  if (gelf_getehdr (b->elf, &orig) == NULL)
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
  while ((scn = elf_nextscn (b->elf, scn)) != NULL)
    {
      const char *n = kept_section (b, scn, shstrndx, &sh);
      if (n == NULL)
        continue;
      memcpy (img + data, gobin_at (b, sh.sh_offset, sh.sh_size), sh.sh_size);
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
  Elf *e = elf_memory ((char *) img, size);
  if (e == NULL)
    {
      free (img);
      return NULL;
    }
  *imagep = img;
  return e;
}

Dwarf *
gobin_dwarf (const struct go_bin *b)
{
  /* The one place that writes the cache fields (see gobin.h).  */
  struct go_bin *m = (struct go_bin *) b;
  if (m->dwarf_tried || !m->has_dwarf)
    {
      m->dwarf_tried = true;
      return m->dwarf;
    }
  m->dwarf_tried = true;
  m->dwarf_elf = dwarf_subset (m, &m->dwarf_image);
  if (m->dwarf_elf != NULL)
    m->dwarf = dwarf_begin_elf (m->dwarf_elf, DWARF_C_READ, NULL);
  if (m->dwarf == NULL)
    m->dwarf = dwarf_begin_elf (m->elf, DWARF_C_READ, NULL);
  return m->dwarf;
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

int
gobin_open (struct go_bin *b, const char *path)
{
  int ret;
  memset (b, 0, sizeof *b);
  b->fd = -1;
  b->path = path;

  elf_version (EV_CURRENT);
  b->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (b->fd < 0)
    {
      error (0, errno, "%s: cannot open", path);
      return errno == ENOENT || errno == EACCES ? EXIT_BADINPUT : EXIT_ERROR;
    }
  struct stat st;
  if (fstat (b->fd, &st) != 0)
    {
      error (0, errno, "%s: fstat", path);
      return EXIT_ERROR;
    }
  if (!S_ISREG (st.st_mode))
    {
      error (0, 0, "%s: not a regular file", path);
      return EXIT_BADINPUT;
    }
  b->abspath = realpath (path, NULL);
  if (b->abspath == NULL)
    {
      error (0, errno, "%s: realpath", path);
      return EXIT_ERROR;
    }
  b->elf = elf_begin (b->fd, ELF_C_READ_MMAP, NULL);
  if (b->elf == NULL)
    {
      error (0, 0, "%s: not an ELF file: elf_begin: %s", path,
             elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  if (elf_kind (b->elf) != ELF_K_ELF)
    {
      error (0, 0, "%s: not an ELF file", path);
      return EXIT_BADINPUT;
    }
  b->image = (const uint8_t *) elf_rawfile (b->elf, &b->size);
  if (b->image == NULL)
    {
      error (0, 0, "%s: cannot read the file: elf_rawfile: %s", path,
             elf_errmsg (-1));
      return EXIT_BADINPUT;
    }

  GElf_Ehdr ehdr;
  if (gelf_getehdr (b->elf, &ehdr) == NULL)
    {
      error (0, 0, "%s: bad ELF header: gelf_getehdr: %s", path,
             elf_errmsg (-1));
      return EXIT_BADINPUT;
    }
  if (ehdr.e_ident[EI_CLASS] != ELFCLASS64)
    {
      error (0, 0, "%s: 32-bit ELF files are not supported", path);
      return EXIT_BADINPUT;
    }
  if (ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
    {
      error (0, 0, "%s: big-endian ELF files are not supported", path);
      return EXIT_BADINPUT;
    }
  switch (ehdr.e_machine)
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
             (unsigned) ehdr.e_machine);
      return EXIT_BADINPUT;
    }
  b->ptrsize = 8;
  b->pie = ehdr.e_type == ET_DYN;

  if ((ret = read_segments (b)) != EXIT_OK)
    return ret;

  size_t shnum = 0, shstrndx;
  b->has_section_headers = elf_getshdrnum (b->elf, &shnum) == 0 && shnum > 1
    && elf_getshdrstrndx (b->elf, &shstrndx) == 0
    && elf_getscn (b->elf, 1) != NULL;
  if (!b->has_section_headers && ehdr.e_shoff != 0)
    error (0, 0, "%s: warning: unreadable section headers (%s); using the "
           "program headers only", path, elf_errmsg (-1));
  if (b->has_section_headers)
    {
      GElf_Shdr sh;
      Elf_Scn *scn = NULL;
      while ((scn = elf_nextscn (b->elf, scn)) != NULL)
        {
          GElf_Shdr *s = gelf_getshdr (scn, &sh);
          if (s != NULL && s->sh_type == SHT_SYMTAB && s->sh_size > 0)
            b->has_symtab = true;
        }
      if (b->has_symtab && (ret = read_symbols (b)) != EXIT_OK)
        return ret;
      /* Go's own linker writes no .comment; gcc and clang do.  */
      b->external_link = gobin_section (b, ".comment", &sh) != NULL;
      read_dwarf_facts (b);
    }
  read_build_id (b);

  if ((ret = gobin_read_buildinfo (b)) != EXIT_OK)
    return ret;
  if ((ret = gobin_read_pclntab (b)) != EXIT_OK)
    return ret;
  gobin_classify_abi (b);
  return gobin_code_init (b);
}

void
gobin_close (struct go_bin *b)
{
  gobin_code_fini (b);
  if (b->funcs != NULL)
    for (size_t i = 0; i < b->nfuncs; i++)
      {
        addr_list_free (&b->funcs[i].code.rets);
        addr_list_free (&b->funcs[i].code.tails);
        addr_list_free (&b->funcs[i].code.indirect);
        addr_list_free (&b->funcs[i].code.undecoded);
      }
  if (b->dwarf != NULL)
    dwarf_end (b->dwarf);
  if (b->dwarf_elf != NULL)
    elf_end (b->dwarf_elf);
  free (b->dwarf_image);
  free (b->funcs);
  free (b->name_buckets);
  free (b->name_chain);
  free (b->name_next);
  free (b->syms);
  free (b->segs);
  free (b->abspath);
  if (b->elf != NULL)
    elf_end (b->elf);
  if (b->fd >= 0)
    close (b->fd);
  memset (b, 0, sizeof *b);
  b->fd = -1;
}
