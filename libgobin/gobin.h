/* gobin.h: libgobin, what a Go binary holds.

   The one header of the library that reads Go ELF binaries for gostap:
   the binary's kind and build (architecture, Go version, build ids, cgo),
   its functions (the pclntab's table: names, entries, files, lines, frame
   sizes, pc-value tables), their machine code (RET sites, tail exits, the
   body after the stack check), the inline tree, where the DWARF came from
   and what it says (argument and result locations, paths of fields,
   runtime type descriptors), the runtime's layout (g, m, gobuf) and its
   type data.  How each is read (libelf, libdw, capstone, the pclntab's
   formats) stays in the library's sources and their private header,
   reader.h; a user of the library includes this header only.

   Every query checks bounds against the file, so a malformed binary gives
   an error or an absent fact, never a crash.  */

#ifndef GOSTAP_GOBIN_H
#define GOSTAP_GOBIN_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What the library's functions return after a one-line message, and
   gostap's exit statuses (--help, gostap(1)).  */
enum
{
  EXIT_OK = 0,
  EXIT_ERROR = 1,     /* system or internal error */
  EXIT_BADINPUT = 2,  /* the binary is not a usable Go binary */
  EXIT_USAGE = 64,    /* bad command line */
};

enum go_arch { GO_ARCH_AMD64, GO_ARCH_ARM64 };
enum go_abi { GO_ABI_INTERNAL, GO_ABI_ABI0 };

/* pclntab layouts, named after the first Go release that wrote them.  */
enum go_pcln_ver
{
  GO_PCLN_12,   /* 0xfffffffb: Go 1.2 - 1.15 */
  GO_PCLN_116,  /* 0xfffffffa: Go 1.16 - 1.17 */
  GO_PCLN_118,  /* 0xfffffff0: Go 1.18 - 1.19 */
  GO_PCLN_120,  /* 0xfffffff1: Go 1.20 and later */
};

/* A growable array of addresses.  */
struct addr_list
{
  uint64_t *v;
  size_t n, cap;
};

/* What the disassembler found in one function (read-code.c).  */
struct go_code
{
  bool done;                    /* analysed */
  uint64_t body;                /* first instruction after the stack check */
  struct addr_list rets;        /* every RET instruction */
  struct addr_list tails;       /* direct jumps to outside the function */
  struct addr_list indirect;    /* jumps through a register or memory */
  struct addr_list undecoded;   /* addresses the disassembler rejected */
};

/* Bits of a function's flag byte (Go 1.16+; runtime/abi.FuncFlag).  */
enum { GO_FUNCFLAG_TOPFRAME = 1 };

struct go_func
{
  const char *name;             /* NUL-terminated, inside the pclntab */
  uint64_t entry, end;
  uint32_t funcoff;             /* offset of the _func record in the pclntab */
  uint32_t pcsp, pcfile, pcln;  /* offsets of the pc-value tables */
  uint32_t cuoff;               /* compilation unit (Go 1.16+) */
  uint8_t funcid, flag;         /* flag: GO_FUNCFLAG_* */
  uint8_t nfuncdata;            /* funcdata slots after the pcdata tables */
  uint32_t npcdata;             /* pcdata tables after the record */
  enum go_abi abi;
  bool wrapper;                 /* the ABI wrapper of a same-named function */
  unsigned dup_index;           /* k-th non-wrapper function of its name */
  struct go_code code;
};

/* A loaded segment, for mapping virtual addresses to file bytes.  */
struct go_seg
{
  uint64_t vaddr, filesz, memsz, offset;
  bool exec;
};

/* A function symbol of .symtab.  */
struct go_sym
{
  uint64_t addr;
  const char *name;             /* in libelf's string table */
};

struct go_bin_io;

struct go_bin
{
  const char *path;             /* as given by the user */
  char *abspath;                /* realpath() of it */
  const char *probe_path;       /* the path stap's process() names it by:
                                   abspath, unless the caller sets another
                                   (gostap run on a container's process
                                   reads a copy: run-sysroot.c) */
  const uint8_t *image;         /* the whole file, in memory */
  size_t size;
  struct stat st;               /* fstat of the file when opened: its
                                   identity (run-cache.c's key) */

