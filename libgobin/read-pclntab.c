/* read-pclntab.c: the function table from Go's pclntab, every format from
   Go 1.2 to the latest (see gobin.h, enum go_pcln_ver).

   The table is found, in this order: by section (.gopclntab, or
   .data.rel.ro.gopclntab in PIE), by the runtime.pclntab symbol, through
   the moduledata in .go.module (Go 1.26+), or by scanning the loaded
   segments for a header that validates.  Go 1.26+ writes textStart as 0:
   the text base then comes from runtime.text or the moduledata.

   Header words from offset 8 (pointer-sized):
     1.2   nfunc, then the functab itself
     1.16  nfunc nfiles funcname cutab filetab pctab functab
     1.18+ nfunc nfiles textStart funcname cutab filetab pctab functab  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

enum
{
  MAGIC_12 = 0xfffffffbu,
  MAGIC_116 = 0xfffffffau,
  MAGIC_118 = 0xfffffff0u,
  MAGIC_120 = 0xfffffff1u,
  /* moduledata: pcHeader, 6 slices, findfunctab, minpc, maxpc, text.  */
  MODULEDATA_TEXT = 22,
  /* ... and gofunc, the base of Go 1.18+'s funcdata offsets: after the
     section bounds, which Go 1.20 (covctrs) and 1.27 (typedesclen,
     itaboffset, itabsize) lengthened.  */
  MODULEDATA_GOFUNC_118 = 38,
  MODULEDATA_GOFUNC_120 = 40,
  MODULEDATA_GOFUNC_127 = 43,
  MAX_PCVALUE_STEPS = 1 << 20,
};

/* This reader's state (gobin.h points to it): where the tables are, and
   the name index.  */
struct go_pclntab
{
  const uint8_t *pcln;          /* start of the pclntab in the image */
  size_t pcln_size;             /* bytes available from pcln on */
  uint64_t pcln_vaddr;
  unsigned quantum;
  const uint8_t *funcnametab, *cutab, *filetab, *pctab, *functab;
  size_t funcnametab_size, cutab_size, filetab_size, pctab_size, functab_size;
  /* Functions by name, for gobin_func_named: a hash of the name picks a
     bucket, which holds 1 + the index of the first function (lowest
     entry) of each name that falls in it, chained by name_chain;
     name_next chains the functions of one name in address order.  0 ends
     a chain.  */
  uint32_t *name_buckets;
  size_t name_nbuckets;         /* a power of two */
  uint32_t *name_chain, *name_next;
  /* Functions by address, for gobin_func_at: pc_buckets[i] is the index
     of the first function that ends after pc_base + i * PC_BUCKET, so a
     pc's function is searched among a few; pc_nbuckets is 0 when the
     functions span too much for the index (a malformed table): then the
     whole table is searched.  pc_entry: each function's entry, in
     order, searched instead of the larger function records.  */
  uint32_t *pc_buckets;
  uint64_t *pc_entry;
  size_t pc_nbuckets;
  uint64_t pc_base;
  uint64_t gofunc;              /* Go 1.18+: what funcdata offsets count
                                   from; 0 when unknown; looked up on the
                                   first gobin_funcdata (only the stack
                                   symbolizer reads funcdata) */
  bool gofunc_done;
};

static uint32_t
u32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
    | (uint32_t) p[3] << 24;
}

static bool
magic_version (uint32_t m, enum go_pcln_ver *v)
{
  switch (m)
    {
    case MAGIC_12: *v = GO_PCLN_12; return true;
    case MAGIC_116: *v = GO_PCLN_116; return true;
    case MAGIC_118: *v = GO_PCLN_118; return true;
    case MAGIC_120: *v = GO_PCLN_120; return true;
    default: return false;
    }
}

/* The byte size of one functab entry and of the fixed _func record.  */
static unsigned
functab_entry_size (const struct go_bin *b)
{
  return b->pcln_ver >= GO_PCLN_118 ? 8 : 2 * b->ptrsize;
}

static unsigned
func_record_size (const struct go_bin *b)
{
  switch (b->pcln_ver)
    {
    case GO_PCLN_12: return b->ptrsize + 8 * 4;
    case GO_PCLN_116: return b->ptrsize + 8 * 4 + 4;
    case GO_PCLN_118: return 4 + 8 * 4 + 4;
    default: return 4 + 9 * 4 + 4;
    }
}

/* Field N (1-based, after the entry) of a _func record: each 4 bytes.  */
static uint32_t
func_field (const struct go_bin *b, const uint8_t *rec, unsigned n)
{
  unsigned first = b->pcln_ver >= GO_PCLN_118 ? 4 : b->ptrsize;
  return u32 (rec + first + (n - 1) * 4);
}


