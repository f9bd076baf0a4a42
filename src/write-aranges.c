/* write-aranges.c: a copy of an ELF file with DWARF that carries a
   .debug_aranges section, for SystemTap on libdw before 0.191.

   Go's linker writes no .debug_aranges, and libdw before 0.191 finds the
   compile unit of an address only through that section, so stap on such
   a libdw resolves no statement probe in Go code (facts.md 2).  The copy
   holds every byte of the original file at the same offset (what the
   kernel maps and uprobes place probes in is unchanged), then, past its
   end: .debug_aranges with one set per compile unit (the unit's ranges,
   from DW_AT_low_pc/high_pc or DW_AT_ranges, as libdw reads them), a
   section name table with the new name added, and a new section header
   table that the ELF header points to.  An existing .debug_aranges (a cgo
   binary's, for the C units only) is kept under another name.

   Only 64-bit little-endian files (amd64, arm64: the architectures gostap
   reads) with 32-bit DWARF units, which is what Go writes.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "write.h"

/* A growable byte buffer; OOM sticks.  */
struct bytes
{
  unsigned char *p;
  size_t n, cap;
  bool oom;
};

static void
bytes_put (struct bytes *b, const void *v, size_t n)
{
  if (b->oom)
    return;
  if (b->cap - b->n < n)
    {
      size_t cap = b->cap ? b->cap : 4096;
      while (cap - b->n < n)
        cap *= 2;
      unsigned char *p = realloc (b->p, cap);
      if (p == NULL)
        {
          b->oom = true;
          return;
        }
      b->p = p;
      b->cap = cap;
    }
  memcpy (b->p + b->n, v, n);
  b->n += n;
}

/* V as SIZE little-endian bytes.  */
static void
bytes_le (struct bytes *b, uint64_t v, unsigned size)
{
  unsigned char c[8];
  for (unsigned i = 0; i < size; i++)
    c[i] = (unsigned char) (v >> (8 * i));
  bytes_put (b, c, size);
}

static void
bytes_zero (struct bytes *b, size_t n)
{
  static const unsigned char z[16];
  while (n > 0 && !b->oom)
    {
      size_t k = n < sizeof z ? n : sizeof z;
      bytes_put (b, z, k);
      n -= k;
    }
}

/* One arange set (DWARF 4, 6.1.2) for the unit at OFF whose DIE is CU:
   its ranges, or nothing for a unit without code.  0, or -1 after one
   line naming PATH.  */
static int
arange_set (struct bytes *out, Dwarf_Die *cu, Dwarf_Off off,
            const char *path)
{
  struct bytes set = { 0 };
  Dwarf_Addr base, start, end;
  ptrdiff_t at = 0;
  size_t n = 0;
  bytes_le (&set, 2, 2);                /* version */
  bytes_le (&set, off, 4);              /* debug_info_offset */
  bytes_le (&set, 8, 1);                /* address_size */
  bytes_le (&set, 0, 1);                /* segment_selector_size */
  bytes_zero (&set, 4);                 /* to twice the address size,
                                           with the length word */
  while ((at = dwarf_ranges (cu, at, &base, &start, &end)) > 0)
    if (end > start)
      {
        bytes_le (&set, start, 8);
        bytes_le (&set, end - start, 8);
        n++;
      }
  if (at < 0)
    {
      error (0, 0, "%s: dwarf_ranges of the unit at 0x%llx: %s", path,
             (unsigned long long) off, dwarf_errmsg (-1));
      free (set.p);
      return -1;
    }
  bytes_zero (&set, 16);
  if (n > 0 && !set.oom)
    {
      bytes_le (out, set.n, 4);
      bytes_put (out, set.p, set.n);
    }
  out->oom |= set.oom;
  free (set.p);
  return 0;
}

/* .debug_aranges for every unit of DW into OUT.  0, or -1 after one
   line.  */