  enum go_arch arch;
  unsigned ptrsize;
  bool pie;                     /* ET_DYN */
  bool has_symtab;              /* the binary's own .symtab */
  bool has_dwarf;               /* .debug_info or .zdebug_info in the binary
                                   itself; gobin_has_debuginfo () also
                                   looks for a separate debug file */
  bool has_section_headers;
  bool cgo;
  bool external_link;

  struct go_seg *segs;
  size_t nsegs;

  char go_version[64];          /* "go1.22.1"; empty when unknown */
  int go_minor;                 /* 22 for go1.22.1; 0 when unknown */
  bool buildinfo_cgo;           /* CGO_ENABLED=1 in build settings */
  char build_id[256];           /* Go build id, or hex GNU build id */
  const uint8_t *gnu_build_id;  /* the GNU build id's bytes, or NULL */
  size_t gnu_build_id_len;

  /* pclntab */
  enum go_pcln_ver pcln_ver;
  uint64_t text_start;
  struct go_func *funcs;        /* sorted by entry */
  size_t nfuncs;

  /* The library's own state: the open file, libelf's view of it, the
     pclntab's tables and name index, the disassembler, where the DWARF
     comes from (reader.h).  Allocated by gobin_open.  */
  struct go_bin_io *io;
};

/* gobin.c: open the file and run every reader (0, or an exit status
   after a one-line message); close frees what each reader holds.  */
int gobin_open (struct go_bin *b, const char *path);
void gobin_close (struct go_bin *b);

/* The file's bytes: LEN bytes at offset OFF, or NULL when they are not
   all in the file.  */
const uint8_t *gobin_at (const struct go_bin *b, uint64_t off, uint64_t len);
/* libelf's view of the binary, for a writer that copies its sections and
   program headers (write-companion.c).  */
Elf *gobin_elf (const struct go_bin *b);
/* B's first executable segment (its code), or NULL.  */
const struct go_seg *gobin_exec_segment (const struct go_bin *b);

/* read-debuginfo.c: the DWARF and symbols of the binary, from the binary
   itself or else from a separate debug file found the way SystemTap finds
   it (build id, .gnu_debuglink, debuginfod).  */
enum go_dwarf_source
{
  GO_DWARF_NONE,
  GO_DWARF_BINARY,              /* the binary's own sections */
  GO_DWARF_BUILD_ID,            /* DIR/.build-id/xx/yyyy.debug */
  GO_DWARF_DEBUGLINK,           /* .gnu_debuglink, or NAME.debug */
  GO_DWARF_DEBUGINFOD,          /* downloaded, or libdebuginfod's cache */
};
/* The debug directories searched: SYSTEMTAP_DEBUGINFO_PATH as stap reads
   it, else stap's default.  */
const char *gobin_debuginfo_path (void);
/* The DWARF, looked up and opened once, or NULL (none found, or libdw
   refused it: said in one line on stderr, once).  */
Dwarf *gobin_dwarf (const struct go_bin *b);
bool gobin_has_debuginfo (const struct go_bin *b);
/* Where gobin_dwarf's DWARF came from, and the debug file (NULL for the
   binary itself).  */
enum go_dwarf_source gobin_dwarf_source (const struct go_bin *b,
                                         const char **path);
const char *gobin_dwarf_source_name (enum go_dwarf_source s);
/* Is gobin_dwarf's DWARF a companion debug file gostap wrote
   (write-companion.c: functions, lines, frames; no types)?  */
bool gobin_dwarf_companion (const struct go_bin *b);
/* The version of the first DWARF unit, 0 without DWARF.  */
int gobin_dwarf_version (const struct go_bin *b);
/* Function symbols: the binary's .symtab, else the debug file's.  */
bool gobin_symbol (const struct go_bin *b, const char *name,
                   uint64_t *value, uint64_t *size);
const char *gobin_symbol_at (const struct go_bin *b, uint64_t addr);
bool gobin_has_symbols (const struct go_bin *b);

/* read-pclntab.c: the function table.  */
/* The first function of each name, one name after the other (IT zeroed
   to start), or NULL at the end: with gobin_next_named, every function
   grouped by name.  */
struct go_name_iter
{
  size_t bucket;
  uint32_t link;
};
const struct go_func *gobin_next_name (const struct go_bin *b,
                                       struct go_name_iter *it);
const struct go_func *gobin_func_at (const struct go_bin *b, uint64_t pc);
/* The function named NAME with the lowest entry, or NULL; then the next
   one of the same name, in address order.  */