/* Where the table at OFF ends: at the next of the five tables TABS
   (names, cu, files, pcs, functab offsets) above it, Go's linker (1.16+)
   writing them in that order, else at AVAIL.  A table's strings then end inside
   it: a name table without a NUL gives no names, rather than names that
   run on through the tables after it (the hostile names-no-nul case of
   run-hostile.sh: 1788 names of up to 76 KB each, 650 MB of JSON).  */
static uint64_t
table_end (uint64_t off, uint64_t avail, const uint64_t tabs[5])
{
  uint64_t end = avail;
  for (int i = 0; i < 5; i++)
    if (tabs[i] > off && tabs[i] < end)
      end = tabs[i];
  return end;
}
/* Set the table pointers from a header at P with AVAIL bytes; false when
   the header does not describe a table that fits.  Leaves b->pcln_* set. */
static bool
parse_header (struct go_bin *b, const uint8_t *p, size_t avail)
{
  enum go_pcln_ver ver;
  if (avail < 16 || !magic_version (u32 (p), &ver) || p[4] != 0 || p[5] != 0
      || (p[6] != 1 && p[6] != 2 && p[6] != 4) || p[7] != 8)
    return false;
  b->io->pclntab->pcln = p;
  b->io->pclntab->pcln_size = avail;
  b->pcln_ver = ver;
  b->io->pclntab->quantum = p[6];
  unsigned ps = p[7];
  uint64_t w[8];
  unsigned nwords = ver == GO_PCLN_12 ? 1 : ver == GO_PCLN_116 ? 7 : 8;
  if (8 + (uint64_t) nwords * ps > avail)
    return false;
  for (unsigned i = 0; i < nwords; i++)
    w[i] = gobin_read_uint (b, p + 8 + i * ps, ps);
  uint64_t nfunc = w[0];
  uint64_t names, cu = 0, files, pcs, ftab;
  if (ver == GO_PCLN_12)
    {
      names = 0;
      pcs = 0;
      ftab = 8 + ps;
      /* The file table offset follows the functab's closing pc.  */
      uint64_t fo = ftab + (nfunc * 2 + 1) * ps;
      if (nfunc > avail || fo + 4 > avail)
        return false;
      files = u32 (p + fo);
      b->text_start = 0;
    }
  else
    {
      unsigned k = ver == GO_PCLN_116 ? 2 : 3;
      b->text_start = ver == GO_PCLN_116 ? 0 : w[2];
      names = w[k];
      cu = w[k + 1];
      files = w[k + 2];
      pcs = w[k + 3];
      ftab = w[k + 4];
    }
  if (names >= avail || cu >= avail || files >= avail || pcs >= avail
      || ftab >= avail || nfunc == 0)
    return false;
  uint64_t esz = ver >= GO_PCLN_118 ? 8 : 2 * ps;
  if (nfunc > (avail - ftab) / esz)
    return false;
  /* Go 1.2-1.15 keep every offset relative to the header, the tables
     interleaved: no end but AVAIL there.  */
  const uint64_t w5[5] = { names, cu, files, pcs, ftab },
    none[5] = { 0, 0, 0, 0, 0 };
  const uint64_t *tabs = ver == GO_PCLN_12 ? none : w5;
  b->io->pclntab->funcnametab = p + names;
  b->io->pclntab->funcnametab_size = table_end (names, avail, tabs) - names;
  b->io->pclntab->cutab = p + cu;
  b->io->pclntab->cutab_size = table_end (cu, avail, tabs) - cu;
  b->io->pclntab->filetab = p + files;
  b->io->pclntab->filetab_size = table_end (files, avail, tabs) - files;
  b->io->pclntab->pctab = p + pcs;
  b->io->pclntab->pctab_size = table_end (pcs, avail, tabs) - pcs;
  b->io->pclntab->functab = p + ftab;
  b->io->pclntab->functab_size = avail - ftab;
  b->nfuncs = nfunc;
  return true;
}

/* The header at VADDR, if any.  */
static bool
try_vaddr (struct go_bin *b, uint64_t vaddr)
{
  size_t avail;
  const uint8_t *p = gobin_vaddr (b, vaddr, 16, &avail);
  if (p == NULL || !parse_header (b, p, avail))
    return false;
  b->io->pclntab->pcln_vaddr = vaddr;
  return true;
}

static bool
try_section (struct go_bin *b, const char *name)
{
  GElf_Shdr sh;
  if (gobin_section (b, name, &sh) == NULL || sh.sh_type == SHT_NOBITS)
    return false;
  const uint8_t *p = gobin_at (b, sh.sh_offset, sh.sh_size);
  if (p == NULL || !parse_header (b, p, sh.sh_size))
    return false;
  b->io->pclntab->pcln_vaddr = sh.sh_addr;
  return true;
}

/* The moduledata of Go 1.16+ begins with a pointer to the pclntab header
   followed by the funcnametab slice; return its address in the file.  */
