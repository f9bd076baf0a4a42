/* profile.h: the profile a script printed with tapsets/go_profile.stp,
   samples aggregated by stack and labels, each stack resolved into
   locations (physical pcs) whose lines are its inlined calls, as pprof
   models it.  profile.c builds it from stap's output; write-pprof.c and
   write-folded.c write it.

   The lines the tapset prints, each alone on its line (numbers decimal):
     <goprof:type:TYPE:UNIT>              a sample type: each sample has
                                          one value per type, in order
     <goprof:period:TYPE:UNIT:N>          the sampling period
     <goprof:sample:V1,...:LABELS:STACK>  a sample: its values, its labels
                                          ("key=value;..." with '%', ';',
                                          '=', ':', '<', '>' and bytes
                                          outside printable ASCII as %XX)
                                          and a stack record (stack.h), or
                                          nothing when none was recorded
   TYPE and UNIT are [A-Za-z0-9_.-]+.  */

#ifndef GOSTAP_PROFILE_H
#define GOSTAP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gobin.h"
#include "stack.h"
#include "util.h"

#define PROFILE_TOKEN "<goprof:"

enum { PROFILE_MAX_TYPES = 8, PROFILE_NAME_MAX = 64 };

struct profile_type
{
  char type[PROFILE_NAME_MAX], unit[PROFILE_NAME_MAX];
};

/* One line of a location: a function (index into funcs) at a line.  */
struct profile_line
{
  size_t func;
  int64_t line;
};

/* Names and files escaped for a terminal (out.c): valid UTF-8 without
   control bytes, whatever the binary holds.  */
struct profile_func
{
  char *name;                   /* as Go prints it ("[...]" for shapes) */
  char *system_name;            /* as the pclntab names it */
  char *file;                   /* "" when unknown */
  const char *raw_name, *raw_file;    /* the binary's bytes */
  int64_t start_line;           /* its func keyword's line (Go 1.20+:
                                   what go build -pgo measures call
                                   sites from), else 0 */
};

/* A physical pc: lines[line0 .. line0+nlines), innermost first.  */
struct profile_loc
{
  uint64_t address;             /* the pc itself where the goroutine
                                   stood, else the return address - 1
                                   (the call, as runtime/pprof writes) */
  size_t line0, nlines;
};

struct profile_label
{
  char *key, *value;
};

struct profile_sample
{
  size_t loc0, nlocs;           /* into sample_locs, innermost first */
  size_t label0, nlabels;       /* into labels */
  int64_t value[PROFILE_MAX_TYPES];
  char *label_text;             /* as printed: part of the sample's key */
};

struct profile
{
  const struct go_bin *b;
  struct profile_type type[PROFILE_MAX_TYPES];
  size_t ntypes;
  bool has_period;
  struct profile_type period_type;
  int64_t period;

  struct profile_func *funcs;
  size_t nfuncs, cfuncs;
  struct profile_line *lines;
  size_t nlines, clines;
  struct profile_loc *locs;
  size_t nlocs, clocs;
  size_t *sample_locs;          /* loc indices */
  size_t nsample_locs, csample_locs;
  struct profile_label *labels;
  size_t nlabels, clabels;
  struct profile_sample *samples;
  size_t nsamples, csamples;
  int64_t total[PROFILE_MAX_TYPES];   /* the sum of every sample's values */

  /* Indexes of funcs, locs and samples (hash_find, util.c).  */
  struct hash_slot *func_ht, *loc_ht, *sample_ht;
  size_t func_hn, loc_hn, sample_hn;

  struct stack_cache *cache;    /* also the traceback filter's */
  struct stack_record record;
  struct stack_frame frames[4 * STACK_MAX_PCS];

  size_t bad_line;              /* the first malformed one's number in the
                                   output (0: none) */
  char why[160];
  bool oom;
};

/* A profile symbolized from B; NULL after a message when out of memory.  */
struct profile *profile_new (const struct go_bin *b);
void profile_free (struct profile *p);

/* Take LINE (LEN bytes, NUL after them), line number LINENO of stap's
   output, when it is one of the lines above: true then (also when it is
   malformed, which makes profile_done fail).  When TEXT is not NULL the
   line is not added but written there readably (a header line with the
   values and labels, then the stack in Go's traceback format).  */
bool profile_line (struct profile *p, const char *line, size_t len,
                   size_t lineno, FILE *text);

/* Is P a profile worth writing to OUTNAME?  0, or -1 after one line
   saying why not (no sample, a malformed line, out of memory).  */
int profile_done (const struct profile *p, const char *outname);

/* Write P to PPROF (write_pprof) and FOLDED (write_folded), each when
   not NULL and when profile_done says it is worth it; 0, or -1 after a
   line for each file not written.  */
int profile_write (const struct profile *p, const char *pprof,
                   const char *folded);

/* write-pprof.c: P as a gzipped pprof profile at PATH, written under a
   temporary name and renamed; 0, or -1 after a message.  */
int write_pprof (const struct profile *p, const char *path);
/* write-folded.c: P as folded stacks ("root;...;leaf VALUE" a line, the
   value of the last sample type, as pprof shows by default) at PATH;
   0, or -1 after a message.  */
int write_folded (const struct profile *p, const char *path);

#endif