const struct go_func *gobin_func_named (const struct go_bin *b,
                                        const char *name);
const struct go_func *gobin_next_named (const struct go_bin *b,
                                        const struct go_func *f);
bool gobin_pcvalue (const struct go_bin *b, const struct go_func *f,
                    uint32_t table, uint64_t target_pc, int32_t *value);
/* Start loading, without waiting, what the symbolizer reads first of F:
   its record, its name and the starts of its file and line tables (then
   gobin_inline_prefetch: its inline tree index table).  stack.c does it
   for every pc of a record before it reads any: with random pcs of a
   large binary each of these is a cache miss, and misses started together
   overlap.  */
void gobin_func_prefetch (const struct go_bin *b, const struct go_func *f);
/* The start of pc-value table TABLE, likewise.  */
void gobin_pcvalue_prefetch (const struct go_bin *b, uint32_t table);
int32_t gobin_frame_size (const struct go_bin *b, const struct go_func *f);
/* Source file and line of the function's entry, from its pcfile and pcln
   tables on each call (opening a binary walks no function's tables):
   NULL and 0 when unknown.  */
const char *gobin_func_file (const struct go_bin *b, const struct go_func *f);
/* The name of file number FNO (a pcfile value) of F, or NULL.  */
const char *gobin_file_name (const struct go_bin *b, const struct go_func *f,
                             int32_t fno);
int32_t gobin_func_line (const struct go_bin *b, const struct go_func *f);
/* The line of F's func keyword (_func.startLine, Go 1.20+; what
   runtime/pprof writes as a function's start_line and `go build -pgo`
   measures call sites from), or 0 before Go 1.20.  */
int32_t gobin_func_start_line (const struct go_bin *b,
                               const struct go_func *f);
/* The offset of F's pcdata table IDX (a PCDATA_* index) in the pc-value
   tables, or 0 when F has none.  */
uint32_t gobin_pcdata (const struct go_bin *b, const struct go_func *f,
                       unsigned idx);
/* The address of F's funcdata IDX (a FUNCDATA_* index) and the bytes of
   the file there (at least LEN), or NULL when F has none or it is not in
   the file.  */
const uint8_t *gobin_funcdata (const struct go_bin *b,
                               const struct go_func *f, unsigned idx,
                               uint64_t len, size_t *avail);
/* The name at OFF of the function name table, or NULL.  */
const char *gobin_funcname (const struct go_bin *b, uint32_t off);
/* The link-time bounds of the module's type data (moduledata.types,
   .etypes: the base of the name offsets in type descriptors); false when
   the binary does not say (read-pclntab.c).  */
bool gobin_types_range (const struct go_bin *b, uint64_t *start,
                        uint64_t *end);
/* Word K of the moduledata counted from its gofunc word (negative: before
   it) into *V; false when the binary has no moduledata gostap finds (Go
   before 1.18) or the word is not in the file.  */
bool gobin_moduledata_word (const struct go_bin *b, int k, uint64_t *v);
/* Call FN for each (pc, value) change of a pc-value table from the
   function's entry: 0, or -1 on a malformed table.  */
int gobin_pcvalue_walk (const struct go_bin *b, const struct go_func *f,
                        uint32_t table,
                        void (*fn) (uint64_t pc, int32_t value, void *arg),
                        void *arg);
/* The same, and the pc where the table stops covering the function (the
   padding after its code is in none of its tables) into *ENDPC.  */
int gobin_pcvalue_walk_to (const struct go_bin *b, const struct go_func *f,
                           uint32_t table,
                           void (*fn) (uint64_t pc, int32_t value,
                                       void *arg),
                           void *arg, uint64_t *endpc);

/* read-inline.c: the inline tree (Go 1.16+).  */
struct go_inlined
{
  const char *name;             /* the inlined function */
  uint64_t parent_pc;           /* a pc whose position is the call site */
  uint8_t funcid;
  int32_t start_line;           /* of the inlined function (Go 1.20+; 0) */
};
/* The index of the innermost inlined call PC of F belongs to, or -1 (F's
   own code, or no inline tree).  */
int32_t gobin_inline_index (const struct go_bin *b, const struct go_func *f,
                            uint64_t pc);
/* gobin_func_prefetch's second step: the start of F's inline tree index
   table (its offset read from the record the first step loaded).  */