static const uint8_t *
find_moduledata (const struct go_bin *b)
{
  GElf_Shdr sh;
  uint64_t want_names = b->io->pclntab->pcln_vaddr + (uint64_t) (b->io->pclntab->funcnametab - b->io->pclntab->pcln);
  if (gobin_section (b, ".go.module", &sh) != NULL)
    {
      const uint8_t *m = gobin_at (b, sh.sh_offset, (MODULEDATA_TEXT + 1) * 8);
      if (m != NULL && gobin_read_uint (b, m, 8) == b->io->pclntab->pcln_vaddr)
        return m;
    }
  /* From the last segment: the moduledata is in the data segment, which
     Go's linker puts after the (larger) read-only data.  */
  for (size_t i = b->nsegs; i-- > 0;)
    {
      const struct go_seg *s = &b->segs[i];
      if (s->exec)
        continue;
      for (uint64_t o = (8 - s->vaddr % 8) % 8;
           o + (MODULEDATA_TEXT + 1) * 8 <= s->filesz; o += 8)
        {
          const uint8_t *m = b->image + s->offset + o;
          if (gobin_read_uint (b, m, 8) == b->io->pclntab->pcln_vaddr
              && gobin_read_uint (b, m + 8, 8) == want_names)
            return m;
        }
    }
  return NULL;
}

static bool
scan_segments (struct go_bin *b)
{
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < b->nsegs; i++)
      {
        const struct go_seg *s = &b->segs[i];
        if (s->exec != (pass == 1))
          continue;
        for (uint64_t o = (4 - s->vaddr % 4) % 4; o + 16 <= s->filesz; o += 4)
          {
            const uint8_t *p = b->image + s->offset + o;
            if (p[3] == 0xff && p[2] == 0xff && p[1] == 0xff
                && (p[0] & 0xf0) == 0xf0 && try_vaddr (b, s->vaddr + o))
              return true;
          }
      }
  return false;
}

/* Read a NUL-terminated string at OFF of a table; NULL if unterminated. */
static const char *
table_string (const uint8_t *tab, size_t size, uint64_t off)
{
  if (off >= size)
    return NULL;
  const uint8_t *nul = memchr (tab + off, 0, size - off);
  return nul == NULL ? NULL : (const char *) tab + off;
}

int
gobin_pcvalue_walk (const struct go_bin *b, const struct go_func *f,
                    uint32_t table,
                    void (*fn) (uint64_t pc, int32_t value, void *arg),
                    void *arg)
{
  uint64_t end;
  return gobin_pcvalue_walk_to (b, f, table, fn, arg, &end);
}

/* The next (value delta, pc delta) pair of a pc-value table at *P, two
   varints; false when the table ends inside one.  After the FIRST pair a
   value delta of 0 ends the table, with no pc delta after it (v[1] 0):
   a table may end with the last byte of pctab.  */
static inline bool
next_pair (const uint8_t **pp, const uint8_t *end, bool first,
           uint64_t v[2])
{
  const uint8_t *p = *pp;
  v[1] = 0;
  for (int k = 0; k < 2; k++)
    {
      unsigned shift = 0;
      v[k] = 0;
      do
        {
          if (p >= end || shift > 63)
            return false;
          v[k] |= (uint64_t) (*p & 0x7f) << shift;
          shift += 7;
        }
      while (*p++ & 0x80);
      if (k == 0 && v[0] == 0 && !first)
        break;
    }
  *pp = p;
  return true;
}

int
gobin_pcvalue_walk_to (const struct go_bin *b, const struct go_func *f,
                       uint32_t table,
                       void (*fn) (uint64_t pc, int32_t value, void *arg),
                       void *arg, uint64_t *endpc)
{
  *endpc = f->entry;
  if (table == 0 || table >= b->io->pclntab->pctab_size)
    return -1;
  const uint8_t *p = b->io->pclntab->pctab + table, *end = b->io->pclntab->pctab + b->io->pclntab->pctab_size;
  int64_t val = -1;
  uint64_t pc = f->entry;
  for (int step = 0; step < MAX_PCVALUE_STEPS && pc < f->end; step++)
    {
      uint64_t v[2];
      if (!next_pair (&p, end, step == 0, v))
        return -1;
      if (v[0] == 0 && step != 0)
        {
          *endpc = pc;
          return 0;
        }
      if ((v[0] >> 1) > INT32_MAX)
        return -1;              /* no real delta is that large */
      val += (v[0] & 1) ? -(int64_t) (v[0] >> 1) - 1 : (int64_t) (v[0] >> 1);
      if (val > INT32_MAX || val < INT32_MIN || v[1] > UINT32_MAX)
        return -1;
      fn (pc, (int32_t) val, arg);
      pc += v[1] * b->io->pclntab->quantum;
    }
  *endpc = pc < f->end ? pc : f->end;
  return 0;
}

