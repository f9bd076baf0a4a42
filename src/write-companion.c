/* write-companion.c: a companion debug file for a binary without DWARF,
   made from what its .gopclntab holds, so that SystemTap can place, name
   and unwind probes in a -s -w build (and gostap reads it as DWARF).

   The file has the shape of a separate debug file (objcopy
   --only-keep-debug): the binary's ELF header and program headers, its
   allocated sections as SHT_NOBITS (notes, the build id among them, kept),
   and:
     .symtab        every function (ABI0 code of Go 1.17+ as NAME.abi0, as
                    Go's linker names it)
     .debug_info    one DWARF 4 compile unit over the text, a subprogram
                    for every function; its producer says "gostap
                    companion", so readers know it carries no types
     .debug_aranges the unit's range (libdw before 0.191 needs it)
     .debug_line    file:line of every instruction (pcfile, pcln), with a
                    row starting at every entry, body and RET, the
                    addresses gostap probes
     .debug_frame   the CFA at every pc (pcsp), and where the return
                    address is
   Everything is taken from the model (model.h, MODEL_TABLES); the file is
   written under a temporary name and renamed.  */

#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "write.h"

/* Line program constants (DWARF 4, 6.2.5.1).  */
enum
{
  LINE_BASE = -5,
  LINE_RANGE = 14,
  OPCODE_BASE = 13,
};

/* A growable byte buffer; OOM sticks.  */
struct buf
{
  uint8_t *p;
  size_t n, cap;
  bool oom;
};