void gobin_inline_prefetch (const struct go_bin *b, const struct go_func *f);
/* Inlined call IDX of F; false when the record is missing or malformed. */
bool gobin_inline_call (const struct go_bin *b, const struct go_func *f,
                        int32_t idx, struct go_inlined *call);
/* One inlined copy of a function: record IDX of F's inline tree.  Its
   first instruction is the lowest pc whose chain of records (the pc's
   innermost record, its parent, ...) names IDX: the lowest pc of the
   copy's own code and of the copies inlined into it.  A copy's code may
   be in several pieces; the lowest pc is where DWARF's
   DW_TAG_inlined_subroutine begins too (its low_pc, or the first of its
   ranges), as Go writes those from the same table.  */
struct go_inline_copy
{
  const char *name;             /* the inlined function */
  const struct go_func *in;     /* the function the copy sits in */
  int32_t idx;                  /* record in IN's inline tree */
  int32_t parent;               /* record it is inlined into, or -1 */
  const char *outer;            /* that record's function, or NULL */
  uint64_t pc;                  /* first instruction (parent_pc when
                                   !has_code) */
  uint64_t parent_pc;           /* an instruction at the call site */
  bool has_code;                /* some pc names the copy */
  uint8_t funcid;
  int32_t start_line;           /* the inlined function's first line (Go
                                   1.20+), else 0 */
  uint64_t own_pc;              /* the first pc of its own code (not of a
                                   copy inlined into it), or 0 */
  const char *file;             /* its source file: at own_pc, or NULL */
};
/* Every copy of F's inline tree into *OUT (malloc'd; NULL, 0 without
   one), in record order; -1 when out of memory (nothing said), 0 else.
   A malformed tree gives the copies that could be read.  */
int gobin_inline_copies (const struct go_bin *b, const struct go_func *f,
                         struct go_inline_copy **out, size_t *n);

/* read-code.c: what the disassembler finds in F, a function of B, once
   (its code field): 0, or an exit status after one line.  */
int gobin_analyze (struct go_bin *b, const struct go_func *f);

/* read-abi.c: whether Go functions of B take their arguments in registers
   (ABIInternal of Go 1.17 on x86-64, 1.18 on arm64).  */
bool gobin_regabi (const struct go_bin *b);

/* read-params.c: whether B's DWARF leaves parameters out, as Go's before
   1.22 does (blank `_` ones, those of compiler-made wrappers): read-params
   then checks its assignment against DWARF's location lists, which
   read-debuginfo.c keeps for it.  */
bool gobin_dwarf_omits_params (const struct go_bin *b);

/* The runtime's layout (read-layout.c): offsets of runtime.g, runtime.m, runtime.gobuf, runtime.p and
   runtime.mcache fields (read-layout.c).  -1 marks a field the release does not have.  */
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

/* Go's reflect.Kind, which Go's DWARF gives each type
   (DW_AT_go_kind) and which read-params.c classifies values by.  */
enum go_kind
{
  K_BOOL = 1, K_INT, K_INT8, K_INT16, K_INT32, K_INT64,
  K_UINT, K_UINT8, K_UINT16, K_UINT32, K_UINT64, K_UINTPTR,
  K_FLOAT32, K_FLOAT64, K_COMPLEX64, K_COMPLEX128,
  K_ARRAY, K_CHAN, K_FUNC, K_INTERFACE, K_MAP, K_PTR, K_SLICE, K_STRING,
  K_STRUCT, K_UNSAFEPTR,
};

/* argument and result locations (read-params.c).  */
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
/* How many integer registers Go's ABI passes arguments in on ARCH
   (go_piece_reg names them for reg 0 to this - 1).  */
unsigned go_abi_int_regs (enum go_arch arch);

/* Go's runtime type descriptors (abi.Type, runtime._type before
   Go 1.21) read from a binary's type data (read-types.c), the data a
   printer of Go values walks.

   A descriptor is a 48-byte header (64-bit targets: amd64 and arm64 lay
   it out alike) followed by what its kind adds, then, when the type is
   named or has methods, an "uncommon" record (package path, methods).
   Names and types are offsets from the start of the type data
   (moduledata.types) or pointers into it; every read here is checked
   against that range, so a corrupt descriptor gives an error message,
   never a read outside the file.  */
/* A name of the type data: its bytes (not NUL-terminated), inside the
   mapped file; len 0 and bytes NULL for none.  */