/* The value of a pc-value table at TARGET_PC: the walk of
   gobin_pcvalue_walk_to up to TARGET_PC, without a callback (the
   symbolizer makes a few of these for every frame).  */
bool
gobin_pcvalue (const struct go_bin *b, const struct go_func *f,
               uint32_t table, uint64_t target_pc, int32_t *value)
{
  if (target_pc < f->entry || target_pc >= f->end || table == 0
      || table >= b->io->pclntab->pctab_size)
    return false;
  const uint8_t *p = b->io->pclntab->pctab + table;
  const uint8_t *end = b->io->pclntab->pctab + b->io->pclntab->pctab_size;
  int64_t val = -1;
  uint64_t pc = f->entry;
  bool found = false;
  for (int step = 0; step < MAX_PCVALUE_STEPS && pc < f->end; step++)
    {
      uint64_t v[2];
      if (!next_pair (&p, end, step == 0, v))
        return false;
      if (v[0] == 0 && step != 0)
        break;
      if ((v[0] >> 1) > INT32_MAX)
        return false;
      val += (v[0] & 1) ? -(int64_t) (v[0] >> 1) - 1 : (int64_t) (v[0] >> 1);
      if (val > INT32_MAX || val < INT32_MIN || v[1] > UINT32_MAX)
        return false;
      if (pc > target_pc)
        break;
      *value = (int32_t) val;
      found = true;
      pc += v[1] * b->io->pclntab->quantum;
    }
  return found;
}

static void
keep_max (uint64_t pc, int32_t value, void *arg)
{
  int32_t *best = arg;
  (void) pc;
  if (value > *best)
    *best = value;
}

/* The largest SP offset of the function's pcsp table, or -1.  */
int32_t
gobin_frame_size (const struct go_bin *b, const struct go_func *f)
{
  int32_t best = -1;
  gobin_pcvalue_walk (b, f, f->pcsp, keep_max, &best);
  return best;
}

const char *
gobin_file_name (const struct go_bin *b, const struct go_func *f,
                 int32_t fno)
{
  if (fno < 0)
    return NULL;
  if (b->pcln_ver == GO_PCLN_12)
    {
      /* filetab: count, then offsets from the pclntab start.  */
      if (b->io->pclntab->filetab_size < 4 || fno == 0
          || (uint64_t) fno >= u32 (b->io->pclntab->filetab)
          || ((uint64_t) fno + 1) * 4 > b->io->pclntab->filetab_size)
        return NULL;
      return table_string (b->io->pclntab->pcln, b->io->pclntab->pcln_size,
                           u32 (b->io->pclntab->filetab + (uint64_t) fno * 4));
    }
  uint64_t idx = (uint64_t) f->cuoff + (uint64_t) fno;
  if ((idx + 1) * 4 > b->io->pclntab->cutab_size)
    return NULL;
  uint32_t off = u32 (b->io->pclntab->cutab + idx * 4);
  if (off == UINT32_MAX)
    return NULL;
  return table_string (b->io->pclntab->filetab, b->io->pclntab->filetab_size, off);
}

/* F's _func record and the bytes after it in its table.  */
static const uint8_t *
func_record (const struct go_bin *b, const struct go_func *f, size_t *avail)
{
  const struct go_pclntab *t = b->io->pclntab;
  const uint8_t *base = b->pcln_ver == GO_PCLN_12 ? t->pcln : t->functab;
  size_t size = b->pcln_ver == GO_PCLN_12 ? t->pcln_size : t->functab_size;
  *avail = size - f->funcoff;   /* read_functions checked funcoff < size */
  return base + f->funcoff;
}

void
gobin_pcvalue_prefetch (const struct go_bin *b, uint32_t table)
{
#if defined __GNUC__
  if (table < b->io->pclntab->pctab_size)
    __builtin_prefetch (b->io->pclntab->pctab + table);
#else
  (void) b;
  (void) table;
#endif
}

void
gobin_func_prefetch (const struct go_bin *b, const struct go_func *f)
{
#if defined __GNUC__
  const struct go_pclntab *t = b->io->pclntab;
  size_t avail;
  __builtin_prefetch (func_record (b, f, &avail));
  __builtin_prefetch (f->name);
  if (f->pcfile < t->pctab_size)
    __builtin_prefetch (t->pctab + f->pcfile);
  if (f->pcln < t->pctab_size)
    __builtin_prefetch (t->pctab + f->pcln);
#else
  (void) b;
  (void) f;
#endif
}

/* Word K of the moduledata M of B, counted from its gofunc word (K < 0:
   before it), into *V; false when it is not in the file.  */
