/* read-dwarf-index.c: where things are in a binary's DWARF, indexed on
   demand: the subprogram DIE of a function entry, and whether a line-table
   row starts at an address (SystemTap places a statement probe without
   guru mode only there: facts.md 1).  The DWARF is gobin_dwarf's, from
   the binary or its separate debug file.  */

#include "config.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "dwarf-index.h"

/* Sorts addresses, and struct sub_entry by pc (its first member).  */
static int
compare_u64 (const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return *x < *y ? -1 : *x > *y;
}

/* The subprogram DIE of each function entry.  Built lazily, one
   compilation unit (a Go package) at a time: a function's CU is found by
   its address in the CUs' ranges, and only that CU's subprograms are
   indexed, so a lookup of 10 functions reads 10 packages' DIEs, not the
   whole binary's.  The first lookup that its CU cannot answer (an address
   in no range, or a function its CU does not describe, such as assembly)
   indexes every CU once, as one sorted array.  */
struct sub_entry
{
  uint64_t pc;
  Dwarf_Off off;
};

struct cu_index
{
  Dwarf_Off die;                /* offset of the CU's DIE */
  struct sub_entry *v;          /* its subprograms by pc, once indexed */
  size_t n;
  bool indexed;
};

struct cu_range
{
  uint64_t lo, hi;
  size_t cu;
};

struct dwarf_index
{
  Dwarf *dw;
  struct cu_index *cus;
  size_t ncus;
  struct cu_range *ranges;      /* sorted by lo */
  size_t nranges;
  struct sub_entry *v;          /* every CU's subprograms, once all_done */
  size_t n;
  bool all_done;
  uint64_t *rows;       /* every line-table row address, sorted, once
                           rows_done */
  size_t nrows;
  bool rows_done;
};