static int
build_aranges (Dwarf *dw, const char *path, struct bytes *out)
{
  Dwarf_Off off = 0, next;
  size_t hsize;
  uint8_t offset_size;
  int r;
  while ((r = dwarf_next_unit (dw, off, &next, &hsize, NULL, NULL, NULL,
                               &offset_size, NULL, NULL)) == 0)
    {
      Dwarf_Die cu;
      if (offset_size != 4)
        {
          error (0, 0, "%s: the unit at 0x%llx is 64-bit DWARF, which Go "
                 "does not write", path, (unsigned long long) off);
          return -1;
        }
      if (dwarf_offdie (dw, off + hsize, &cu) == NULL)
        {
          error (0, 0, "%s: dwarf_offdie at 0x%llx: %s", path,
                 (unsigned long long) (off + hsize), dwarf_errmsg (-1));
          return -1;
        }
      if (arange_set (out, &cu, off, path) != 0)
        return -1;
      off = next;
    }
  if (r < 0)
    {
      error (0, 0, "%s: dwarf_next_unit: %s", path, dwarf_errmsg (-1));
      return -1;
    }
  return 0;
}

/* Write N bytes of P to FD.  0, or -1 with errno.  */
static int
write_all (int fd, const void *p, size_t n)
{
  const unsigned char *c = p;
  while (n > 0)
    {
      ssize_t k = write (fd, c, n);
      if (k < 0 && errno == EINTR)
        continue;
      if (k < 0)
        return -1;
      c += k;
      n -= (size_t) k;
    }
  return 0;
}

/* The ELF header of ELF into *EHDR, its number of sections *SHNUM and
   its section name table, index *SHSTRNDX, whose bytes are *STRD.  0,
   or -1 after one line naming PATH.  */
static int
name_table (Elf *elf, const char *path, GElf_Ehdr *ehdr, size_t *shnum,
            size_t *shstrndx, Elf_Data **strd)
{
  GElf_Shdr strh;
  Elf_Scn *strs;
  if (gelf_getehdr (elf, ehdr) == NULL || elf_getshdrnum (elf, shnum) != 0
      || elf_getshdrstrndx (elf, shstrndx) != 0)
    {
      error (0, 0, "%s: gelf_getehdr: %s", path, elf_errmsg (-1));
      return -1;
    }
  if (*shnum == 0 || *shnum + 1 >= SHN_LORESERVE || *shstrndx == 0
      || *shstrndx >= SHN_LORESERVE)
    {
      error (0, 0, "%s: no usable section header table", path);
      return -1;
    }
  *strd = NULL;
  strs = elf_getscn (elf, *shstrndx);
  if (strs == NULL || gelf_getshdr (strs, &strh) == NULL
      || (*strd = elf_rawdata (strs, NULL)) == NULL)
    {
      error (0, 0, "%s: the section name table: %s", path, elf_errmsg (-1));
      return -1;
    }
  return 0;
}

/* The section header SH, as the file's bytes, onto TAIL.  0, or -1
   after one line naming PATH.  */
static int
put_shdr (struct bytes *tail, const GElf_Shdr *sh, const char *path)
{
  Elf64_Shdr raw = {
    .sh_name = sh->sh_name, .sh_type = sh->sh_type,
    .sh_flags = sh->sh_flags, .sh_addr = sh->sh_addr,
    .sh_offset = sh->sh_offset, .sh_size = sh->sh_size,
    .sh_link = sh->sh_link, .sh_info = sh->sh_info,
    .sh_addralign = sh->sh_addralign, .sh_entsize = sh->sh_entsize,
  };
  /* The file's byte order (little-endian, checked by the caller) is
     the host's on amd64 and arm64 hosts; elf64_xlatetof makes it so
     anywhere.  */
  Elf_Data src = { .d_buf = &raw, .d_type = ELF_T_SHDR,
                   .d_size = sizeof raw, .d_version = EV_CURRENT };
  Elf_Data dst = { .d_buf = &raw, .d_size = sizeof raw,
                   .d_version = EV_CURRENT };
  if (elf64_xlatetof (&dst, &src, ELFDATA2LSB) == NULL)
    {
      error (0, 0, "%s: elf64_xlatetof: %s", path, elf_errmsg (-1));
      return -1;
    }
  bytes_put (tail, &raw, sizeof raw);
  return 0;
}

