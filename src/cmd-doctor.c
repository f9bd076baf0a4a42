/* cmd-doctor.c: gostap doctor [BINARY]

   Reports what SystemTap on this machine can do for Go programs, and for
   BINARY what will work (entry probes, RET probes, arguments, Go stacks,
   backtraces) and why not.  One line a fact: "ok", "NO" or "??" (unknown), then why. */

#include "config.h"

#include <argp.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "gobin.h"
#include "run.h"
#include "select.h"

/* Set by parse_opt.  */
struct doctor_args
{
  const char *binary;
};

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct doctor_args *a = state->input;
  switch (key)
    {
    case ARGP_KEY_ARG:
      if (a->binary != NULL)
        argp_error (state, "one binary at most");
      a->binary = arg;
      return 0;
    default:
      return ARGP_ERR_UNKNOWN;
    }
}

static void
line (const char *status, const char *what, const char *why)
{
  printf ("%-3s %-22s %s\n", status, what, why);
}

/* What the reports share: stap's and libdw's versions, and what the
   binary's DWARF allows.  */
struct doctor
{
  bool have_stap;
  int sM, sm, dM, dm;           /* stap's and libdw's versions */
  bool new_dw;                  /* libdw finds Go code (0.191+, or helped) */
  bool dwarf, companion, syms;
  int dwarf_version;
};

/* This machine: what gostap run checks before it starts stap, as it
   checks it, and the kernel's build tree.  */
static void
doctor_system (struct doctor *d)
{
  char buf[512];
  d->have_stap = run_stap_versions (&d->sM, &d->sm, &d->dM, &d->dm) == 0;
  d->new_dw = d->have_stap && (d->dM > 0 || d->dm >= 191);
  struct run_check c[RUN_MAX_CHECKS];
  size_t nc = run_checks (false, true, c);
  for (size_t i = 0; i < nc; i++)
    line (c[i].status == 1 ? "ok" : c[i].status == 0 ? "NO" : "??",
          c[i].what, c[i].why);
  struct utsname u;
  if (uname (&u) == 0)
    {
      char path[400];
      snprintf (path, sizeof path, "/lib/modules/%s/build", u.release);
      bool tree = access (path, F_OK) == 0;
      snprintf (buf, sizeof buf, "%s%s", path, tree ? ""
                : " missing: install kernel-devel (RHEL) or linux-headers "
                "(Debian) for this kernel");
      line (tree ? "ok" : "NO", "kernel build tree", buf);
    }
  line ("ok", "kernel debuginfo", "not needed for process probes");
}

/* Where B's DWARF comes from, into BUF.  */
static void
dwarf_origin (const struct go_bin *b, const struct doctor *d,
              enum go_dwarf_source source, const char *debug_file,
              char *buf, size_t size)
{
  const char *env = getenv ("SYSTEMTAP_DEBUGINFO_PATH");
  const char *urls = getenv ("DEBUGINFOD_URLS");
  if (source == GO_DWARF_BINARY)
    snprintf (buf, size, "DWARF %d, in the binary", d->dwarf_version);
  else if (d->dwarf && debug_file == NULL)
    snprintf (buf, size, "DWARF %d, from debuginfod", d->dwarf_version);
  else if (d->companion)
    snprintf (buf, size, "a gostap companion debug file, %s (made "
              "from the .gopclntab: functions, lines, frames; no types)",
              debug_file);
  else if (d->dwarf)
    snprintf (buf, size, "DWARF %d, from %s (%s)", d->dwarf_version,
              debug_file, source == GO_DWARF_BUILD_ID ? "build id"
              : source == GO_DWARF_DEBUGLINK ? ".gnu_debuglink"
              : "debuginfod");
  else
    snprintf (buf, size, "none in the binary (-ldflags=-w) nor in a "
              "separate debug file (%s build id; searched %s%s%s)",
              b->gnu_build_id != NULL ? "GNU" : "no GNU",
              env != NULL ? "SYSTEMTAP_DEBUGINFO_PATH" : "stap's default "
              "debuginfo path", urls != NULL && urls[0] != '\0'
              ? " and DEBUGINFOD_URLS" : "", b->has_dwarf ? "; libdw cannot "
              "read the binary's own" : "; gostap companion writes one, "
              "gostap run does by itself");
}

/* B itself: its release, its DWARF and where it comes from, its
   symbols, and for an older libdw whether stap gets .debug_aranges.  */