static bool
moduledata_word (const struct go_bin *b, const uint8_t *m, int k,
                 uint64_t *v)
{
  int w = b->go_minor < 20 ? MODULEDATA_GOFUNC_118
    : b->go_minor < 27 ? MODULEDATA_GOFUNC_120 : MODULEDATA_GOFUNC_127;
  const uint8_t *p = gobin_at (b, (uint64_t) (m - b->image)
                               + (uint64_t) (w + k) * 8, 8);
  if (p == NULL)
    return false;
  *v = gobin_read_uint (b, p, 8);
  return true;
}

/* Go 1.18+'s funcdata base: the go:func.* symbol (go.func.* before Go
   1.20), else the moduledata's gofunc word, which must point into a
   loaded segment.  */
static void
find_gofunc (const struct go_bin *b)
{
  uint64_t v;
  b->io->pclntab->gofunc_done = true;
  if (gobin_own_symbol (b, "go:func.*", &v, NULL)
      || gobin_own_symbol (b, "go.func.*", &v, NULL))
    {
      b->io->pclntab->gofunc = v;
      return;
    }
  const uint8_t *m = find_moduledata (b);
  size_t avail;
  if (m == NULL || b->go_minor == 0 || !moduledata_word (b, m, 0, &v))
    return;
  if (gobin_vaddr (b, v, 1, &avail) != NULL)
    b->io->pclntab->gofunc = v;
}

bool
gobin_moduledata_word (const struct go_bin *b, int k, uint64_t *v)
{
  const uint8_t *m = b->io->pclntab != NULL ? find_moduledata (b) : NULL;
  return m != NULL && b->go_minor >= 18 && moduledata_word (b, m, k, v);
}

bool
gobin_types_range (const struct go_bin *b, uint64_t *start, uint64_t *end)
{
  if (gobin_own_symbol (b, "runtime.types", start, NULL)
      && gobin_own_symbol (b, "runtime.etypes", end, NULL) && *start < *end)
    return true;
  /* The moduledata words before gofunc: types, etypes, rodata (Go 1.18 to
     1.26); types, typedesclen, etypes, itaboffset, itabsize, rodata
     (1.27).  Link-time values, in PIE builds too.  */
  const uint8_t *m = b->io->pclntab != NULL ? find_moduledata (b) : NULL;
  if (m == NULL || b->go_minor < 18
      || !moduledata_word (b, m, b->go_minor < 27 ? -3 : -6, start)
      || !moduledata_word (b, m, b->go_minor < 27 ? -2 : -4, end))
    return false;
  size_t avail;
  return *start < *end && gobin_vaddr (b, *start, 1, &avail) != NULL
    && *end - *start <= avail;
}

uint32_t
gobin_pcdata (const struct go_bin *b, const struct go_func *f, unsigned idx)
{
  size_t avail, rsz = func_record_size (b);
  if (b->pcln_ver < GO_PCLN_116 || idx >= f->npcdata)
    return 0;
  const uint8_t *rec = func_record (b, f, &avail);
  if (rsz + ((uint64_t) idx + 1) * 4 > avail)
    return 0;
  return u32 (rec + rsz + idx * 4);
}

const uint8_t *
gobin_funcdata (const struct go_bin *b, const struct go_func *f,
                unsigned idx, uint64_t len, size_t *avail)
{
  size_t ravail, rsz = func_record_size (b);
  if (b->pcln_ver < GO_PCLN_116 || idx >= f->nfuncdata)
    return NULL;
  const uint8_t *rec = func_record (b, f, &ravail);
  uint64_t slot = rsz + (uint64_t) f->npcdata * 4, vaddr;
  if (b->pcln_ver >= GO_PCLN_118)
    {
      /* uint32 offsets from gofunc; all ones: none.  */
      slot += (uint64_t) idx * 4;
      if (!b->io->pclntab->gofunc_done)
        find_gofunc (b);
      if (slot + 4 > ravail || b->io->pclntab->gofunc == 0
          || u32 (rec + slot) == UINT32_MAX)
        return NULL;
      vaddr = b->io->pclntab->gofunc + u32 (rec + slot);
    }
  else
    {
      /* Pointers, aligned to their size in the image (not the file).  */
      uint64_t at = b->io->pclntab->pcln_vaddr
        + (uint64_t) (rec - b->io->pclntab->pcln) + slot;
      if (b->ptrsize == 8 && at % 8 != 0)
        slot += 4;
      slot += (uint64_t) idx * b->ptrsize;
      if (slot + b->ptrsize > ravail)
        return NULL;
      vaddr = gobin_read_uint (b, rec + slot, b->ptrsize);
      if (vaddr == 0)
        return NULL;
    }
  const uint8_t *p = gobin_vaddr (b, vaddr, len, avail);
  return p != NULL && *avail >= len ? p : NULL;
}

const char *
gobin_funcname (const struct go_bin *b, uint32_t off)
{
  return table_string (b->io->pclntab->funcnametab,
                       b->io->pclntab->funcnametab_size, off);
}