/* The tail after the original bytes (SIZE of them): padding, ARANGES,
   the name table with the new names, padding, the section headers; and
   the ELF header pointing to them, into *EHDR.  0, or -1 after one
   line.  */
static int
build_tail (Elf *elf, size_t size, const struct bytes *aranges,
            const char *path, struct bytes *tail, GElf_Ehdr *ehdr)
{
  static const char new_name[] = ".debug_aranges",
    old_name[] = ".debug_aranges.before-gostap";
  size_t shnum, shstrndx;
  Elf_Data *strd;
  if (name_table (elf, path, ehdr, &shnum, &shstrndx, &strd) != 0)
    return -1;
  /* Padding, then .debug_aranges.  */
  size_t at = size;
  size_t pad = (8 - at % 8) % 8;
  bytes_zero (tail, pad);
  uint64_t aranges_off = at + pad;
  bytes_put (tail, aranges->p, aranges->n);
  /* The name table, with the new names.  */
  uint64_t strtab_off = aranges_off + aranges->n;
  bytes_put (tail, strd->d_buf, strd->d_size);
  uint64_t new_at = strd->d_size, old_at = new_at + sizeof new_name;
  bytes_put (tail, new_name, sizeof new_name);
  bytes_put (tail, old_name, sizeof old_name);
  uint64_t strtab_size = strd->d_size + sizeof new_name + sizeof old_name;
  /* The section headers, 8-aligned.  */
  uint64_t end = strtab_off + strtab_size;
  bytes_zero (tail, (8 - end % 8) % 8);
  uint64_t shoff = end + (8 - end % 8) % 8;
  for (size_t i = 0; i < shnum + 1; i++)
    {
      GElf_Shdr sh;
      if (i < shnum)
        {
          const char *name;
          Elf_Scn *s = elf_getscn (elf, i);
          if (s == NULL || gelf_getshdr (s, &sh) == NULL)
            {
              error (0, 0, "%s: section %zu: %s", path, i, elf_errmsg (-1));
              return -1;
            }
          if (i == shstrndx)
            {
              sh.sh_offset = strtab_off;
              sh.sh_size = strtab_size;
            }
          else if ((name = elf_strptr (elf, shstrndx, sh.sh_name)) != NULL
                   && strcmp (name, new_name) == 0)
            sh.sh_name = (GElf_Word) old_at;
        }
      else
        sh = (GElf_Shdr) { .sh_name = (GElf_Word) new_at,
                           .sh_type = SHT_PROGBITS,
                           .sh_offset = aranges_off,
                           .sh_size = aranges->n, .sh_addralign = 1 };
      if (put_shdr (tail, &sh, path) != 0)
        return -1;
    }
  ehdr->e_shoff = shoff;
  ehdr->e_shnum = (GElf_Half) (shnum + 1);
  return tail->oom ? -1 : 0;
}

/* The ELF header of IMAGE with EHDR's section header table, as the
   file's bytes, into *RAW.  0, or -1 after one line naming PATH.  */
static int
patched_ehdr (const char *image, const GElf_Ehdr *ehdr, Elf64_Ehdr *raw,
              const char *path)
{
  memcpy (raw, image, sizeof *raw);
  raw->e_shoff = ehdr->e_shoff;
  raw->e_shnum = ehdr->e_shnum;
  /* Byte order: as for the section headers (put_shdr).  */
  Elf_Data src = { .d_buf = raw, .d_type = ELF_T_EHDR,
                   .d_size = sizeof *raw, .d_version = EV_CURRENT };
  Elf_Data dst = { .d_buf = raw, .d_size = sizeof *raw,
                   .d_version = EV_CURRENT };
  if (elf64_xlatetof (&dst, &src, ELFDATA2LSB) == NULL)
    {
      error (0, 0, "%s: elf64_xlatetof: %s", path, elf_errmsg (-1));
      return -1;
    }
  return 0;
}