static void
doctor_debuginfo (const struct go_bin *b, struct doctor *d)
{
  char buf[512];
  snprintf (buf, sizeof buf, "%s, %s, %s%s", b->go_version[0]
            ? b->go_version : "Go version unknown", arch_name (b->arch),
            b->pie ? "PIE" : "not PIE", b->cgo ? ", cgo" : "");
  line ("ok", "binary", buf);
  d->dwarf_version = gobin_dwarf_version (b);
  const char *debug_file;
  enum go_dwarf_source source = gobin_dwarf_source (b, &debug_file);
  d->dwarf = source != GO_DWARF_NONE;
  d->companion = gobin_dwarf_companion (b);
  d->syms = gobin_has_symbols (b);
  dwarf_origin (b, d, source, debug_file, buf, sizeof buf);
  line (d->dwarf ? "ok" : "NO", "DWARF", buf);
  line (d->syms ? "ok" : "NO", ".symtab", b->has_symtab ? "present"
        : d->syms ? "in the debug file" : "none (-ldflags=-s)");
  /* A companion carries .debug_aranges: any libdw finds its unit, and
     every probe address starts a row of its line table.  Other DWARF
     gets them from gostap run on an older libdw (run-aranges.c).  */
  bool older = d->have_stap && !d->new_dw && d->dwarf && !d->companion;
  bool helped = older && (source == GO_DWARF_BINARY
                          || (b->gnu_build_id != NULL && debug_file != NULL));
  if (older)
    {
      snprintf (buf, sizeof buf, "libdw %d.%d needs them to find Go code "
                "and Go writes none: %s", d->dM, d->dm, !helped
                ? (b->gnu_build_id != NULL
                   ? "gostap cannot name the debug file libdwfl found, so "
                   "it cannot give stap a copy with them"
                   : "the debug file has no GNU build id by which gostap "
                   "could give stap a copy with them (stap would check its "
                   ".gnu_debuglink CRC)")
                : source == GO_DWARF_BINARY
                ? "gostap run gives stap a copy of the binary with them "
                "(--sysroot; gostap gen --aranges makes it for stap by hand)"
                : "gostap run gives stap a copy of the debug file with them "
                "(first in SYSTEMTAP_DEBUGINFO_PATH; gostap gen --aranges makes it for "
                "stap by hand)");
      line (helped ? "ok" : "NO", ".debug_aranges", buf);
    }
  d->new_dw = d->new_dw || d->companion || helped;
}

/* What probes can do on the binary D describes.  */
static void
doctor_probes (const struct doctor *d)
{
  char buf[512];
  bool dwarf = d->dwarf, new_dw = d->new_dw, companion = d->companion;
  if (dwarf && new_dw)
    line ("ok", "entry probes", "after the stack check, once per call");
  else if (d->syms)
    line ("ok", "entry probes", dwarf
          ? "by name only (libdw too old): at the first instruction, twice "
          "when the stack grows"
          : "by name only (no DWARF): at the first instruction, twice when "
          "the stack grows");
  else
    line ("NO", "entry probes", "no DWARF and no .symtab");
  line (dwarf && new_dw ? "ok" : "NO", "RET probes", companion
        ? "statement probes at every RET (each starts a line-table row: "
        "no -g)" : dwarf ? (new_dw ? "statement probes at every RET (stap -g)"
           : "need libdw 0.191+") : "need DWARF");
  line (dwarf && new_dw && !companion ? "ok" : "NO", "arguments, results",
        companion ? "need DWARF types (the .gopclntab has none)"
        : dwarf ? (new_dw ? "from DWARF types and Go's ABI, floats "
                 "from the thread's float registers" : "need libdw 0.191+")
        : "need DWARF types");
  line ("ok", "Go stacks",
        "go_stack(), go_sched_stack(): frame pointers, symbolized by "
        "gostap run from the .gopclntab (function, file:line, inlined "
        "calls), with or without DWARF");
  if (!dwarf)
    line ("NO", "backtraces", "no .debug_frame (-w drops it)");
  else if (d->dwarf_version >= 5 && !companion && d->have_stap
           && (d->sM < 5 || (d->sM == 5 && d->sm <= 6)))
    {
      /* Measured on 5.1 and 5.6 (facts.md); 4.x not run on Go 1.25+
         binaries yet, taken to be no better.  */
      snprintf (buf, sizeof buf, "SystemTap %d.%d's runtime cannot read "
                "Go's DWARF 5 line tables (Go 1.25+) for "
                "print_ubacktrace_fileline: use go_stack()", d->sM, d->sm);
      line ("NO", "backtraces", buf);
    }
  else
    line ("ok", "backtraces", "print_ubacktrace_fileline with -d BINARY");
}

int
cmd_doctor (int argc, char **argv)
{
  static const struct argp argp = {
    NULL, parse_opt, "[BINARY]",
    "Report what SystemTap here can do for Go programs, and what will work "
    "for BINARY."
    "\vEach line: ok, NO or ?? (unknown), the fact, and why.\n\n"
    "Exit status: 0 (whatever it reports), 2 BINARY is not a usable Go "
    "binary, 64 usage error.\n\n"
    "Examples:\n"
    "  gostap doctor\n"
    "  gostap doctor ./server",
    NULL, NULL, NULL,
  };
  struct doctor_args a = { 0 };
  if (argp_parse (&argp, argc, argv, 0, NULL, &a) != 0)
    return EXIT_USAGE;
  struct doctor d = { 0 };
  doctor_system (&d);
  if (a.binary == NULL)
    return EXIT_OK;
  struct go_bin b;
  int ret = select_prepare (&b, a.binary, 0, NULL);
  if (ret == EXIT_OK)
    {
      doctor_debuginfo (&b, &d);
      doctor_probes (&d);
    }
  gobin_close (&b);
  return ret;
}
