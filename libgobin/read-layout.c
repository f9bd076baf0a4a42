/* read-layout.c: offsets of the runtime structures a tracer reads (g, m,
   gobuf, p, mcache), from the binary's DWARF when it has some, else from a table per
   Go release (measured from the DWARF of each release's binaries; the test
   suite compares the two on every fixture that has DWARF).  */

#include "config.h"

#include <error.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "reader.h"

/* Field descriptors: struct name, member path, where the offset goes.  */
struct field
{
  const char *type;
  const char *member;
  const char *sub;      /* member of the member, or NULL */
  size_t slot;          /* offsetof (struct go_layout, ...) */
};

#define SLOT(x) offsetof (struct go_layout, x)
static const struct field fields[] = {
  { "runtime.g", "stack", "lo", SLOT (g_stack_lo) },
  { "runtime.g", "stack", "hi", SLOT (g_stack_hi) },
  { "runtime.g", "stackguard0", NULL, SLOT (g_stackguard0) },
  { "runtime.g", "m", NULL, SLOT (g_m) },
  { "runtime.g", "sched", NULL, SLOT (g_sched) },
  { "runtime.g", "atomicstatus", NULL, SLOT (g_atomicstatus) },
  { "runtime.g", "goid", NULL, SLOT (g_goid) },
  { "runtime.g", "parentGoid", NULL, SLOT (g_parentgoid) },
  { "runtime.g", "labels", NULL, SLOT (g_labels) },
  { "runtime.m", "g0", NULL, SLOT (m_g0) },
  { "runtime.m", "morebuf", NULL, SLOT (m_morebuf) },
  { "runtime.m", "curg", NULL, SLOT (m_curg) },
  { "runtime.gobuf", "sp", NULL, SLOT (gobuf_sp) },
  { "runtime.gobuf", "pc", NULL, SLOT (gobuf_pc) },
  { "runtime.gobuf", "g", NULL, SLOT (gobuf_g) },
  { "runtime.gobuf", "lr", NULL, SLOT (gobuf_lr) },
  { "runtime.gobuf", "bp", NULL, SLOT (gobuf_bp) },
  { "runtime.m", "p", NULL, SLOT (m_p) },
  { "runtime.p", "mcache", NULL, SLOT (p_mcache) },
  { "runtime.mcache", "nextSample", NULL, SLOT (mcache_nextsample) },
};
#define NTYPES 5
static const char *const type_names[NTYPES] = {
  "runtime.g", "runtime.m", "runtime.gobuf", "runtime.p", "runtime.mcache"
};

/* Per-release table for binaries without DWARF, read from the DWARF of
   Go 1.19, 1.21-1.24, 1.26, 1.27 binaries for amd64 and arm64 (they agree);
   1.20 and 1.25 are assumed to match their neighbours.  -1: absent.
   run-gen.sh checks the table against DWARF for every fixture.  */
static const struct
{
  int min_minor, max_minor;
  struct go_layout l;
} table[] = {
  /* g: lo hi guard0 m sched status goid parentGoid labels; m: g0 morebuf curg;
     gobuf: sp pc g lr bp; m.p p.mcache mcache.nextSample */
  { 17, 20, { 0, 8, 16, 48, 56, 144, 152, -1, 360, 0, 8, 192, 0, 8, 16, 40, 48,
              208, 64, 0, false } },
  { 21, 22, { 0, 8, 16, 48, 56, 144, 152, 272, 344, 0, 8, 192, 0, 8, 16, 40, 48,
              208, 64, 0, false } },
  { 23, 24, { 0, 8, 16, 48, 56, 152, 160, 280, 352, 0, 8, 192, 0, 8, 16, 40, 48,
              208, 56, 0, false } },
  { 25, 99, { 0, 8, 16, 48, 56, 144, 152, 280, 352, 0, 8, 184, 0, 8, 16, 32, 40,
              208, 56, 0, false } },
};

static bool
member_offset (Dwarf_Die *type, const char *name, Dwarf_Word *off,
               Dwarf_Die *member_type)
{
  Dwarf_Die child;
  if (dwarf_child (type, &child) != 0)
    return false;
  do
    {
      if (dwarf_tag (&child) != DW_TAG_member)
        continue;
      const char *n = dwarf_diename (&child);
      if (n == NULL || strcmp (n, name) != 0)
        continue;
      Dwarf_Attribute a;
      if (dwarf_attr (&child, DW_AT_data_member_location, &a) == NULL
          || dwarf_formudata (&a, off) != 0)
        return false;
      if (member_type != NULL
          && (dwarf_attr (&child, DW_AT_type, &a) == NULL
              || dwarf_formref_die (&a, member_type) == NULL))
        return false;
      return true;
    }
  while (dwarf_siblingof (&child, &child) == 0);
  return false;
}

