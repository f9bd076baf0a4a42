/* layout.h: offsets of runtime.g, runtime.m, runtime.gobuf, runtime.p and
   runtime.mcache fields (read-layout.c).  -1 marks a field the release does not have.  */

#ifndef GOSTAP_LAYOUT_H
#define GOSTAP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "gobin.h"

struct go_layout
{
  long g_stack_lo, g_stack_hi, g_stackguard0, g_m, g_sched, g_atomicstatus,
    g_goid, g_parentgoid, g_labels;
  long m_g0, m_morebuf, m_curg;
  long gobuf_sp, gobuf_pc, gobuf_g, gobuf_lr, gobuf_bp;
  /* The heap profiler's state: m.p, p.mcache, mcache.nextSample.  */
  long m_p, p_mcache, mcache_nextsample;
  bool from_dwarf;
};

/* 0, or -1 with a message when neither DWARF nor the table knows.  */
int gobin_runtime_layout (const struct go_bin *b, struct go_layout *l);

/* The offset of g's thread-local slot from the thread pointer (FS base,
   TPIDR_EL0); false when g has none (arm64 without cgo).  */
bool gobin_tls_g_offset (const struct go_bin *b, long *off);

/* The names of the runtime's wait reasons (runtime.waitReasonStrings, by
   number), from .symtab and the data they point to: *NAMES (malloc'd, an
   entry NULL where a name is missing, empty, longer than 64 bytes or not
   printable ASCII) and *N; *N is 0 when the binary does not say.  Free
   with gobin_wait_reasons_free.  */
void gobin_wait_reasons (const struct go_bin *b, char ***names, size_t *n);
void gobin_wait_reasons_free (char **names, size_t n);

#endif