static void
put (struct buf *b, const void *v, size_t n)
{
  if (b->oom)
    return;
  if (b->cap - b->n < n)
    {
      size_t cap = b->cap ? b->cap : 4096;
      while (cap - b->n < n)
        cap *= 2;
      uint8_t *p = realloc (b->p, cap);
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

static void
u8 (struct buf *b, unsigned v)
{
  uint8_t c = (uint8_t) v;
  put (b, &c, 1);
}

/* Little-endian words: both architectures gostap reads are.  */
static void
uword (struct buf *b, uint64_t v, unsigned size)
{
  uint8_t w[8];
  for (unsigned i = 0; i < size; i++)
    w[i] = (uint8_t) (v >> (8 * i));
  put (b, w, size);
}

static void
uleb (struct buf *b, uint64_t v)
{
  do
    {
      uint8_t c = v & 0x7f;
      v >>= 7;
      u8 (b, c | (v != 0 ? 0x80 : 0));
    }
  while (v != 0);
}

static void
sleb (struct buf *b, int64_t v)
{
  for (;;)
    {
      uint8_t c = v & 0x7f;
      v >>= 7;                  /* arithmetic: sign kept */
      bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
      u8 (b, c | (done ? 0 : 0x80));
      if (done)
        return;
    }
}

static void
str (struct buf *b, const char *s)
{
  put (b, s, strlen (s) + 1);
}

/* Overwrite the 32-bit word at OFF (a length written before its data).  */
static void
patch32 (struct buf *b, size_t off, uint64_t v)
{
  if (!b->oom)
    for (unsigned i = 0; i < 4; i++)
      b->p[off + i] = (uint8_t) (v >> (8 * i));
}

/* The file table of the line program: each distinct name once, numbered
   from 1 (names are pointers into the pclntab, where each is stored once;
   NULL, an unknown file, is "?").  */
struct files
{
  const char **name;            /* open addressing on the pointer */
  uint32_t *num;
  size_t cap, n;
  struct buf table;             /* the header's file_names entries */
};

static uint32_t
file_number (struct files *t, const char *name)
{
  if (name == NULL)
    name = "?";
  if (2 * (t->n + 1) > t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 1024;
      const char **nn = calloc (cap, sizeof *nn);
      uint32_t *nu = calloc (cap, sizeof *nu);
      if (nn == NULL || nu == NULL)
        {
          free (nn);
          free (nu);
          t->table.oom = true;
          return 1;
        }
      for (size_t i = 0; i < t->cap; i++)
        if (t->name[i] != NULL)
          {
            size_t h = ((uintptr_t) t->name[i] >> 3) & (cap - 1);
            while (nn[h] != NULL)
              h = (h + 1) & (cap - 1);
            nn[h] = t->name[i];
            nu[h] = t->num[i];
          }
      free (t->name);
      free (t->num);
      t->name = nn;
      t->num = nu;
      t->cap = cap;
    }
  size_t h = ((uintptr_t) name >> 3) & (t->cap - 1);
  while (t->name[h] != NULL && t->name[h] != name)
    h = (h + 1) & (t->cap - 1);
  if (t->name[h] == NULL)
    {
      t->name[h] = name;
      t->num[h] = (uint32_t) ++t->n;
      str (&t->table, name);
      uleb (&t->table, 0);      /* directory: the unit's */
      uleb (&t->table, 0);      /* modification time: unknown */
      uleb (&t->table, 0);      /* length: unknown */
    }
  return t->num[h];
}

/* What is built, kept alive until elf_update has written it.  */
struct companion
{
  struct buf abbrev, info, line, prog, frame, aranges, symtab, strtab,
    shstrtab;
  struct files files;
  uint64_t low, high;           /* the text the functions cover */
  enum go_arch arch;
};

static void
companion_free (struct companion *c)
{
  struct buf *bufs[] = { &c->abbrev, &c->info, &c->line, &c->prog,
    &c->frame, &c->aranges, &c->symtab, &c->strtab, &c->shstrtab,
    &c->files.table };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    free (bufs[i]->p);
  free (c->files.name);
  free (c->files.num);
}

/* One sequence of the line program: FM's rows, then its end.  */
static void
line_sequence (struct companion *c, const struct go_func_model *fm)
{
  struct buf *p = &c->prog;
  uint64_t addr = fm->entry;
  int64_t line = 1;
  uint32_t file = 1;
  u8 (p, 0);                    /* DW_LNE_set_address */
  uleb (p, 9);
  u8 (p, DW_LNE_set_address);
  uword (p, fm->entry, 8);
  for (size_t i = 0; i < fm->nlines; i++)
    {
      const struct go_line_row *r = &fm->lines[i];
      uint32_t fno = file_number (&c->files, r->file);
      if (fno != file)
        {
          u8 (p, DW_LNS_set_file);
          uleb (p, fno);
          file = fno;
        }
      int64_t dl = (r->line > 0 ? r->line : 0) - line;
      uint64_t da = r->pc - addr;
      uint64_t op = (uint64_t) (dl - LINE_BASE) + LINE_RANGE * da
        + OPCODE_BASE;
      if (dl >= LINE_BASE && dl < LINE_BASE + LINE_RANGE && op <= 255)
        u8 (p, (unsigned) op);  /* a special opcode: both, and a row */
      else
        {
          if (da != 0)
            {
              u8 (p, DW_LNS_advance_pc);
              uleb (p, da);
            }
          if (dl != 0)
            {
              u8 (p, DW_LNS_advance_line);
              sleb (p, dl);
            }
          u8 (p, DW_LNS_copy);
        }
      addr = r->pc;
      line += dl;
    }
  u8 (p, DW_LNS_advance_pc);
  uleb (p, fm->end - addr);
  u8 (p, 0);                    /* DW_LNE_end_sequence */
  uleb (p, 1);
  u8 (p, DW_LNE_end_sequence);
}

/* The DWARF register numbers: amd64 RSP and the return address column;
   arm64 SP and LR.  */
static unsigned
sp_reg (enum go_arch a)
{
  return a == GO_ARCH_AMD64 ? 7 : 31;
}

static unsigned
ra_reg (enum go_arch a)
{
  return a == GO_ARCH_AMD64 ? 16 : 30;
}

enum { DATA_ALIGN = -4 };

/* The CIE every FDE points to (offset 0 of .debug_frame): at an entry,
   amd64's CFA is SP + 8 with the return address at CFA - 8; arm64's is
   SP, the return address still in LR.  */
static void
frame_cie (struct companion *c)
{
  struct buf *f = &c->frame;
  size_t start = f->n;
  uword (f, 0, 4);              /* length, patched */
  uword (f, 0xffffffff, 4);     /* CIE id of .debug_frame */
  u8 (f, 3);                    /* version */
  str (f, "");                  /* augmentation */
  uleb (f, 1);                  /* code alignment factor */
  sleb (f, DATA_ALIGN);
  uleb (f, ra_reg (c->arch));
  u8 (f, DW_CFA_def_cfa);
  uleb (f, sp_reg (c->arch));
  uleb (f, c->arch == GO_ARCH_AMD64 ? 8 : 0);
  if (c->arch == GO_ARCH_AMD64)
    {
      u8 (f, DW_CFA_offset | ra_reg (c->arch));
      uleb (f, 8 / -DATA_ALIGN);
    }
  else
    {
      u8 (f, DW_CFA_same_value);
      uleb (f, ra_reg (c->arch));
    }
  while ((f->n - start) % 8 != 0)
    u8 (f, DW_CFA_nop);
  patch32 (f, start, f->n - start - 4);
}

/* FM's FDE: the CFA as pcsp moves it.  On arm64 the function saves LR at
   the bottom of the frame it allocates (CFA - frame size), and it is back
   in LR once the frame is gone.  */
static void
frame_fde (struct companion *c, const struct go_func_model *fm)
{
  struct buf *f = &c->frame;
  size_t start = f->n;
  uword (f, 0, 4);              /* length, patched */
  uword (f, 0, 4);              /* the CIE at offset 0 */
  uword (f, fm->entry, 8);
  uword (f, fm->end - fm->entry, 8);
  /* An outermost frame has no caller: unwinders stop at it, as Go's own
     .debug_frame says on arm64.  */
  bool top = c->arch == GO_ARCH_ARM64 && fm->top_frame;
  if (top)
    {
      u8 (f, DW_CFA_undefined);
      uleb (f, ra_reg (c->arch));
    }
  uint64_t pc = fm->entry;
  for (size_t i = 0; i < fm->nsps; i++)
    {
      const struct go_sp_row *r = &fm->sps[i];
      int64_t cfa = (int64_t) r->sp_delta
        + (c->arch == GO_ARCH_AMD64 ? 8 : 0);
      if ((cfa < 0 && cfa % DATA_ALIGN != 0) || r->pc < pc
          || r->pc >= fm->end)
        continue;               /* not a frame: keep the rule before */
      uint64_t d = r->pc - pc;
      if (d > 0 && d < 0x40)
        u8 (f, DW_CFA_advance_loc | (unsigned) d);
      else if (d > 0 && d <= 0xff)
        {
          u8 (f, DW_CFA_advance_loc1);
          uword (f, d, 1);
        }
      else if (d > 0 && d <= 0xffff)
        {
          u8 (f, DW_CFA_advance_loc2);
          uword (f, d, 2);
        }
      else if (d > 0)
        {
          u8 (f, DW_CFA_advance_loc4);
          uword (f, d, 4);
        }
      pc = r->pc;
      if (cfa >= 0)
        {
          u8 (f, DW_CFA_def_cfa_offset);
          uleb (f, (uint64_t) cfa);
        }
      else
        {
          /* Below SP (assembly that pops past its entry SP): factored.  */
          u8 (f, DW_CFA_def_cfa_offset_sf);
          sleb (f, cfa / DATA_ALIGN);
        }
      if (top)
        continue;
      if (c->arch == GO_ARCH_ARM64 && r->sp_delta > 0)
        {
          u8 (f, DW_CFA_offset_extended_sf);
          uleb (f, ra_reg (c->arch));
          sleb (f, r->sp_delta / -DATA_ALIGN);
        }
      else if (c->arch == GO_ARCH_ARM64)
        {
          u8 (f, DW_CFA_same_value);
          uleb (f, ra_reg (c->arch));
        }
    }
  while ((f->n - start) % 8 != 0)
    u8 (f, DW_CFA_nop);
  patch32 (f, start, f->n - start - 4);
}

/* FM's subprogram DIE (abbrev 2).  */
static void
info_subprogram (struct buf *out, const struct go_func_model *fm)
{
  uleb (out, 2);
  str (out, fm->name);
  uword (out, fm->entry, 8);
  uword (out, fm->end - fm->entry, 8);
  uleb (out, 1);                /* frame base: the CFA */
  u8 (out, DW_OP_call_frame_cfa);
}

/* FM's .symtab name: what Go's linker calls it (its middle dots as '.',
   the ABI0 half of a Go 1.17+ pair and assembly of a package as
   NAME.abi0).  File-local assembly (TEXT name<>) has no suffix in
   .symtab; the pclntab does not tell it apart from the rest, except that
   most such names have no package.  */
static void
symbol_name (struct companion *c, const struct go_bin *b,
             const struct go_func_model *fm)
{
  for (const char *s = fm->name; *s; s++)
    if ((unsigned char) s[0] == 0xc2 && (unsigned char) s[1] == 0xb7)
      {
        u8 (&c->strtab, '.');
        s++;
      }
    else
      u8 (&c->strtab, (unsigned char) *s);
  if (fm->abi == GO_ABI_ABI0 && gobin_regabi (b)
      && strchr (fm->name, '.') != NULL)
    put (&c->strtab, ".abi0", 5);
  u8 (&c->strtab, 0);
}

static void
symbol (struct companion *c, const struct go_bin *b,
        const struct go_func_model *fm, unsigned shndx)
{
  GElf_Sym s = {
    .st_name = (Elf64_Word) c->strtab.n,
    .st_info = GELF_ST_INFO (STB_GLOBAL, STT_FUNC),
    .st_shndx = (Elf64_Section) shndx,
    .st_value = fm->entry,
    .st_size = fm->end - fm->entry,
  };
  symbol_name (c, b, fm);
  put (&c->symtab, &s, sizeof s);
}

/* A libelf call that failed: one line, and the status.  */
static int
elf_failed (const char *call)
{
  error (0, 0, "%s: %s", call, elf_errmsg (-1));
  return EXIT_ERROR;
}

/* A section of the companion: NAME, TYPE, flags, address, the bytes (or
   NOBITS of SIZE); its index, or 0 with a message.  */
static size_t
add_section (Elf *e, struct companion *c, const char *name, GElf_Word type,
             GElf_Xword flags, GElf_Addr addr, const void *bytes,
             size_t size, GElf_Xword align, GElf_Xword entsize)
{
  Elf_Scn *scn = elf_newscn (e);
  GElf_Shdr sh;
  Elf_Data *d;
  if (scn == NULL || (d = elf_newdata (scn)) == NULL
      || gelf_getshdr (scn, &sh) == NULL)
    {
      elf_failed ("elf_newscn");
      return 0;
    }
  d->d_buf = (void *) bytes;
  d->d_size = size;
  d->d_type = ELF_T_BYTE;
  d->d_align = align ? align : 1;
  d->d_version = EV_CURRENT;
  sh.sh_name = (GElf_Word) c->shstrtab.n;
  str (&c->shstrtab, name);
  sh.sh_type = type;
  sh.sh_flags = flags;
  sh.sh_addr = addr;
  sh.sh_addralign = align ? align : 1;
  sh.sh_entsize = entsize;
  sh.sh_size = size;
  if (gelf_update_shdr (scn, &sh) == 0)
    {
      elf_failed ("gelf_update_shdr");
      return 0;
    }
  return elf_ndxscn (scn);
}

/* The binary's allocated sections, as NOBITS but for notes (the build
   id); TEXT gets the index of the one holding ADDR's code, for the
   symbols.  Without section headers, one .text per executable segment. */
static int
copy_sections (Elf *e, struct companion *c, const struct go_bin *b,
               size_t *text, uint64_t *text_lo, uint64_t *text_hi)
{
  *text = 0;
  if (!b->has_section_headers)
    {
      for (size_t i = 0; i < b->nsegs; i++)
        if (b->segs[i].exec)
          {
            size_t k = add_section (e, c, ".text", SHT_NOBITS,
                                    SHF_ALLOC | SHF_EXECINSTR,
                                    b->segs[i].vaddr, NULL,
                                    b->segs[i].memsz, 16, 0);
            if (k == 0)
              return -1;
            if (*text == 0)
              *text = k, *text_lo = b->segs[i].vaddr,
                *text_hi = b->segs[i].vaddr + b->segs[i].memsz;
          }
      return 0;
    }
  size_t shstrndx;
  if (elf_getshdrstrndx (gobin_elf (b), &shstrndx) != 0)
    {
      error (0, 0, "%s: elf_getshdrstrndx: %s", b->path, elf_errmsg (-1));
      return -1;
    }
  for (Elf_Scn *s = elf_nextscn (gobin_elf (b), NULL); s != NULL;
       s = elf_nextscn (gobin_elf (b), s))
    {
      GElf_Shdr sh;
      const char *name;
      if (gelf_getshdr (s, &sh) == NULL || !(sh.sh_flags & SHF_ALLOC)
          || (name = elf_strptr (gobin_elf (b), shstrndx, sh.sh_name)) == NULL)
        continue;
      const void *bytes = NULL;
      GElf_Word type = SHT_NOBITS;
      if (sh.sh_type == SHT_NOTE)
        {
          bytes = gobin_at (b, sh.sh_offset, sh.sh_size);
          if (bytes != NULL)
            type = SHT_NOTE;
        }
      size_t k = add_section (e, c, name, type, sh.sh_flags, sh.sh_addr,
                              bytes, sh.sh_size, sh.sh_addralign,
                              sh.sh_entsize);
      if (k == 0)
        return -1;
      if ((sh.sh_flags & SHF_EXECINSTR) && *text == 0)
        *text = k, *text_lo = sh.sh_addr, *text_hi = sh.sh_addr + sh.sh_size;
    }
  return 0;
}

/* Every function of the binary into C's tables.  */
/* Every function of B (model M) into C: its subprogram DIE (into KIDS),
   its line sequence, its FDE, its symbol (in section TEXT when inside
   [TEXT_LO, TEXT_HI)); and the unit's range.  */
static int
add_functions (struct companion *c, struct buf *kids, struct go_model *m,
               const struct go_bin *b, unsigned text, uint64_t text_lo,
               uint64_t text_hi)
{
  c->low = UINT64_MAX;
  c->high = 0;
  for (size_t i = 0; i < b->nfuncs; i++)
    {
      const struct go_func *f = &b->funcs[i];
      if (f->end <= f->entry)
        continue;
      struct go_func_model fm;
      int ret = go_model_func (m, f, MODEL_TABLES, &fm);
      if (ret != EXIT_OK)
        return ret;
      info_subprogram (kids, &fm);
      line_sequence (c, &fm);
      frame_fde (c, &fm);
      bool in_text = fm.entry >= text_lo && fm.entry < text_hi;
      symbol (c, b, &fm, in_text ? text : SHN_ABS);
      if (fm.entry < c->low)
        c->low = fm.entry;
      if (fm.end > c->high)
        c->high = fm.end;
      go_func_model_free (&fm);
    }
  if (c->low > c->high)
    c->low = c->high = 0;
  return EXIT_OK;
}

/* .debug_info: the unit header, its DIE, the subprograms KIDS, the end.  */
static void
write_info (struct companion *c, struct buf *kids)
{
  struct buf *in = &c->info;
  uword (in, 0, 4);             /* unit length, patched */
  uword (in, 4, 2);             /* DWARF 4 */
  uword (in, 0, 4);             /* abbreviations at 0 */
  u8 (in, 8);                   /* address size */
  uleb (in, 1);
  str (in, "gostap companion " PACKAGE_VERSION " (from .gopclntab)");
  u8 (in, DW_LANG_Go);
  str (in, "gostap-companion");
  uword (in, c->low, 8);
  uword (in, c->high - c->low, 8);
  uword (in, 0, 4);             /* the line program at 0 */
  put (in, kids->p, kids->n);
  in->oom |= kids->oom;
  u8 (in, 0);
  patch32 (in, 0, in->n - 4);
}

/* .debug_aranges: the unit's one range.  */
static void
write_aranges (struct companion *c)
{
  struct buf *ar = &c->aranges;
  uword (ar, 0, 4);
  uword (ar, 2, 2);
  uword (ar, 0, 4);
  u8 (ar, 8);
  u8 (ar, 0);
  uword (ar, 0, 4);             /* padding to twice the address size */
  uword (ar, c->low, 8);
  uword (ar, c->high - c->low, 8);
  uword (ar, 0, 8);
  uword (ar, 0, 8);
  patch32 (ar, 0, ar->n - 4);
}

/* .debug_line: the header, with the file table the program filled, then
   the program.  */
static void
write_line (struct companion *c)
{
  struct buf *l = &c->line;
  static const uint8_t std_lengths[OPCODE_BASE - 1] =
    { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
  uword (l, 0, 4);              /* unit length, patched */
  uword (l, 4, 2);              /* version 4 */
  uword (l, 0, 4);              /* header length, patched */
  size_t hstart = l->n;
  u8 (l, 1);                    /* minimum instruction length */
  u8 (l, 1);                    /* maximum operations per instruction */
  u8 (l, 1);                    /* default is_stmt */
  u8 (l, (uint8_t) LINE_BASE);
  u8 (l, LINE_RANGE);
  u8 (l, OPCODE_BASE);
  put (l, std_lengths, sizeof std_lengths);
  u8 (l, 0);                    /* no include directories */
  put (l, c->files.table.p, c->files.table.n);
  l->oom |= c->files.table.oom;
  u8 (l, 0);
  patch32 (l, hstart - 4, l->n - hstart);
  put (l, c->prog.p, c->prog.n);
  l->oom |= c->prog.oom;
  patch32 (l, 0, l->n - 4);
}

static int
build (struct companion *c, struct go_model *m, const struct go_bin *b,
       unsigned text, uint64_t text_lo, uint64_t text_hi)
{
  /* Abbreviations: 1 the unit, 2 a subprogram (every value below 128:
     one ULEB128 byte each, the children flag included).  */
  static const uint8_t abbrevs[] = {
    1, DW_TAG_compile_unit, DW_CHILDREN_yes,
    DW_AT_producer, DW_FORM_string, DW_AT_language, DW_FORM_data1,
    DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
    DW_AT_high_pc, DW_FORM_data8, DW_AT_stmt_list, DW_FORM_sec_offset,
    0, 0,
    2, DW_TAG_subprogram, DW_CHILDREN_no,
    DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
    DW_AT_high_pc, DW_FORM_data8, DW_AT_frame_base, DW_FORM_exprloc,
    0, 0,
    0,
  };
  put (&c->abbrev, abbrevs, sizeof abbrevs);
  GElf_Sym none = { 0 };
  put (&c->symtab, &none, sizeof none);
  u8 (&c->strtab, 0);
  frame_cie (c);
  /* The unit's DIE is written once the range is known: its children
     first, into KIDS.  */
  struct buf kids = { 0 };
  int ret = add_functions (c, &kids, m, b, text, text_lo, text_hi);
  if (ret == EXIT_OK)
    {
      write_info (c, &kids);
      write_aranges (c);
      write_line (c);
    }
  free (kids.p);
  if (ret != EXIT_OK)
    return ret;
  struct buf *all[] = { &c->abbrev, &c->info, &c->line, &c->frame,
    &c->aranges, &c->symtab, &c->strtab };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i]->oom)
      {
        error (0, ENOMEM, "%s: the companion debug file", b->path);
        return EXIT_ERROR;
      }
  return EXIT_OK;
}

/* Is the binary's program header I one the companion keeps (into *PH)?  */
static bool
kept_segment (const struct go_bin *b, size_t i, GElf_Phdr *ph)
{
  return gelf_getphdr (gobin_elf (b), (int) i, ph) != NULL
    && (ph->p_type == PT_LOAD || ph->p_type == PT_NOTE);
}

/* E's ELF header, from the binary's: its identification, type, machine,
   entry and flags.  *NPH: the binary's number of program headers.  */
static int
copy_ehdr (Elf *e, const struct go_bin *b, size_t *nph)
{
  GElf_Ehdr in, out;
  if (gelf_getehdr (gobin_elf (b), &in) == NULL
      || elf_getphdrnum (gobin_elf (b), nph) != 0)
    {
      error (0, 0, "%s: gelf_getehdr: %s", b->path, elf_errmsg (-1));
      return EXIT_ERROR;
    }
  if (gelf_newehdr (e, ELFCLASS64) == NULL
      || gelf_getehdr (e, &out) == NULL)
    return elf_failed ("gelf_newehdr");
  memcpy (out.e_ident, in.e_ident, EI_NIDENT);
  out.e_type = in.e_type;
  out.e_machine = in.e_machine;
  out.e_version = EV_CURRENT;
  out.e_entry = in.e_entry;
  out.e_flags = in.e_flags;
  if (gelf_update_ehdr (e, &out) == 0)
    return elf_failed ("gelf_update_ehdr");
  return EXIT_OK;
}

/* E's program headers: the binary's loadable segments and notes (of its
   NPH), as they are.  libdwfl relates the debug file to the binary
   through its first PT_LOAD.  The others (PT_DYNAMIC, PT_INTERP, ...)
   would name sections a debug file has no contents for.  */
static int
copy_segments (Elf *e, const struct go_bin *b, size_t nph)
{
  size_t nkeep = 0;
  GElf_Phdr ph;
  for (size_t i = 0; i < nph; i++)
    nkeep += kept_segment (b, i, &ph);
  if (nkeep > 0 && gelf_newphdr (e, nkeep) == NULL)
    return elf_failed ("gelf_newphdr");
  for (size_t i = 0, k = 0; i < nph && k < nkeep; i++)
    if (kept_segment (b, i, &ph) && gelf_update_phdr (e, (int) k++, &ph) == 0)
      return elf_failed ("gelf_update_phdr");
  return EXIT_OK;
}

/* Add to E the DWARF sections C built, then .strtab and .symtab, the
   symbol table linked to its strings.  */
static int
add_debug_sections (Elf *e, struct companion *c)
{
  struct
  {
    const char *name;
    struct buf *buf;
  } dw[] = {
    { ".debug_abbrev", &c->abbrev },
    { ".debug_info", &c->info },
    { ".debug_aranges", &c->aranges },
    { ".debug_line", &c->line },
    { ".debug_frame", &c->frame },
  };
  for (size_t i = 0; i < sizeof dw / sizeof dw[0]; i++)
    if (add_section (e, c, dw[i].name, SHT_PROGBITS, 0, 0, dw[i].buf->p,
                     dw[i].buf->n, 1, 0) == 0)
      return EXIT_ERROR;
  size_t strtab = add_section (e, c, ".strtab", SHT_STRTAB, 0, 0,
                               c->strtab.p, c->strtab.n, 1, 0);
  size_t symtab = add_section (e, c, ".symtab", SHT_SYMTAB, 0, 0,
                               c->symtab.p, c->symtab.n, 8,
                               sizeof (Elf64_Sym));
  if (strtab == 0 || symtab == 0)
    return EXIT_ERROR;
  Elf_Scn *ss = elf_getscn (e, symtab);
  GElf_Shdr sh;
  if (ss == NULL || gelf_getshdr (ss, &sh) == NULL)
    return elf_failed ("gelf_getshdr");
  sh.sh_link = (GElf_Word) strtab;
  sh.sh_info = 1;               /* every symbol after the null one is global */
  Elf_Data *sd = elf_getdata (ss, NULL);
  if (sd == NULL || gelf_update_shdr (ss, &sh) == 0)
    return elf_failed ("gelf_update_shdr");
  sd->d_type = ELF_T_SYM;
  return EXIT_OK;
}

/* Add .shstrtab to E, last: its data is taken once its own name is in;
   and make it E's section name table.  */
static int
add_shstrtab (Elf *e, struct companion *c, const struct go_bin *b)
{
  GElf_Ehdr out;
  GElf_Shdr sh;
  size_t k = add_section (e, c, ".shstrtab", SHT_STRTAB, 0, 0, NULL, 0, 1,
                          0);
  Elf_Scn *sscn = k ? elf_getscn (e, k) : NULL;
  Elf_Data *d = sscn ? elf_getdata (sscn, NULL) : NULL;
  if (k == 0)
    return EXIT_ERROR;          /* said by add_section */
  if (d == NULL || gelf_getshdr (sscn, &sh) == NULL)
    return elf_failed ("gelf_getshdr");
  if (c->shstrtab.oom)
    {
      error (0, ENOMEM, "%s: the companion debug file", b->path);
      return EXIT_ERROR;
    }
  d->d_buf = c->shstrtab.p;
  d->d_size = c->shstrtab.n;
  sh.sh_size = c->shstrtab.n;
  if (gelf_update_shdr (sscn, &sh) == 0 || gelf_getehdr (e, &out) == NULL)
    return elf_failed ("gelf_update_shdr");
  out.e_shstrndx = (Elf64_Half) k;
  if (gelf_update_ehdr (e, &out) == 0)
    return elf_failed ("gelf_update_ehdr");
  return EXIT_OK;
}

/* Lay the companion out in E.  */
static int
layout (Elf *e, struct companion *c, struct go_model *m,
        const struct go_bin *b)
{
  size_t nph;
  int ret = copy_ehdr (e, b, &nph);
  if (ret == EXIT_OK)
    ret = copy_segments (e, b, nph);
  if (ret != EXIT_OK)
    return ret;
  u8 (&c->shstrtab, 0);
  size_t text;
  uint64_t lo = 0, hi = 0;
  if (copy_sections (e, c, b, &text, &lo, &hi) != 0)
    return EXIT_ERROR;
  ret = build (c, m, b, (unsigned) text, lo, hi);
  if (ret == EXIT_OK)
    ret = add_debug_sections (e, c);
  if (ret == EXIT_OK)
    ret = add_shstrtab (e, c, b);
  return ret;
}

int
write_companion (struct go_model *m, const struct go_bin *b,
                 const char *path)
{
  struct companion c = { .arch = b->arch };
  Elf *e = NULL;
  int ret = EXIT_ERROR;
  if (gelf_getclass (gobin_elf (b)) != ELFCLASS64)
    {
      error (0, 0, "%s: not a 64-bit ELF file: gostap writes companion "
             "debug files for amd64 and arm64 binaries", b->path);
      return EXIT_BADINPUT;
    }
  size_t len = strlen (path);
  char *tmp = malloc (len + sizeof ".tmp.XXXXXX");
  if (tmp == NULL)
    {
      error (0, errno, "malloc");
      return EXIT_ERROR;
    }
  memcpy (tmp, path, len);
  memcpy (tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
  int fd = mkstemp (tmp);
  if (fd < 0)
    {
      error (0, errno, "cannot create '%s'", tmp);
      free (tmp);
      return EXIT_ERROR;
    }
  e = elf_begin (fd, ELF_C_WRITE, NULL);
  if (e == NULL)
    {
      error (0, 0, "%s: elf_begin: %s", tmp, elf_errmsg (-1));
      goto out;
    }
  ret = layout (e, &c, m, b);
  if (ret != EXIT_OK)
    goto out;
  ret = EXIT_ERROR;
  if (elf_update (e, ELF_C_WRITE) < 0)
    {
      error (0, 0, "%s: elf_update: %s", tmp, elf_errmsg (-1));
      goto out;
    }
  elf_end (e);
  e = NULL;
  if (fchmod (fd, 0644) != 0 || fsync (fd) != 0)
    {
      error (0, errno, "%s", tmp);
      goto out;
    }
  int published = publish_tmp (fd, tmp, path);
  fd = -1;
  if (published != 0)
    goto out;
  ret = EXIT_OK;
out:
  if (e != NULL)
    elf_end (e);
  if (fd >= 0)
    close (fd);
  if (ret != EXIT_OK)
    unlink (tmp);
  free (tmp);
  companion_free (&c);
  return ret;
}
