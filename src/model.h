/* model.h: what gostap knows about one function, as one record built by
   one function (model.c) from the readers, on demand.  The writers of
   every output (write-*.c, and list's text and JSON) read this record and
   nothing else of the reader, so a new output is one writer fed by it.  */

#ifndef GOSTAP_MODEL_H
#define GOSTAP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gobin.h"

/* An address a probe may be placed at, with the frame state there.  */
struct go_site
{
  uint64_t addr;
  bool sp_known;                /* pcsp gives the SP offset here */
  int32_t sp_delta;             /* entry SP = SP + sp_delta */
};

/* From PC on, the source is FILE:LINE (FILE NULL: unknown).  */
struct go_line_row
{
  uint64_t pc;
  const char *file;             /* inside the pclntab */
  int32_t line;
};

/* From PC on, entry SP = SP + SP_DELTA (pcsp).  */
struct go_sp_row
{
  uint64_t pc;
  int32_t sp_delta;
};

struct go_func_model
{
  const char *binary;           /* the binary's absolute path */
  enum go_arch arch;
  const char *name;             /* the Go name (in the pclntab) */
  bool wrapper;                 /* the ABI wrapper of a same-named function */
  char *alias;                  /* probe alias without "go.func.", or NULL */
  uint64_t entry, end;
  enum go_abi abi;
  struct go_site body;          /* after the stack check */
  struct go_site *rets;         /* every RET instruction */
  size_t nrets;
  const struct addr_list *tails;      /* direct jumps out of the function */
  const struct addr_list *indirect;   /* jumps through registers, memory */
  const struct addr_list *undecoded;  /* bytes the disassembler rejected */
  int32_t frame_size;           /* largest SP offset of the pcsp table */
  bool top_frame;               /* the outermost frame of a stack
                                   (runtime.goexit, mstart, rt0_go) */
  const char *file;             /* source of the entry, or NULL */
  int32_t line;
  /* With MODEL_SIGNATURE (which may look up a separate debug file): */
  const char *symbol;           /* the .symtab symbol at the entry, or NULL */
  bool symbols;                 /* the binary or its debug file has one */
  bool described;               /* DWARF has a subprogram at the entry:
                                   statement probes resolve in it */
  bool have_sig;                /* else sig.error says why */
  struct go_signature sig;      /* params and results */
  /* With MODEL_TABLES, in pc order from the entry: a line row wherever
     pcfile or pcln changes and at the entry, body and every RET (where
     probes go), and at LINES_END, from where the function has no line
     (FILE NULL, LINE 0: the padding after its code, or all of it when
     its tables are missing); an SP row wherever pcsp changes.  */
  struct go_line_row *lines;
  size_t nlines;
  uint64_t lines_end;
  struct go_sp_row *sps;
  size_t nsps;
};

/* What to read beyond the pclntab and the machine code.  */
enum
{
  MODEL_SIGNATURE = 1,          /* DWARF and symbols: described, symbol,
                                   params, results */
  MODEL_TABLES = 2,             /* lines and sps */
};

struct go_model;

/* A model of B's functions; NULL when out of memory (said).  */
struct go_model *go_model_begin (struct go_bin *b);
void go_model_end (struct go_model *m);

/* The record of F (a function of the model's binary) into *OUT: 0, or an
   exit status after one line (the machine code cannot be read).  Free
   with go_func_model_free.  */
int go_model_func (struct go_model *m, const struct go_func *f,
                   unsigned parts, struct go_func_model *out);
void go_func_model_free (struct go_func_model *fm);

/* The inlined copies of the function named NAME (gobin_inline_copies)
   in every function of the binary, by function (table order), then pc,
   into *V (owned by M) and *N; with NAME NULL, every copy of the binary,
   sorted by name first.  0, or -1 after a message (out of memory).  The
   table is made on the first call: every function's inline tree.  */
int go_model_inline_copies (struct go_model *m, const char *name,
                            const struct go_inline_copy **v, size_t *n);

/* The names of every inlined copy of the binary, each once, sorted (see
   go_model_inline_copies).  */
int go_model_inline_names (struct go_model *m, const char *const **v,
                           size_t *n);

/* The binary's path as process("...") takes it.  */
const char *go_model_binary (const struct go_model *m);

/* Does DWARF describe F (a statement probe in it resolves)?  */
bool go_model_described (struct go_model *m, const struct go_func *f);

/* Does a row of the DWARF line table start at ADDR (a probe there needs
   no stap -g)?  */
bool go_model_line_start (struct go_model *m, uint64_t addr);

#endif
