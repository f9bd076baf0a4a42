/* gobin: the Go binary reader shared by every gostap subcommand.

   gobin.c opens a binary, runs the readers in their order and closes it;
   each reader owns the state it allocates and frees it in its *_fini.
   Where each fact about a Go binary is read:
     read-elf.c        ELF headers, segments, sections, .symtab, build id
     read-buildinfo.c  Go version and build settings (.go.buildinfo)
     read-pclntab.c    function table, names, file and line, pcsp (.gopclntab)
     read-abi.c        ABIInternal or ABI0 for each function
     read-code.c       RET sites, tail exits, body after the stack check
     read-debuginfo.c  where the DWARF comes from (the binary, a separate
                       debug file, debuginfod), opened on first use

   Every read from the file goes through gobin_at() or gobin_vaddr(), which
   check bounds, so a malformed binary gives an error, never a crash.  */

#ifndef GOSTAP_GOBIN_H
#define GOSTAP_GOBIN_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Exit statuses of gostap, documented in --help and gostap(1).  */
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

struct go_bin
{
  const char *path;             /* as given by the user */
  char *abspath;                /* realpath() of it */
  const char *probe_path;       /* the path stap's process() names it by:
                                   abspath, unless the caller sets another
                                   (gostap run on a container's process
                                   reads a copy: run-sysroot.c) */
  int fd;
  Elf *elf;
  const uint8_t *image;         /* the whole file, read into memory of
                                   gostap's own (read-elf.c) */
  size_t size;
  void *image_map;              /* that memory's mapping, and its length */
  size_t image_map_len;
  struct stat st;               /* fstat of fd when opened: the file's
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
  struct go_pclntab *pclntab;   /* read-pclntab.c's state: its tables and
                                   the name index */
  struct go_func *funcs;        /* sorted by entry */
  size_t nfuncs;

  struct go_sym *syms;          /* .symtab functions, sorted by address */
  size_t nsyms;

  void *disasm;                 /* read-code.c's decoder state */

  /* read-debuginfo.c's state: where the DWARF comes from, opened on
     first use (dwarf_begin_elf inflates every compressed .debug_* section
     and a separate debug file may have to be looked up or downloaded,
     work that listing a binary or a gostap run cache hit never needs).
     Allocated by gobin_open; the lazy lookup fills what it points to.  */
  struct go_debuginfo *debuginfo;
};

/* gobin.c: open the file and run every reader (0, or an exit status
   after a one-line message); close frees what each reader holds.  */
int gobin_open (struct go_bin *b, const char *path);
void gobin_close (struct go_bin *b);

/* read-elf.c */
int gobin_elf_open (struct go_bin *b, const char *path);
void gobin_elf_fini (struct go_bin *b);
const uint8_t *gobin_at (const struct go_bin *b, uint64_t off, uint64_t len);
const uint8_t *gobin_vaddr (const struct go_bin *b, uint64_t vaddr,
                            uint64_t len, size_t *avail);
Elf_Scn *gobin_section (const struct go_bin *b, const char *name,
                        GElf_Shdr *shdr);
/* B's first executable segment (its code), or NULL.  */
const struct go_seg *gobin_exec_segment (const struct go_bin *b);
/* The first section of ELF named NAME (its header into *SHDR), or NULL.  */
Elf_Scn *elf_section (Elf *elf, const char *name, GElf_Shdr *shdr);
/* NAME in the binary's own .symtab (what the readers of gobin_open use).  */
bool gobin_own_symbol (const struct go_bin *b, const char *name,
                       uint64_t *value, uint64_t *size);
uint64_t gobin_read_uint (const struct go_bin *b, const uint8_t *p,
                          unsigned size);
/* The function symbols of ELF's .symtab, sorted by address (malloc'd; 0,
   or -1 with a message naming PATH).  */
int elf_function_symbols (Elf *elf, const char *path, struct go_sym **syms,
                          size_t *nsyms);
/* NAME in ELF's .symtab, linearly (for a handful of names).  */
bool elf_symbol (Elf *elf, const char *name, uint64_t *value,
                 uint64_t *size);
/* The first function symbol at ADDR in SYMS, or NULL.  */
const char *symbols_at (const struct go_sym *syms, size_t n, uint64_t addr);

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
int gobin_debuginfo_init (struct go_bin *b);
/* The debug directories searched: SYSTEMTAP_DEBUGINFO_PATH as stap reads
   it, else stap's default.  */
