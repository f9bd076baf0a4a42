/* run.h: the parts of `gostap run` that are not the command line:
   which file to probe (run-target.c), reading the script (run-script.c)
   and the preflight checks (run-preflight.c).  */

#ifndef GOSTAP_RUN_H
#define GOSTAP_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct run_script
{
  char *text;
  const char *path;       /* the script's file, for messages */
  char **patterns;        /* "go.func.main.*", "go.func.main.add.return" */
  bool *matched;          /* per pattern: optional (?, !) or seen to match
                             an alias (set by cmd-run.c script_uses) */
  size_t npatterns;
  bool runtime_returns;   /* uses a static alias built on a return alias */
};

/* The program of -c CMD: its first word, looked up in PATH (malloc'd), or
   NULL after one line.  */
char *run_command_program (const char *cmd);
/* The file process PID runs, by a path that names it here (malloc'd), or
   NULL after one line (a process of another mount namespace, whose path
   names another file here: see run-target.c).  */
char *run_pid_program (const char *pid);

/* Read PATH (or take INLINE) and collect the go.func probe points it
   names.  0, or -1 with a message.  */
int run_read_script (struct run_script *s, const char *path,
                     const char *inline_text);
void run_script_free (struct run_script *s);
/* After every function was tried: one line and -1 when a pattern that is
   not optional matched no alias of BINARY (stap would fail on it).  */
int run_script_check_matched (const struct run_script *s,
                              const char *binary);

/* Check what would make stap fail: stap missing or too old, libdw older
   than 0.191 (with DWARF: numeric statement probes), and when the probes
   will run (RUNS), privileges and uprobes.  0, or -1 after one line.  */
int run_preflight (bool numeric_probes, bool runs);

/* The stap program: $GOSTAP_STAP or "stap".  */
const char *run_stap_program (void);

/* The versions `stap -V` reports (stap, and the libdw it uses): 0, or -1
   when stap cannot be run.  */
int run_stap_versions (int *stap_major, int *stap_minor, int *dw_major,
                       int *dw_minor);

/* rm -rf PATH (a directory gostap made in its cache).  */
void run_remove_tree (const char *path);

#endif