/* Fill L from DWARF; true when every structure was found.  */
static bool
layout_from_dwarf (const struct go_bin *b, struct go_layout *l)
{
  Dwarf *dw = gobin_dwarf (b);
  if (dw == NULL)
    return false;
  Dwarf_Die types[NTYPES];
  bool found[NTYPES] = { false };
  int nfound = 0;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (nfound < NTYPES
         && dwarf_nextcu (dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu, die;
      if (dwarf_offdie (dw, off + hsize, &cu) != NULL
          && dwarf_child (&cu, &die) == 0)
        do
          {
            if (dwarf_tag (&die) != DW_TAG_structure_type)
              continue;
            const char *n = dwarf_diename (&die);
            for (int i = 0; n != NULL && i < NTYPES; i++)
              if (!found[i] && strcmp (n, type_names[i]) == 0)
                {
                  types[i] = die;
                  found[i] = true;
                  nfound++;
                }
          }
        while (nfound < NTYPES && dwarf_siblingof (&die, &die) == 0);
      off = next;
    }
  bool ok = nfound == NTYPES;
  for (size_t i = 0; ok && i < sizeof fields / sizeof fields[0]; i++)
    {
      const struct field *f = &fields[i];
      int t = 0;
      while (t < NTYPES - 1 && strcmp (f->type, type_names[t]) != 0)
        t++;
      Dwarf_Word o1, o2 = 0;
      Dwarf_Die mt;
      long *slot = (long *) ((char *) l + f->slot);
      if (!member_offset (&types[t], f->member, &o1, f->sub ? &mt : NULL))
        {
          *slot = -1;           /* e.g. parentGoid, or lr on amd64 */
          continue;
        }
      if (f->sub != NULL
          && (dwarf_peel_type (&mt, &mt) != 0
              || !member_offset (&mt, f->sub, &o2, NULL)))
        ok = false;
      *slot = (long) (o1 + o2);
    }
  return ok;
}

int
gobin_runtime_layout (const struct go_bin *b, struct go_layout *l)
{
  if (layout_from_dwarf (b, l))
    {
      l->from_dwarf = true;
      return 0;
    }
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (b->go_minor >= table[i].min_minor && b->go_minor <= table[i].max_minor)
      {
        *l = table[i].l;
        l->from_dwarf = false;
        return 0;
      }
  error (0, 0, "%s: no runtime layout known for %s without DWARF", b->path,
         b->go_version[0] ? b->go_version : "this Go version");
  return -1;
}

/* The PT_TLS segment, if any.  */
static bool
tls_segment (const struct go_bin *b, GElf_Phdr *tls)
{
  size_t phnum;
  if (elf_getphdrnum (b->io->elf, &phnum) != 0)
    return false;
  for (size_t i = 0; i < phnum; i++)
    if (gelf_getphdr (b->io->elf, (int) i, tls) != NULL && tls->p_type == PT_TLS)
      return true;
  return false;
}

/* Where g lives relative to the thread pointer (facts.md, "Goroutine
   context"), for code that does not keep g in a register:
   x86-64, Go's own linker: FS - 8; external linking (cgo):
     FS + runtime.tlsg - round_up(PT_TLS memsz, PT_TLS align);
   arm64: TPIDR_EL0 + runtime.tls_g + 16 + ((PT_TLS vaddr - 16) & (align-1)),
     and no TLS slot at all without cgo (g lives in R28 only).
   Without .symtab runtime.tlsg / tls_g are taken as 0, where Go's linker
   puts them.  False when g has no TLS slot.  */
bool
gobin_tls_g_offset (const struct go_bin *b, long *off)
{
  GElf_Phdr tls;
  uint64_t sym = 0;
  bool have_tls = tls_segment (b, &tls);
  if (b->arch == GO_ARCH_AMD64)
    {
      if (!have_tls || !b->external_link)
        {
          *off = -8;
          return true;
        }
      gobin_symbol (b, "runtime.tlsg", &sym, NULL);
      uint64_t align = tls.p_align ? tls.p_align : 1;
      uint64_t size = (tls.p_memsz + align - 1) / align * align;
      *off = (long) sym - (long) size;
      return true;
    }
  if (!have_tls)
    return false;
  gobin_symbol (b, "runtime.tls_g", &sym, NULL);
  uint64_t align = tls.p_align ? tls.p_align : 1;
  *off = (long) (sym + 16 + ((tls.p_vaddr - 16) & (align - 1)));
  return true;
}

void
gobin_wait_reasons (const struct go_bin *b, char ***names, size_t *n)
{
  *names = NULL;
  *n = 0;
  uint64_t addr, size;
  /* [N]string: a pointer and a length each.  */
  if (b->ptrsize != 8
      || !gobin_symbol (b, "runtime.waitReasonStrings", &addr, &size)
      || size % 16 != 0 || size == 0 || size / 16 > 256)
    return;
  size_t count = size / 16;
  const uint8_t *p = gobin_vaddr (b, addr, size, NULL);
  char **v = p != NULL ? calloc (count, sizeof *v) : NULL;
  if (v == NULL)
    return;
  for (size_t i = 0; i < count; i++)
    {
      uint64_t ptr = gobin_read_uint (b, p + 16 * i, 8);
      uint64_t len = gobin_read_uint (b, p + 16 * i + 8, 8);
      const uint8_t *str = len > 0 && len <= 64
        ? gobin_vaddr (b, ptr, len, NULL) : NULL;
      bool ok = str != NULL;
      for (uint64_t k = 0; ok && k < len; k++)
        ok = str[k] >= 0x20 && str[k] <= 0x7e;
      if (ok)
        v[i] = strndup ((const char *) str, len);
    }
  *names = v;
  *n = count;
}

void
gobin_wait_reasons_free (char **names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (names[i]);
  free (names);
}