/* Write the copy TO, under a temporary name then renamed: the header
   RAW, the rest of the SIZE bytes of IMAGE, then TAIL.  EXIT_OK, or
   EXIT_ERROR after one line (and no file left).  */
static int
write_copy (const char *to, const Elf64_Ehdr *raw, const char *image,
            size_t size, const struct bytes *tail)
{
  char *tmp = NULL;
  int fd = -1, ret = EXIT_ERROR;
  if (asprintf (&tmp, "%s.tmp.XXXXXX", to) < 0)
    {
      tmp = NULL;
      error (0, errno, "asprintf");
      goto out;
    }
  fd = mkstemp (tmp);
  if (fd < 0)
    {
      error (0, errno, "cannot create '%s'", tmp);
      goto out;
    }
  if (write_all (fd, raw, sizeof *raw) != 0
      || write_all (fd, image + sizeof *raw, size - sizeof *raw) != 0
      || write_all (fd, tail->p, tail->n) != 0
      || fchmod (fd, 0755) != 0)
    {
      error (0, errno, "%s: write", tmp);
      goto out;
    }
  int published = publish_tmp (fd, tmp, to);
  fd = -1;
  if (published != 0)
    goto out;
  ret = EXIT_OK;
out:
  if (fd >= 0)
    close (fd);
  if (ret != EXIT_OK && tmp != NULL)
    unlink (tmp);
  free (tmp);
  return ret;
}

int
write_aranges_copy (const char *path, Dwarf *dw, const char *to)
{
  struct bytes aranges = { 0 }, tail = { 0 };
  int ret = EXIT_ERROR;
  size_t size;
  /* The file opened again: libdw inflates compressed sections in the
     Elf it reads, headers included, and the copy needs them as they are
     in the file; read, not mapped, for the bytes on disk rather than the
     breakpoints of another tracer's uprobes (read-elf.c).  */
  int in = open (path, O_RDONLY | O_CLOEXEC);
  Elf *elf = in >= 0 ? elf_begin (in, ELF_C_READ, NULL) : NULL;
  const char *image = elf != NULL ? elf_rawfile (elf, &size) : NULL;
  const unsigned char *ident = (const unsigned char *) image;
  if (in < 0)
    {
      error (0, errno, "cannot open '%s'", path);
      return EXIT_ERROR;
    }
  if (image == NULL || size < sizeof (Elf64_Ehdr))
    {
      error (0, 0, "%s: elf_begin: %s", path, elf_errmsg (-1));
      goto out;
    }
  if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
    {
      error (0, 0, "%s: not a 64-bit little-endian ELF file: gostap adds "
             ".debug_aranges to amd64 and arm64 binaries", path);
      ret = EXIT_BADINPUT;
      goto out;
    }
  GElf_Ehdr ehdr;
  if (build_aranges (dw, path, &aranges) != 0)
    goto out;
  if (aranges.n == 0)
    {
      error (0, 0, "%s: no DWARF unit covers any code: there is nothing "
             "to put in .debug_aranges", path);
      ret = EXIT_BADINPUT;
      goto out;
    }
  if (build_tail (elf, size, &aranges, path, &tail, &ehdr) != 0)
    {
      if (tail.oom || aranges.oom)
        error (0, ENOMEM, "%s", path);
      goto out;
    }
  Elf64_Ehdr raw;
  if (patched_ehdr (image, &ehdr, &raw, path) != 0)
    goto out;
  ret = write_copy (to, &raw, image, size, &tail);
out:
  elf_end (elf);
  close (in);
  free (aranges.p);
  free (tail.p);
  return ret;
}
