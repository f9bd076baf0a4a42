/* dwarf-index.h: a binary's DWARF indexed for lookups by address
   (read-dwarf-index.c).  */

#ifndef GOSTAP_DWARF_INDEX_H
#define GOSTAP_DWARF_INDEX_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "reader.h"

struct dwarf_index;

/* An index of B's DWARF (gobin_dwarf), empty when B has none; NULL only
   when out of memory.  */
struct dwarf_index *dwarf_index_begin (const struct go_bin *b);
void dwarf_index_end (struct dwarf_index *ix);

/* The subprogram DIE of the function starting at PC, if DWARF has one.  */
bool dwarf_index_subprogram (struct dwarf_index *ix, uint64_t pc,
                             Dwarf_Die *die);

/* Does a row of the DWARF line table start at PC?  */
bool dwarf_index_is_line_start (struct dwarf_index *ix, uint64_t pc);

#endif
