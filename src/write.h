/* write.h: the writers of a binary's tapset directory (write-*.c).  */

#ifndef GOSTAP_WRITE_H
#define GOSTAP_WRITE_H

#include "gobin.h"
#include "model.h"

#include <stdio.h>

/* The version of the text the writers generate, in gostap run's cache key
   (run-cache.c) beside PACKAGE_VERSION: raised with every change of the
   generated tapsets, so that a cache an older build of the same version
   filled is not taken for this one's.  2: the entry alias records the
   call for its return alias when a script uses both; registers and g
   fields read without register() and go_goid().  3: arguments named as
   a global of SystemTap 4.8's tapsets the list lacked (BIO_WRITE,
   VM_FAULT_MAJOR...) get a trailing '_'.  4: inlined copies
   (go.func.NAME.inlined, .outofline; the locals inlined, inlined_in).  */
#define WRITE_FORMAT 4

/* Each writes one file into DIR atomically; 0, or -1 with a message.  */
int write_target (const struct go_bin *b, const struct go_layout *l,
                  const char *dir);
/* go_funcs.stp and go_pair_*.stp: the aliases of the N functions of SEL,
   each from its record in M (model.h), with the offsets of L.  Where
   PAIRED (NULL: nowhere) is true for SEL[I], the script they are for uses
   both of its aliases: its entry alias records the call for the return
   alias, and no go_pair file is written for it.
   The N functions' inlined copies (go_model_inline_copies) get
   go.func.NAME.inlined and go.func.NAME names them too; each function has
   go.func.NAME.outofline.  The NINL names of INL are functions with
   inlined copies only (select_inlined_only): their go.func.NAME and
   go.func.NAME.inlined.  */
int write_funcs (struct go_model *m, const struct go_layout *l,
                 const struct go_func *const *sel, const bool *paired,
                 size_t n, const char *const *inl, size_t ninl,
                 const char *dir);

/* The body write_funcs writes for the entry alias of FM (RET: its return
   alias), with the offsets of a layout of zeros, into F, for a reader of
   the locals it sets (run-locals.c); *WHY: why it sets none from the
   arguments (results), or NULL.  False, writing nothing, when FM has no
   such alias.  */
bool write_alias_body (FILE *f, const struct go_func_model *fm, bool ret,
                       const char **why);

/* The body write_funcs writes for the inlined copy C of the function
   NAME (FM: its out-of-line function, or NULL), as write_alias_body.  */
void write_inline_alias_body (FILE *f, const char *name,
                              const struct go_func_model *fm,
                              const struct go_inline_copy *c);

/* A companion debug file for B, which has no DWARF, from its pclntab
   (write-companion.c): symbols, line table and call frames of every
   function, written to PATH atomically.  An exit status, after one line.  */
int write_companion (struct go_model *m, const struct go_bin *b,
                     const char *path);

/* A copy of the ELF file PATH (its DWARF DW) at TO, its bytes unchanged,
   with .debug_aranges added for SystemTap on libdw before 0.191
   (write-aranges.c), written atomically.  An exit status, after one
   line.  */
int write_aranges_copy (const char *path, Dwarf *dw, const char *to);

/* Can SystemTap probe B at all, and can its path go into process("...")?
   EXIT_OK, or EXIT_BADINPUT after one line.  */
int write_check_probeable (const struct go_bin *b);

/* Is NAME one of the runtime functions the static runtime aliases use?  */
extern const char *const *const write_runtime_events;
extern const size_t write_nruntime_events;
bool write_is_runtime_event (const char *name);

/* The statements that set an alias's locals from SIG's arguments (or
   results), SP being the expression of entry SP (SP at a RET).  */
void write_locals (FILE *f, enum go_arch arch,
                   const struct go_signature *sig, bool results,
                   const char *sp);
/* Is NAME a public global of SystemTap's own tapsets (what a script's
   bare NAME means then)?  */
bool write_stap_global (const char *name);
/* The NAME_fmt locals write_locals writes (write-locals.c).  */
extern const char *write_fmt_names;

#endif