struct go_name
{
  const char *bytes;
  size_t len;
  bool exported, embedded;
  const char *tag;              /* a struct field's tag, or NULL */
  size_t tag_len;
};

struct go_type_field
{
  struct go_name name;
  uint64_t type;                /* its descriptor's address */
  uint64_t offset;
  bool embedded;
};

/* Bits of a descriptor's tflag byte.  */
enum
{
  GO_TFLAG_UNCOMMON = 1,
  GO_TFLAG_EXTRA_STAR = 2,
  GO_TFLAG_NAMED = 4,
};

/* Map layouts: Go's buckets (before 1.24), the Swiss table's groups of
   1.24 to 1.26 and the one of 1.27 (strides for split groups).  */
enum go_map_layout { GO_MAP_BUCKETS, GO_MAP_SWISS, GO_MAP_SWISS_127 };

struct go_type
{
  uint64_t addr;
  uint64_t size, ptrdata;
  uint32_t hash;
  uint8_t tflag, align, field_align;
  uint8_t kind;                 /* enum go_kind: the low five bits */
  struct go_name str;           /* reflect's String(): without the extra
                                   star of GO_TFLAG_EXTRA_STAR */
  struct go_name name;          /* reflect's Name(): the end of str for a
                                   named type, else empty */
  uint64_t ptr_to_this;         /* the descriptor of *T, or 0 */

  bool uncommon;
  struct go_name pkgpath;       /* reflect's PkgPath(): the uncommon
                                   record's, of a named type */
  struct go_name own_pkgpath;   /* Struct, Interface: the package of its
                                   unexported fields or methods */
  uint16_t mcount, xcount;      /* methods, exported methods */

  /* By kind (0 where the kind has none).  */
  uint64_t elem;                /* Ptr, Slice, Array, Chan, Map */
  uint64_t key;                 /* Map */
  uint64_t len;                 /* Array */
  uint64_t dir;                 /* Chan: 1 recv, 2 send, 3 both */
  enum go_map_layout map_layout;
  uint64_t bucket;              /* Map: the bucket or group type */
  uint64_t group_size, slot_size; /* Map: Swiss table's (Go 1.24+) */
  uint64_t nmethods;            /* Interface */
  uint16_t in, out;             /* Func */
  bool variadic;
  uint64_t *params;             /* Func: in + out descriptors, malloc'd */
  struct go_type_field *fields; /* Struct: malloc'd */
  size_t nfields;
  uint64_t desc_size;           /* bytes of the descriptor with what
                                   follows it (Go 1.27's DescriptorSize) */
};

/* The type data of B: the link-time range [START, END) and its bytes.  */
struct go_types
{
  const struct go_bin *bin;
  uint64_t start, end;
  const uint8_t *data;
};

/* Find B's type data: 0, or -1 after one line naming the binary.  */
int go_types_open (const struct go_bin *b, struct go_types *ts);

/* Decode the descriptor at ADDR into *T: 0, or -1 with the problem in
   ERR (ERRSIZE bytes; *T is freed then).  Free *T with go_type_free.  */
int go_type_read (const struct go_types *ts, uint64_t addr,
                  struct go_type *t, char *err, size_t errsize);
void go_type_free (struct go_type *t);

/* Reflect's name of kind K ("int", "ptr", "unsafe.Pointer"), or NULL.  */
const char *go_kind_name (unsigned k);

/* The roots of the type data into L: every descriptor of the linear
   table (Go 1.27), else the typelinks (Go 1.18 to 1.26).  0, or -1 after
   one line; a binary that lists none gives an empty list.  */
int go_types_roots (const struct go_types *ts, struct addr_list *l);

/* util.c: small helpers of the library that its users share.  */
int addr_list_push (struct addr_list *l, uint64_t v);
void addr_list_free (struct addr_list *l);
const char *arch_name (enum go_arch arch);
/* FNV-1a of N bytes of DATA, continuing from H (FNV1A_BASIS to start):
   the name index's hash and gostap run's cache keys.  */
#define FNV1A_BASIS 0xcbf29ce484222325ULL
uint64_t fnv1a (uint64_t h, const void *data, size_t n);
/* The N bytes of BYTES in lowercase hex into OUT (OUTSIZE bytes: as many
   as fit, NUL-terminated).  */
void hex_string (char *out, size_t outsize, const uint8_t *bytes, size_t n);

#endif
