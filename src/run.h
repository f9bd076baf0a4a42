/* run.h: the parts of `gostap run` that are not the command line:
   which file to probe (run-target.c), reading the script (run-script.c),
   the cache of generated tapsets (run-cache.c) and the preflight checks
   (run-preflight.c).  */

#ifndef GOSTAP_RUN_H
#define GOSTAP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gobin.h"

struct run_script
{
  char *text;
  const char *path;       /* the script's file, for messages */
  char **patterns;        /* "go.func.main.*", "go.func.main.add.return" */
  bool *matched;          /* per pattern: optional (?, !) or seen to match
                             an alias (set by run_script_uses) */
  bool *uncertain;        /* per pattern: its probe may not run at every
                             hit: it has a condition (`if (COND)`), sits
                             in a preprocessor branch or macro (`%( %)`),
                             or is the body of an alias definition */
  size_t npatterns;
  bool runtime_returns;   /* uses a static alias built on a return alias */
  char *fmt_names;        /* the NAME_fmt locals it reads, each followed
                             by a newline after a leading one ("\nv_fmt\n
                             r0_fmt\n"), NULL for none (write_fmt_names) */
  bool expanded;          /* @go_fmt uses replaced (run_expand_go_fmt) */
};

/* The program of -c CMD: its first word, looked up in PATH (malloc'd), or
   NULL after one line.  */
char *run_command_program (const char *cmd);

/* What gostap run probes: the file it reads, and for a process of another
   mount namespace (run-sysroot.c) the path stap's process() names it by
   and the --sysroot that holds the file at that path.  */
struct run_target
{
  char *program;                /* the file gostap reads */
  char *probe_path;             /* or NULL: the program's own path */
  char *sysroot;                /* stap --sysroot, or NULL */
  uint64_t content_hash;        /* with a sysroot: FNV-1a of the bytes */
  uint64_t content_size;
};
/* The file process PID runs, checked by device and inode against
   /proc/PID/exe: by the path that names it here, else copied into a
   sysroot (a container's process).  0, or -1 after one line.  */
int run_pid_target (const char *pid, struct run_target *t);
/* Copy the file EXE (/proc/PID/exe) opens into a sysroot in gostap's
   cache, at INNER (the path the process's namespace gives it): fills T.
   0, or -1 after one line.  */
int run_sysroot_copy (const char *exe, const char *inner,
                      struct run_target *t);
/* Links in SYSROOT to the directories stap reads under it: the kernel's
   build tree, and the debuginfo directories (SYSTEMTAP_DEBUGINFO_PATH, so
   after run_companion).  0, or -1 after one line.  */
int run_sysroot_links (const char *sysroot);
/* For B read from T's sysroot copy of process PID's program: 0, or -1
   after one line when stap would give the probes to another file too (no
   GNU build id, and this namespace's T->probe_path, or another process's
   program by that path, has other bytes).  */
int run_sysroot_check (const struct go_bin *b, const struct run_target *t,
                       const char *pid);
void run_target_free (struct run_target *t);

/* run-aranges.c: does stap's libdw find the DWARF unit of Go code
   without .debug_aranges (0.191 or newer; true when stap is not there)?  */
bool run_libdw_finds_go_units (void);
/* When it does not and B's DWARF is its own: a copy of B with
   .debug_aranges in a sysroot of gostap's cache, at B's probe_path; T's
   sysroot set to it and *GAVE.  An exit status, after one line.  */
int run_aranges (const struct go_bin *b, struct run_target *t, bool *gave);
/* The same for stap by hand (gostap gen): when WRITE, the copy, and one
   warning line saying what to add to stap's command; else only a warning
   line where a copy would be needed.  An exit status.  */
int run_aranges_hint (const struct go_bin *b, bool write);

/* run-runtime.c: stap before 5.1 (RHEL 8's 4.9, Debian 12's 4.8, RHEL
   9.0-9.4's 5.0) drops records in its relay transport, and staprun before
   5.0 then loses the framing, and its staprun stops reading before the
   last records are read; gostap gives such a stap a copy of its runtime
   with upstream 5.1's fixes (PR31117, PR31597), through stap -R.  */
enum run_runtime_need
{
  RUN_RUNTIME_FINE,             /* stap 5.1 or newer, or no stap */
  RUN_RUNTIME_FIX,              /* older, its relay code the one gostap
                                   knows: a copy with the fix */
  RUN_RUNTIME_UNKNOWN,          /* older, its runtime not found or its
                                   relay code another: nothing done */
};
/* What stap's runtime needs; stap's version into *MAJOR and *MINOR, and
   into *DIR its runtime directory (malloc'd; NULL when not found, or when
   DIR is NULL).  No message.  */