static int
compare_range (const void *a, const void *b)
{
  const struct cu_range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Append the subprograms of the CU whose DIE is at CUOFF to *V.  */
static int
index_cu (Dwarf *dw, Dwarf_Off cuoff, struct sub_entry **v, size_t *n,
          size_t *cap)
{
  Dwarf_Die cu, die;
  if (dwarf_offdie (dw, cuoff, &cu) == NULL || dwarf_child (&cu, &die) != 0)
    return 0;
  do
    {
      Dwarf_Addr lo;
      if (dwarf_tag (&die) != DW_TAG_subprogram || dwarf_lowpc (&die, &lo) != 0)
        continue;
      if (*n == *cap)
        {
          size_t nc = *cap ? 2 * *cap : 64;
          void *nv = reallocarray (*v, nc, sizeof **v);
          if (nv == NULL)
            return -1;
          *v = nv;
          *cap = nc;
        }
      (*v)[*n].pc = lo;
      (*v)[(*n)++].off = dwarf_dieoffset (&die);
    }
  while (dwarf_siblingof (&die, &die) == 0);
  return 0;
}

static int
build_index (const struct go_bin *b, struct dwarf_index *ix)
{
  ix->dw = gobin_dwarf (b);
  if (ix->dw == NULL)
    return -1;
  size_t cucap = 0, rcap = 0;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu (ix->dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
    {
      if (ix->ncus == cucap)
        {
          cucap = cucap ? 2 * cucap : 256;
          void *nv = reallocarray (ix->cus, cucap, sizeof *ix->cus);
          if (nv == NULL)
            return -1;
          ix->cus = nv;
        }
      size_t c = ix->ncus++;
      ix->cus[c] = (struct cu_index) { .die = off + hsize };
      Dwarf_Die cu;
      Dwarf_Addr base, lo, hi;
      ptrdiff_t r = 0;
      if (dwarf_offdie (ix->dw, off + hsize, &cu) != NULL)
        while ((r = dwarf_ranges (&cu, r, &base, &lo, &hi)) > 0)
          {
            if (hi <= lo)
              continue;
            if (ix->nranges == rcap)
              {
                rcap = rcap ? 2 * rcap : 1024;
                void *nv = reallocarray (ix->ranges, rcap, sizeof *ix->ranges);
                if (nv == NULL)
                  return -1;
                ix->ranges = nv;
              }
            ix->ranges[ix->nranges++] = (struct cu_range) { lo, hi, c };
          }
      off = next;
    }
  if (ix->nranges > 1)
    qsort (ix->ranges, ix->nranges, sizeof *ix->ranges, compare_range);
  return 0;
}

/* The CU whose ranges hold PC, or -1.  */
static ptrdiff_t
cu_of (const struct dwarf_index *ix, uint64_t pc)
{
  size_t lo = 0, hi = ix->nranges;
  while (lo < hi)               /* the first range with lo > pc */
    {
      size_t mid = lo + (hi - lo) / 2;
      if (ix->ranges[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* Ranges of different CUs do not overlap in Go binaries; look back a
     little in case they do.  */
  for (size_t k = lo; k > 0 && lo - k < 8; k--)
    if (pc >= ix->ranges[k - 1].lo && pc < ix->ranges[k - 1].hi)
      return (ptrdiff_t) ix->ranges[k - 1].cu;
  return -1;
}

static bool
search (const struct sub_entry *v, size_t n, uint64_t pc, Dwarf_Off *off)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid].pc < pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < n && v[lo].pc == pc)
    {
      *off = v[lo].off;
      return true;
    }
  return false;
}

/* Every CU into one sorted array (the answer for what no single CU has).  */
static void
index_all (struct dwarf_index *ix)
{
  ix->all_done = true;
  size_t cap = 0;
  for (size_t c = 0; c < ix->ncus; c++)
    if (index_cu (ix->dw, ix->cus[c].die, &ix->v, &ix->n, &cap) != 0)
      break;
  if (ix->n > 1)
    qsort (ix->v, ix->n, sizeof *ix->v, compare_u64);
}

static bool
find_subprogram (struct dwarf_index *ix, uint64_t pc, Dwarf_Die *die)
{
  Dwarf_Off off;
  bool found = false;
  ptrdiff_t c = ix->all_done ? -1 : cu_of (ix, pc);
  if (c >= 0)
    {
      struct cu_index *cu = &ix->cus[c];
      if (!cu->indexed)
        {
          size_t cap = 0;
          cu->indexed = true;
          if (index_cu (ix->dw, cu->die, &cu->v, &cu->n, &cap) != 0)
            cu->n = 0;
          else if (cu->n > 1)
            qsort (cu->v, cu->n, sizeof *cu->v, compare_u64);
        }
      found = search (cu->v, cu->n, pc, &off);
    }
  if (!found)
    {
      if (!ix->all_done)
        index_all (ix);
      found = search (ix->v, ix->n, pc, &off);
    }
  return found && dwarf_offdie (ix->dw, off, die) != NULL;
}

static void
free_index (struct dwarf_index *ix)
{
  /* ix->dw belongs to the go_bin (gobin_dwarf).  */
  for (size_t c = 0; c < ix->ncus; c++)
    free (ix->cus[c].v);
  free (ix->cus);
  free (ix->ranges);
  free (ix->v);
  free (ix->rows);
  memset (ix, 0, sizeof *ix);
}

static void
build_rows (struct dwarf_index *ix)
{
  ix->rows_done = true;
  size_t cap = 0;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu (ix->dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu;
      Dwarf_Lines *lines;
      size_t n;
      if (dwarf_offdie (ix->dw, off + hsize, &cu) != NULL
          && dwarf_getsrclines (&cu, &lines, &n) == 0)
        for (size_t i = 0; i < n; i++)
          {
            Dwarf_Addr a;
            Dwarf_Line *l = dwarf_onesrcline (lines, i);
            if (l == NULL || dwarf_lineaddr (l, &a) != 0)
              continue;
            if (ix->nrows == cap)
              {
                cap = cap ? 2 * cap : 4096;
                void *nv = reallocarray (ix->rows, cap, sizeof *ix->rows);
                if (nv == NULL)
                  return;
                ix->rows = nv;
              }
            ix->rows[ix->nrows++] = a;
          }
      off = next;
    }
  if (ix->nrows > 1)
    qsort (ix->rows, ix->nrows, sizeof *ix->rows, compare_u64);
}

/* Does a row of the line table of PC's CU start at PC?  -1: no CU's
   ranges hold PC.  */
static int
cu_line_start (struct dwarf_index *ix, uint64_t pc)
{
  ptrdiff_t c = cu_of (ix, pc);
  Dwarf_Die cu;
  Dwarf_Lines *lines;
  size_t n;
  if (c < 0 || dwarf_offdie (ix->dw, ix->cus[c].die, &cu) == NULL
      || dwarf_getsrclines (&cu, &lines, &n) != 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      Dwarf_Addr a;
      Dwarf_Line *l = dwarf_onesrcline (lines, i);
      if (l != NULL && dwarf_lineaddr (l, &a) == 0 && a == pc)
        return 1;
    }
  return 0;
}

bool
dwarf_index_is_line_start (struct dwarf_index *ix, uint64_t pc)
{
  if (ix == NULL || ix->dw == NULL)
    return false;
  if (!ix->rows_done)
    {
      int r = cu_line_start (ix, pc);
      if (r >= 0)
        return r == 1;
      build_rows (ix);
    }
  return ix->nrows > 0
    && bsearch (&pc, ix->rows, ix->nrows, sizeof *ix->rows, compare_u64)
    != NULL;
}


struct dwarf_index *
dwarf_index_begin (const struct go_bin *b)
{
  struct dwarf_index *ix = calloc (1, sizeof *ix);
  if (ix == NULL)
    return NULL;
  if (build_index (b, ix) != 0)
    free_index (ix);
  return ix;
}

bool
dwarf_index_subprogram (struct dwarf_index *ix, uint64_t pc, Dwarf_Die *die)
{
  return ix != NULL && ix->dw != NULL && find_subprogram (ix, pc, die);
}

void
dwarf_index_end (struct dwarf_index *ix)
{
  if (ix == NULL)
    return;
  free_index (ix);
  free (ix);
}
