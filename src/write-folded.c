/* write-folded.c: a profile (profile.h) as folded stacks, the input of
   flame graph tools (flamegraph.pl, inferno, speedscope): a line per
   sample, its frames from the outermost to the innermost separated by
   ';' (inlined calls as frames of their own, as pprof shows them), a
   space and the sample's value of the last sample type (the one pprof
   shows by default).  Labels are not part of the format: samples that
   differ only by them give equal stacks, which the tools add up.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <string.h>

#include "profile.h"
#include "stp-write.h"

/* A frame's name: ';' separates frames, so it is written as \x3b (names
   are already escaped: no control byte, no newline).  */
static void
put_name (FILE *f, const char *name)
{
  for (; *name != '\0'; name++)
    if (*name == ';')
      fputs ("\\x3b", f);
    else
      putc (*name, f);
}

int
write_folded (const struct profile *p, const char *path)
{
  struct stp_file sf;
  if (stp_file_open_path (&sf, path) != 0)
    {
      stp_file_close (&sf, 0);
      return -1;
    }
  size_t t = p->ntypes - 1;
  for (size_t i = 0; i < p->nsamples; i++)
    {
      const struct profile_sample *s = &p->samples[i];
      if (s->value[t] == 0)
        continue;
      bool first = true;
      for (size_t k = s->nlocs; k-- > 0;)
        {
          const struct profile_loc *l = &p->locs[p->sample_locs[s->loc0 + k]];
          for (size_t j = l->nlines; j-- > 0;)
            {
              if (!first)
                putc (';', sf.f);
              put_name (sf.f, p->funcs[p->lines[l->line0 + j].func].name);
              first = false;
            }
          if (l->nlines == 0)
            {
              fprintf (sf.f, "%s0x%" PRIx64, first ? "" : ";", l->address);
              first = false;
            }
        }
      fprintf (sf.f, "%s %" PRId64 "\n", first ? "[no stack]" : "",
               s->value[t]);
    }
  bool ok = !ferror (sf.f);
  if (!ok)
    error (0, errno, "%s: write", path);
  return stp_file_close (&sf, ok);
}