enum run_runtime_need run_runtime_need (int *major, int *minor, char **dir);
/* The copy of stap's runtime with the fix in gostap's cache, made if it
   is not there (malloc'd), or NULL: none is needed (FINE, or UNKNOWN:
   then one warning line when WARN), or it could not be made (one line
   naming the file and the call, then one warning line that stap runs
   with its own runtime).  *REFUSED: NULL because gostap's cache may not
   be trusted (one line, run_cache_trust): gostap run stops there.  */
char *run_runtime_fixed (bool warn, bool *refused);
/* For stap by hand (gostap gen): when WRITE, the copy, and one warning
   line saying what to add to stap's command (-R DIR); else one warning
   line where a copy would be needed.  An exit status.  */
int run_runtime_hint (bool write);

/* Read PATH (or take INLINE) and collect the go.func probe points it
   names.  0, or -1 with a message.  */
int run_read_script (struct run_script *s, const char *path,
                     const char *inline_text);
void run_script_free (struct run_script *s);
/* Does the script name the entry alias go.func.ALIAS (or its parts
   .outofline and .inlined; *RET false) or its return alias (*RET true)?  Marks the patterns that matched.  *PAIRS:
   it names both, the entry in a probe whose handler surely runs at every
   call (no condition, no preprocessor branch, not an alias definition):
   then the entry alias can record the calls for the return alias
   (write_funcs).  */
bool run_script_uses (const struct run_script *s, const char *alias,
                      bool *ret, bool *pairs);
/* The same for a function with inlined copies only (select_inlined_only),
   whose aliases are go.func.ALIAS and go.func.ALIAS.inlined.  */
bool run_script_uses_inlined (const struct run_script *s, const char *alias);
/* Does the probe point PATTERN ("go.func.main.*") name ALIAS
   ("go.func.main.add", "go.func.main.add.return"), as stap matches
   them, component by component?  */
bool run_script_match (const char *pattern, const char *alias);
/* Where what starts at P in TEXT ends when it names no probe point: a
   comment (//, #, C style) or a string literal: its last character, or
   the text's NUL when it does not end.  NULL for anything else ($# and
   @#, the number of script arguments, are no comment).  */
const char *run_script_skip_inert (const char *text, const char *p);
/* Add the word at P (a NAME_fmt) to S's fmt_names, once.  0, or -1 out
   of memory (said).  */
int run_script_add_fmt_name (struct run_script *s, const char *p);
/* run-gofmt.c: before generate, each @go_fmt(DWARF value) of S's text
   replaced by what prints that value on B (gostap-values(7)), the
   NAME_fmt locals it reads added to S's fmt_names.  EXIT_OK, or
   EXIT_BADINPUT after one line naming the script's line and why.  */
int run_expand_go_fmt (struct go_bin *b, struct run_script *s);
/* run-locals.c: after generate, with the stap options ARGV[1 .. ARGC)
   (their -I directories' globals): EXIT_OK, or EXIT_BADINPUT after one
   line when a probe of S on go.func aliases reads a local that one of
   them does not set on B (stap would warn and read 0 or ""): the alias,
   the local and why.  */
int run_script_check_locals (struct go_bin *b, const struct run_script *s,
                             int argc, char **argv);
/* Does the script record stacks (tapsets/go_stack.stp)?  */
bool run_script_records_stacks (const struct run_script *s);
/* run-stap.c: run stap (SARGV) as a child of gostap.  Its standard error
   through run_stderr_line (warnings folded; all of them as they are when
   ALL_WARNINGS).  When STACKS, its output through the stack expansion of
   write-traceback.c, symbolized from B, and when stap wrote it to OUTFILE
   (stap -o), that file expanded in place once stap is done; the profile
   the script printed written to PPROF and FOLDED when not NULL
   (profile.h).  SYSROOT: the --sysroot gostap gave stap, or NULL.  Returns stap's exit status, or 128 + the signal that
   killed it (1 when it succeeded but a profile could not be written).  */
int run_stap (char **sargv, const struct go_bin *b, bool all_warnings,
              bool stacks, const char *outfile, const char *pprof,
              const char *folded, const char *sysroot);

/* run-stderr.c: stap's standard error, line by line.  */
struct run_stderr
{
  const struct go_bin *b;       /* the target: whose functions' warnings
                                   are folded */
  bool all;                     /* fold nothing */
  const char *sysroot;          /* the --sysroot gostap gave stap, or
                                   NULL */
  size_t folded;                /* warnings folded since the last flush */
  uint64_t first;               /* the first one's address */
  /* What stap's end-of-run warnings say it lost: handlers that failed,
     probe hits it skipped, output records its transport dropped.  */
  uintmax_t errors, skipped, transport;
};
/* Write LINE (LEN bytes, its newline included, or the last bytes stap
   wrote; a NUL after them) to standard error, or fold it.  */
void run_stderr_line (struct run_stderr *e, const char *line, size_t len);
/* Might PART, the start of a line still unfinished, become a line that
   is folded, or one of losses that is counted?  (Else it is written at
   once.)  */