const char *
gobin_func_file (const struct go_bin *b, const struct go_func *f)
{
  int32_t fno;
  if (!gobin_pcvalue (b, f, f->pcfile, f->entry, &fno))
    return NULL;
  return gobin_file_name (b, f, fno);
}

int32_t
gobin_func_line (const struct go_bin *b, const struct go_func *f)
{
  int32_t line;
  return gobin_pcvalue (b, f, f->pcln, f->entry, &line) && line > 0
    ? line : 0;
}

int32_t
gobin_func_start_line (const struct go_bin *b, const struct go_func *f)
{
  size_t avail;
  if (b->pcln_ver < GO_PCLN_120)
    return 0;
  /* The field after cuOffset, before the funcID byte.  */
  const uint8_t *rec = func_record (b, f, &avail);
  if (avail < func_record_size (b))
    return 0;
  int32_t line = (int32_t) func_field (b, rec, 9);
  return line > 0 ? line : 0;
}

/* The text base for Go 1.26+, which writes textStart as 0.  */
static bool
find_text_start (struct go_bin *b)
{
  uint64_t v;
  if (gobin_own_symbol (b, "runtime.text", &v, NULL))
    {
      b->text_start = v;
      return true;
    }
  const uint8_t *m = find_moduledata (b);
  if (m != NULL)
    {
      b->text_start = gobin_read_uint (b, m + MODULEDATA_TEXT * 8, 8);
      return b->text_start != 0;
    }
  return false;
}

static int
compare_entry (const void *a, const void *b)
{
  const struct go_func *x = a, *y = b;
  return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Function table entry I of B: its entry pc, the next entry's (the end
   of its code) and the offset of its record.  EXIT_OK, or EXIT_BADINPUT
   after one line.  */
static int
functab_entry (const struct go_bin *b, size_t i, uint64_t *entry,
               uint64_t *next, uint64_t *funcoff)
{
  unsigned esz = functab_entry_size (b), ps = b->ptrsize;
  const uint8_t *e = b->io->pclntab->functab + i * esz;
  /* The entry after the last is the end pc: checked in parse_header. */
  if ((i + 1) * esz + (esz / 2) > b->io->pclntab->functab_size)
    {
      error (0, 0, "%s: corrupted pclntab: function table truncated",
             b->path);
      return EXIT_BADINPUT;
    }
  if (b->pcln_ver >= GO_PCLN_118)
    {
      *entry = b->text_start + u32 (e);
      *next = b->text_start + u32 (e + esz);
      *funcoff = u32 (e + 4);
    }
  else
    {
      *entry = gobin_read_uint (b, e, ps);
      *next = gobin_read_uint (b, e + esz, ps);
      *funcoff = gobin_read_uint (b, e + ps, ps);
    }
  if (*next < *entry)
    {
      error (0, 0, "%s: corrupted pclntab: function table is not sorted "
             "(entry %zu at %#" PRIx64 ")", b->path, i, *entry);
      return EXIT_BADINPUT;
    }
  return EXIT_OK;
}

/* The fields of F that B's function record REC gives: its pc tables,
   compilation unit, funcID, flags and counts of pcdata and funcdata.  */
static void
func_from_record (const struct go_bin *b, const uint8_t *rec,
                  struct go_func *f)
{
  unsigned rsz = func_record_size (b), ps = b->ptrsize;
  f->pcsp = func_field (b, rec, 4);
  f->pcfile = func_field (b, rec, 5);
  f->pcln = func_field (b, rec, 6);
  if (b->pcln_ver >= GO_PCLN_116)
    f->cuoff = func_field (b, rec, 8);
  /* funcID and flag bytes follow the 4-byte fields.  */
  unsigned idoff = b->pcln_ver == GO_PCLN_12 ? rsz - 4
    : b->pcln_ver == GO_PCLN_116 ? ps + 8 * 4
    : b->pcln_ver == GO_PCLN_118 ? 4 + 8 * 4 : 4 + 9 * 4;
  f->funcid = b->pcln_ver == GO_PCLN_12 ? 0 : rec[idoff];
  f->flag = b->pcln_ver == GO_PCLN_12 ? 0 : rec[idoff + 1];
  /* Go 1.2-1.15 records are not read past their tables.  */
  if (b->pcln_ver >= GO_PCLN_116)
    {
      f->npcdata = func_field (b, rec, 7);
      f->nfuncdata = rec[idoff + 3];
    }
}

/* Read B's function table into B->funcs, in entry order, and whether B
   uses cgo; entries whose record is malformed are skipped, said in one
   warning.  */
