/* params.h: argument and result locations (read-params.c).  */

#ifndef GOSTAP_PARAMS_H
#define GOSTAP_PARAMS_H

#include <elfutils/libdw.h>

#include "gobin.h"

/* One register or stack slot holding part of a value.  */
struct go_piece
{
  int reg;            /* index into the ABI's register sequence, or -1 */
  bool fp;            /* a float register */
  long stack;         /* offset in the stack sequence (entry SP + 8), or -1 */
  unsigned size;      /* bytes */
  unsigned offset;    /* where this piece sits inside the Go value */
};

/* One scalar of a value in memory order (a struct field, a string's
   pointer or length, ...), named NAME SUFFIX in the tapsets.  */
struct go_leaf
{
  int kind;           /* reflect.Kind of the scalar */
  unsigned size, offset;
  bool fp;            /* float32 or float64 (kind) */
  bool string_len;    /* the length of a string whose pointer precedes */
  bool complex_imag;  /* the imaginary part of a complex ("_imag"), whose
                         real part ("_real") precedes */
  int iface;          /* an interface's first word ("_type"): 1 an itab
                         (an interface with methods), 2 the type (any) */
  char suffix[48];    /* "" for a scalar value, "_x", "_ptr", "_0_len"... */
};

struct go_value
{
  const char *name;   /* from DWARF: may be NULL; results may be "~r0" */
  const char *type;   /* DWARF type name, may be NULL */
  uint64_t size;
  bool result;
  int index;          /* results: 0, 1, ... */
  int kind;           /* reflect.Kind */
  bool has_rtype;     /* DWARF names the type's runtime descriptor: */
  uint64_t rtype;     /* DW_AT_go_runtime_type, a link-time address (Go
                         1.19-1.22) or an offset from the start of the
                         type data (1.23+); the tapsets tell them apart;
                         0 (a type the linker gave no descriptor) is none */
  struct go_piece *pieces;
  size_t npieces;
  struct go_leaf *leaves;   /* in registers, leaves[i] is in pieces[i] */
  size_t nleaves;           /* 0 when too many to name */
};

struct go_signature
{
  struct go_value *v;
  size_t n;
  const char *error;  /* why there is no signature */
};

struct go_params_ctx;

/* DWARF of B, indexed once for many go_signature calls.  */
struct go_params_ctx *go_params_begin (const struct go_bin *b);
void go_params_end (struct go_params_ctx *ctx);

/* Does DWARF describe a function starting at PC?  SystemTap places
   statement probes only inside such functions.  */
bool go_params_has_subprogram (struct go_params_ctx *ctx, uint64_t pc);

/* Does a row of the DWARF line table start at PC?  stap places a
   statement probe elsewhere only in guru mode (facts.md 1).  */
bool go_params_is_line_start (struct go_params_ctx *ctx, uint64_t pc);

/* 0; -1 with SIG->error when the signature cannot be known; -2 out of
   memory (with a message).  */
int go_signature (struct go_params_ctx *ctx, const struct go_bin *b,
                  const struct go_func *f, struct go_signature *sig);
void go_signature_free (struct go_signature *sig);

/* DW_AT_go_runtime_type of the DWARF type T into *RT (0 and false when
   none): Go puts it on the type a typedef names (main.Pair's structure
   type), not on the typedef.  */
bool go_dwarf_runtime_type (Dwarf_Die *t, uint64_t *rt);

/* What a DWARF value path of SystemTap's ($r->URL->Path: an argument
   or result, then fields, through pointers as -> goes) reaches in one
   function (read-dwarf-path.c): for each field, whether the value
   before it is a pointer (followed first) and the field's offset.  */
enum { GO_PATH_MAX = 16 };
struct go_path_type
{
  const char *type;      /* the DWARF name of its type, may be NULL */
  bool has_rtype;        /* its runtime type descriptor, as go_value's */
  uint64_t rtype;
  bool deref[GO_PATH_MAX];
  uint64_t offset[GO_PATH_MAX];
};

/* The type the path VAR->FIELDS[0]->...->FIELDS[N-1] reaches in F (N at
   most GO_PATH_MAX).  0; -1 with *WHY (a static text) when it reaches
   nothing.  */
int go_path_type (struct go_params_ctx *ctx, const struct go_func *f,
                  const char *var, char *const *fields, size_t n,
                  struct go_path_type *out, const char **why);

/* The SystemTap / gdb name of a register piece ("rax", "xmm0", "x3", "v0"),
   NULL for a stack piece.  */
const char *go_piece_reg (enum go_arch arch, const struct go_piece *p);

#endif