const char *gobin_debuginfo_path (void);
void gobin_debuginfo_fini (struct go_bin *b);
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

/* read-buildinfo.c */
int gobin_read_buildinfo (struct go_bin *b);
int go_version_minor (const char *version);
/* An unsigned LEB128 varint at *P (advanced past it) into *V; false when
   it runs past END or overflows.  */
bool uvarint (const uint8_t **p, const uint8_t *end, uint64_t *v);

/* read-pclntab.c */
int gobin_read_pclntab (struct go_bin *b);
void gobin_pclntab_fini (struct go_bin *b);
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

/* read-code.c: gobin_code_fini also frees what gobin_analyze found.  */
int gobin_code_init (struct go_bin *b);
void gobin_code_fini (struct go_bin *b);
/* Analyse the machine code of F, a function of B, once: its code field.  */
int gobin_analyze (struct go_bin *b, const struct go_func *f);

/* read-abi.c */
void gobin_classify_abi (struct go_bin *b);
/* Whether Go functions of B take their arguments in registers (ABIInternal
   of Go 1.17 on x86-64, 1.18 on arm64).  */
bool gobin_regabi (const struct go_bin *b);

/* read-params.c: whether B's DWARF leaves parameters out, as Go's before
   1.22 does (blank `_` ones, those of compiler-made wrappers): read-params
   then checks its assignment against DWARF's location lists, which
   read-debuginfo.c keeps for it.  */
bool gobin_dwarf_omits_params (const struct go_bin *b);

/* Parse up to 16 hex digits at *P into *V; false when there are none or
   too many.  Inline: the symbolizer parses every pc of
   its records with it (stack.c); stap's warnings (run-stderr.c) too.  */
static inline bool
parse_hex (const char **p, uint64_t *v)
{
  const char *s = *p;
  uint64_t x = 0;
  int n = 0;
  for (;; s++, n++)
    {
      int d;
      if (*s >= '0' && *s <= '9')
        d = *s - '0';
      else if (*s >= 'a' && *s <= 'f')
        d = *s - 'a' + 10;
      else
        break;
      if (n == 16)
        return false;
      x = x << 4 | (uint64_t) d;
    }
  if (n == 0)
    return false;
  *v = x;
  *p = s;
  return true;
}

/* util.c */
int addr_list_push (struct addr_list *l, uint64_t v);
void addr_list_free (struct addr_list *l);
const char *arch_name (enum go_arch arch);
/* FNV-1a of N bytes of DATA, continuing from H (FNV1A_BASIS to start):
   the name index's hash and gostap run's cache keys.  */
#define FNV1A_BASIS 0xcbf29ce484222325ULL
uint64_t fnv1a (uint64_t h, const void *data, size_t n);
/* A 64-bit hash of N bytes at DATA, for telling files apart by content
   (the run cache's key): fast, not cryptographic.  */
uint64_t hash_content (const void *data, size_t n);
/* An open-addressing hash index over an array of N elements (linear
   probing, a power of two slots, doubled when half full): a slot holds an
   element's index + 1 (0: empty) and its hash.  hash_find returns the slot
   of hash H whose element EQ (CTX, index, KEY) says is KEY, or the empty
   slot where KEY goes (set its idx and h when it is added); NULL when out
   of memory.  Free *HT when done.  */
struct hash_slot
{
  size_t idx;
  uint64_t h;
};
struct hash_slot *hash_find (struct hash_slot **ht, size_t *hn, size_t n,
                             uint64_t h,
                             bool (*eq) (const void *ctx, size_t i,
                                         const void *key),
                             const void *ctx, const void *key);
bool name_matches (char *const *globs, int nglobs, const char *name,
                   bool *used);
/* The N bytes of BYTES in lowercase hex into OUT (OUTSIZE bytes: as many
   as fit, NUL-terminated).  */
void hex_string (char *out, size_t outsize, const uint8_t *bytes, size_t n);
/* mkdir -p PATH: 0, or -1 with errno.  */
int make_dirs (const char *path);
/* Close FD, the temporary file TMP, and rename TMP to PATH, the last step
   of writing PATH atomically: 0, or -1 after one line (FD is closed
   either way; TMP is left for the caller to remove).  */
int publish_tmp (int fd, const char *tmp, const char *path);
/* Copy the bytes of FROM (named FROM_NAME), from its current offset to
   its end, to TO (named TO_NAME), retrying after EINTR: 0, or -1 after
   one line.  */
int copy_fd (int from, const char *from_name, int to, const char *to_name);

#endif