static int
read_functions (struct go_bin *b)
{
  size_t n = b->nfuncs;
  unsigned rsz = func_record_size (b);
  unsigned ps = b->ptrsize;
  size_t skipped = 0;
  b->funcs = calloc (n, sizeof *b->funcs);
  if (b->funcs == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  /* Where funcoff values count from.  */
  const uint8_t *recbase = b->pcln_ver == GO_PCLN_12 ? b->io->pclntab->pcln : b->io->pclntab->functab;
  size_t recsize = b->pcln_ver == GO_PCLN_12 ? b->io->pclntab->pcln_size : b->io->pclntab->functab_size;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t entry, next, funcoff;
      int ret = functab_entry (b, i, &entry, &next, &funcoff);
      if (ret != EXIT_OK)
        return ret;
      if (funcoff >= recsize || recsize - funcoff < rsz)
        {
          skipped++;
          continue;
        }
      const uint8_t *rec = recbase + funcoff;
      uint64_t rentry = b->pcln_ver >= GO_PCLN_118
        ? b->text_start + u32 (rec) : gobin_read_uint (b, rec, ps);
      const char *name = table_string (b->io->pclntab->funcnametab, b->io->pclntab->funcnametab_size,
                                       func_field (b, rec, 1));
      if (rentry != entry || name == NULL || next == entry)
        {
          skipped++;
          continue;
        }
      struct go_func *f = &b->funcs[k++];
      f->name = name;
      f->entry = entry;
      f->end = next;
      f->funcoff = (uint32_t) funcoff;
      func_from_record (b, rec, f);
    }
  if (skipped > 0)
    error (0, 0, "%s: warning: skipped %zu malformed pclntab entries",
           b->path, skipped);
  if (k == 0)
    {
      error (0, 0, "%s: corrupted pclntab: no valid function", b->path);
      return EXIT_BADINPUT;
    }
  b->nfuncs = k;
  qsort (b->funcs, k, sizeof *b->funcs, compare_entry);
  for (size_t i = 0; i < k; i++)
    if (strstr (b->funcs[i].name, "._Cfunc_") != NULL
        || strncmp (b->funcs[i].name, "runtime/cgo.", 12) == 0)
      b->cgo = true;
  return EXIT_OK;
}

static uint64_t
name_hash (const char *s)
{
  return fnv1a (FNV1A_BASIS, s, strlen (s));
}

/* Build the name index of gobin.h: one pass over the names, in address
   order so that each name's chain is in address order too.  */
static int
index_names (struct go_bin *b)
{
  size_t n = b->nfuncs, nb = 64;
  if (n >= UINT32_MAX / 2)
    {
      error (0, 0, "%s: corrupted pclntab: %zu functions", b->path, n);
      return EXIT_BADINPUT;
    }
  while (nb < 2 * n)
    nb *= 2;
  uint32_t *last = calloc (n, sizeof *last);    /* of each name's chain */
  b->io->pclntab->name_buckets = calloc (nb, sizeof *b->io->pclntab->name_buckets);
  b->io->pclntab->name_chain = calloc (n, sizeof *b->io->pclntab->name_chain);
  b->io->pclntab->name_next = calloc (n, sizeof *b->io->pclntab->name_next);
  if (last == NULL || b->io->pclntab->name_buckets == NULL || b->io->pclntab->name_chain == NULL
      || b->io->pclntab->name_next == NULL)
    {
      free (last);
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  b->io->pclntab->name_nbuckets = nb;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t *slot = &b->io->pclntab->name_buckets[name_hash (b->funcs[i].name)
                                        & (nb - 1)];
      while (*slot != 0 && strcmp (b->funcs[*slot - 1].name,
                                   b->funcs[i].name) != 0)
        slot = &b->io->pclntab->name_chain[*slot - 1];
      if (*slot == 0)
        *slot = (uint32_t) i + 1;               /* a new name */
      else
        b->io->pclntab->name_next[last[*slot - 1]] = (uint32_t) i + 1;
      last[*slot - 1] = (uint32_t) i;
    }
  free (last);
  return EXIT_OK;
}

enum { PC_BUCKET = 4096 };

/* Build the address index of struct go_pclntab (none when the functions
   span more than a few buckets a function).  */