bool run_stderr_may_fold (const struct run_stderr *e, const char *part,
                          size_t len);
/* The line that stands for the warnings folded so far, if any.  */
void run_stderr_flush (struct run_stderr *e);
/* At the end of a run: one line saying what stap lost, if anything.  */
void run_stderr_losses (const struct run_stderr *e);

/* After every function was tried: one line and -1 when a pattern that is
   not optional matched no alias of BINARY (stap would fail on it).  */
int run_script_check_matched (const struct run_script *s,
                              const char *binary);

/* The cache directory of what SCRIPT needs from B (malloc'd), or NULL
   after one line.  */
char *run_cache_dir (const struct go_bin *b, const struct run_script *s);
/* A copy of S's text (as gostap read it) in the cache, under its file's
   name, for stap to read: no one can swap the script between gostap's
   check of it and stap's read (malloc'd path), or NULL after one line.  */
char *run_cache_script (const struct run_script *s);
/* CACHE/gostap, CACHE being $XDG_CACHE_HOME or ~/.cache (malloc'd), or
   NULL after one line.  */
char *run_cache_root (void);
/* run_cache_trust: also check every entry under PATH (a directory).  */
#define RUN_TRUST_TREE 1u
/* ... and accept symbolic links there (owned by the user or root, never
   followed; a sysroot copy's links out).  */
#define RUN_TRUST_LINKS 2u
/* 0 when PATH (in gostap's cache, real path: run_cache_root) and every
   directory above it may be trusted (run-cache.c says what that means),
   and, with RUN_TRUST_TREE, everything under it; a part not there yet is
   fine.  Else -1 after one line naming the path and the problem.  */
int run_cache_trust (const char *path, unsigned how);
/* CACHE/gostap/debug, the debug directory of the companion files gostap
   run writes (malloc'd), or NULL after one line.  */
char *run_cache_debug_dir (void);
/* Add run_cache_debug_dir () to SYSTEMTAP_DEBUGINFO_PATH, for gostap's
   own lookup and for stap's; then, when B (just opened, its DWARF not yet
   looked up) has no DWARF anywhere, not even a companion written before,
   write its companion debug file there and set *WROTE: B is then to be
   opened again.  An exit status, after one line.  */
int run_companion (struct go_bin *b, bool *wrote);
/* Is DIR there (a hit: 1)?  Then *GURU: whether its probes need stap -g.
   0: not there; -1 after one line: DIR or a directory above it may not
   be trusted (run_cache_trust).  */
int run_cache_lookup (const char *dir, bool *guru);
/* A new temporary directory beside DIR to write into (malloc'd), or NULL
   after one line.  */
char *run_cache_begin (const char *dir);
/* Mark TMP as needing -g (GURU) and rename it to DIR: 0, or -1 after one
   line.  */
int run_cache_publish (const char *tmp, const char *dir, bool guru);
/* Remove TMP if still there, and free it (NULL: nothing).  */
void run_cache_discard (char *tmp);

/* One check of what stap needs: STATUS 1 ok, 0 fails, -1 unknown.  */
struct run_check
{
  const char *what;
  int status;
  char why[400];
};
enum { RUN_MAX_CHECKS = 9 };
/* The checks, in order, into OUT; their number.  stap there and 4.0 or
   newer; its libdw 0.191 or newer (failing only for NUMERIC_PROBES:
   statement probes, which need DWARF units); and when the probes will run
   (RUNS), root or the stapdev group, uprobes in the kernel's
   configuration, module loading.  */
size_t run_checks (bool numeric_probes, bool runs,
                   struct run_check out[RUN_MAX_CHECKS]);
/* 0, or -1 after the first failing check's line.  */
int run_preflight (bool numeric_probes, bool runs);

/* The output of ARGV (stdout and stderr), NUL-terminated; NULL when it
   cannot be run (run-preflight.c).  */
char *run_capture (char *const argv[]);

/* The stap program: $GOSTAP_STAP or "stap".  */
const char *run_stap_program (void);

/* What `stap OPTION` prints (stdout and stderr; OPTION a string
   literal, -V or --help), run once per option and stap program; owned by
   run-preflight.c, valid until the same option is asked of another
   program.  NULL when stap cannot be run.  */
const char *run_stap_says (const char *opt);

/* Start `stap -V` for run_stap_says to read later: it runs while gostap
   reads the binary.  */
void run_stap_prefetch (void);

/* The versions `stap -V` reports (stap, and the libdw it uses): 0, or -1
   when stap cannot be run.  */
int run_stap_versions (int *stap_major, int *stap_minor, int *dw_major,
                       int *dw_minor);

/* rm -rf PATH (a directory gostap made in its cache).  */
void run_remove_tree (const char *path);

#endif