static int
index_pcs (struct go_bin *b)
{
  struct go_pclntab *t = b->io->pclntab;
  size_t n = b->nfuncs;
  uint64_t lo = b->funcs[0].entry, hi = b->funcs[n - 1].end;
  if (hi <= lo || (hi - lo) / PC_BUCKET >= 4 * (uint64_t) n + 1024)
    return EXIT_OK;
  size_t nb = (size_t) ((hi - lo) / PC_BUCKET + 1);
  t->pc_buckets = calloc (nb, sizeof *t->pc_buckets);
  t->pc_entry = calloc (n, sizeof *t->pc_entry);
  if (t->pc_buckets == NULL || t->pc_entry == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  for (size_t i = 0; i < n; i++)
    t->pc_entry[i] = b->funcs[i].entry;
  size_t j = 0;
  for (size_t i = 0; i < nb; i++)
    {
      uint64_t start = lo + (uint64_t) i * PC_BUCKET;
      while (j < n && b->funcs[j].end <= start)
        j++;
      t->pc_buckets[i] = (uint32_t) j;
    }
  t->pc_base = lo;
  t->pc_nbuckets = nb;
  return EXIT_OK;
}

const struct go_func *
gobin_func_named (const struct go_bin *b, const char *name)
{
  if (b->io->pclntab->name_nbuckets == 0)
    return NULL;
  uint32_t k = b->io->pclntab->name_buckets[name_hash (name) & (b->io->pclntab->name_nbuckets - 1)];
  while (k != 0 && strcmp (b->funcs[k - 1].name, name) != 0)
    k = b->io->pclntab->name_chain[k - 1];
  return k != 0 ? &b->funcs[k - 1] : NULL;
}

const struct go_func *
gobin_next_named (const struct go_bin *b, const struct go_func *f)
{
  uint32_t k = b->io->pclntab->name_next[f - b->funcs];
  return k != 0 ? &b->funcs[k - 1] : NULL;
}

const struct go_func *
gobin_next_name (const struct go_bin *b, struct go_name_iter *it)
{
  for (; it->bucket < b->io->pclntab->name_nbuckets; it->bucket++, it->link = 0)
    {
      uint32_t h = it->link == 0 ? b->io->pclntab->name_buckets[it->bucket]
        : b->io->pclntab->name_chain[it->link - 1];
      if (h != 0)
        {
          it->link = h;
          return &b->funcs[h - 1];
        }
    }
  return NULL;
}

void
gobin_pclntab_fini (struct go_bin *b)
{
  free (b->funcs);
  b->funcs = NULL;
  b->nfuncs = 0;
  if (b->io->pclntab == NULL)
    return;
  free (b->io->pclntab->name_buckets);
  free (b->io->pclntab->pc_buckets);
  free (b->io->pclntab->pc_entry);
  free (b->io->pclntab->name_chain);
  free (b->io->pclntab->name_next);
  free (b->io->pclntab);
  b->io->pclntab = NULL;
}

int
gobin_read_pclntab (struct go_bin *b)
{
  uint64_t v;
  b->io->pclntab = calloc (1, sizeof *b->io->pclntab);
  if (b->io->pclntab == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  bool found = try_section (b, ".gopclntab")
    || try_section (b, ".data.rel.ro.gopclntab")
    || (gobin_own_symbol (b, "runtime.pclntab", &v, NULL) && try_vaddr (b, v));
  if (!found)
    {
      /* A section named like it that does not parse is corruption, not
         absence: say so rather than scanning.  */
      GElf_Shdr sh;
      if (gobin_section (b, ".gopclntab", &sh) != NULL)
        {
          error (0, 0, "%s: corrupted pclntab: bad header in .gopclntab",
                 b->path);
          return EXIT_BADINPUT;
        }
      found = scan_segments (b);
    }
  if (!found)
    {
      error (0, 0, "%s: not a Go binary (no pclntab found)", b->path);
      return EXIT_BADINPUT;
    }
  if (b->pcln_ver >= GO_PCLN_118 && b->text_start == 0
      && !find_text_start (b))
    {
      error (0, 0, "%s: cannot find the text start of this Go binary "
             "(no runtime.text symbol and no moduledata)", b->path);
      return EXIT_BADINPUT;
    }
  int ret = read_functions (b);
  if (ret == EXIT_OK)
    ret = index_names (b);
  return ret != EXIT_OK ? ret : index_pcs (b);
}

const struct go_func *
gobin_func_at (const struct go_bin *b, uint64_t pc)
{
  size_t lo = 0, hi = b->nfuncs;
  const struct go_pclntab *t = b->io->pclntab;
  if (t != NULL && t->pc_nbuckets != 0)
    {
      if (pc < t->pc_base || (pc - t->pc_base) / PC_BUCKET >= t->pc_nbuckets)
        return NULL;            /* before the first function, after the last */
      size_t i = (size_t) ((pc - t->pc_base) / PC_BUCKET);
      lo = t->pc_buckets[i];
      if (i + 1 < t->pc_nbuckets && (size_t) t->pc_buckets[i + 1] + 1 < hi)
        hi = (size_t) t->pc_buckets[i + 1] + 1;
      /* The last function of the few that starts at or before pc.  */
      while (lo < hi)
        {
          size_t mid = lo + (hi - lo) / 2;
          if (t->pc_entry[mid] <= pc)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == 0 || pc >= b->funcs[lo - 1].end)
        return NULL;
      return &b->funcs[lo - 1];
    }
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      const struct go_func *f = &b->funcs[mid];
      if (pc < f->entry)
        hi = mid;
      else if (pc >= f->end)
        lo = mid + 1;
      else
        return f;
    }
  return NULL;
}
