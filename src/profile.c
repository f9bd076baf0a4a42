/* profile.c: the profile model (profile.h) from the lines
   tapsets/go_profile.stp prints: each sample's stack symbolized by
   stack.c, its frames grouped into locations (one physical pc and the
   calls inlined there), functions, locations and samples each kept once
   (samples with the same stack and labels add their values).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "profile.h"
#include "util.h"

/* Grow the array *V of *CAP elements of SIZE bytes to hold N + 1.  */
static bool
grow (void *v, size_t *cap, size_t n, size_t size)
{
  void **pv = v;
  if (n < *cap)
    return true;
  size_t ncap = *cap ? 2 * *cap : 64;
  void *nv = reallocarray (*pv, ncap, size);
  if (nv == NULL)
    return false;
  *pv = nv;
  *cap = ncap;
  return true;
}

struct profile *
profile_new (const struct go_bin *b)
{
  struct profile *p = calloc (1, sizeof *p);
  if (p == NULL || (p->cache = stack_cache_new (b)) == NULL)
    {
      error (0, errno, "malloc");
      free (p);
      return NULL;
    }
  p->b = b;
  return p;
}

void
profile_free (struct profile *p)
{
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      free (p->funcs[i].name);
      free (p->funcs[i].system_name);
      free (p->funcs[i].file);
    }
  for (size_t i = 0; i < p->nlabels; i++)
    {
      free (p->labels[i].key);
      free (p->labels[i].value);
    }
  for (size_t i = 0; i < p->nsamples; i++)
    free (p->samples[i].label_text);
  free (p->funcs);
  free (p->lines);
  free (p->locs);
  free (p->sample_locs);
  free (p->labels);
  free (p->samples);
  free (p->func_ht);
  free (p->loc_ht);
  free (p->sample_ht);
  stack_cache_free (p->cache);
  free (p);
}

/* Remember the first malformed line and why.  */
static void
bad (struct profile *p, size_t lineno, const char *fmt, ...)
{
  if (p->bad_line != 0)
    return;
  p->bad_line = lineno;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (p->why, sizeof p->why, fmt, ap);
  va_end (ap);
}

/* A name of a type or unit at *S up to STOP: [A-Za-z0-9_.-]+.  */
static bool
parse_name (const char **s, char stop, char *out)
{
  size_t n = strspn (*s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.-");
  if (n == 0 || n >= PROFILE_NAME_MAX || (*s)[n] != stop)
    return false;
  memcpy (out, *s, n);
  out[n] = '\0';
  *s += n + 1;
  return true;
}

static bool
parse_int (const char **s, int64_t *v)
{
  char *end;
  errno = 0;
  long long x = strtoll (*s, &end, 10);
  if (end == *s || errno != 0 || (**s != '-' && (**s < '0' || **s > '9')))
    return false;
  *v = x;
  *s = end;
  return true;
}

/* Only an end of line may follow the last '>'.  */
static bool
line_ends (const char *s)
{
  return s[strspn (s, "\r\n")] == '\0';
}

static int
hexval (char c)
{
  return c >= '0' && c <= '9' ? c - '0'
    : c >= 'a' && c <= 'f' ? c - 'a' + 10
    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* NAME as Go prints it (write_func_name) when PRINT, else escaped
   (out.c): malloc'd, or NULL.  */
static char *
escaped (const char *name, bool print)
{
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&out, &size);
  if (f == NULL)
    return NULL;
  if (print)
    write_func_name (f, name);
  else
    out_text_string (f, name);
  if (fclose (f) != 0)
    {
      free (out);
      return NULL;
    }
  return out;
}

/* The LEN bytes at S with %XX decoded, escaped for a terminal (out.c):
   malloc'd, or NULL when a %XX is malformed or out of memory (*OOM).  */
static char *
decode (const char *s, size_t len, bool *oom)
{
  char *raw = malloc (len + 1), *out = NULL;
  size_t n = 0;
  if (raw == NULL)
    {
      *oom = true;
      return NULL;
    }
  for (size_t i = 0; i < len; i++)
    if (s[i] != '%')
      raw[n++] = s[i];
    else if (i + 2 < len && hexval (s[i + 1]) >= 0 && hexval (s[i + 2]) >= 0)
      {
        raw[n++] = (char) (hexval (s[i + 1]) << 4 | hexval (s[i + 2]));
        i += 2;
      }
    else
      {
        free (raw);
        return NULL;
      }
  raw[n] = '\0';
  /* A NUL byte (from %00) ends the text.  */
  if ((out = escaped (raw, false)) == NULL)
    *oom = true;
  free (raw);
  return out;
}

/* A parsed sample line.  */
struct sample_line
{
  int64_t value[PROFILE_MAX_TYPES];
  size_t nvalues;
  const char *labels;           /* the encoded text, LABELS_LEN bytes */
  size_t labels_len;
  bool has_stack;
};

/* Parse the labels (encoded) into P->labels from index *FIRST; their
   count, or -1 when malformed.  */
static long
add_labels (struct profile *p, const char *s, size_t len)
{
  long n = 0;
  const char *end = s + len;
  while (s < end)
    {
      const char *semi = memchr (s, ';', (size_t) (end - s));
      const char *stop = semi != NULL ? semi : end;
      const char *eq = memchr (s, '=', (size_t) (stop - s));
      if (stop == s)
        {
          s++;                  /* an empty item */
          continue;
        }
      if (eq == NULL || eq == s)
        return -1;
      if (!grow (&p->labels, &p->clabels, p->nlabels, sizeof *p->labels))
        {
          p->oom = true;
          return -1;
        }
      struct profile_label *l = &p->labels[p->nlabels];
      l->key = decode (s, (size_t) (eq - s), &p->oom);
      l->value = decode (eq + 1, (size_t) (stop - eq - 1), &p->oom);
      if (l->key == NULL || l->value == NULL)
        {
          free (l->key);
          free (l->value);
          return -1;
        }
      p->nlabels++;
      n++;
      s = stop + (semi != NULL);
    }
  return n;
}

static bool
func_eq (const void *ctx, size_t i, const void *key)
{
  const struct profile *p = ctx;
  const struct stack_frame *f = key;
  return strcmp (p->funcs[i].raw_name, f->func) == 0
    && p->funcs[i].start_line == f->start_line
    && strcmp (p->funcs[i].raw_file, f->file != NULL ? f->file : "") == 0;
}

/* The function of frame F, added when new; its index, or -1.  */
static long
intern_func (struct profile *p, const struct stack_frame *f)
{
  const char *file = f->file != NULL ? f->file : "";
  uint64_t h = fnv1a (fnv1a (fnv1a (FNV1A_BASIS, f->func,
                                    strlen (f->func) + 1), file,
                             strlen (file) + 1), &f->start_line,
                      sizeof f->start_line);
  struct hash_slot *s = hash_find (&p->func_ht, &p->func_hn,
                           p->nfuncs, h, func_eq, p, f);
  if (s == NULL)
    return -1;
  if (s->idx != 0)
    return (long) s->idx - 1;
  if (!grow (&p->funcs, &p->cfuncs, p->nfuncs, sizeof *p->funcs))
    return -1;
  struct profile_func *pf = &p->funcs[p->nfuncs];
  pf->name = escaped (f->func, true);
  pf->system_name = escaped (f->func, false);
  pf->file = escaped (file, false);
  pf->raw_name = f->func;
  pf->raw_file = file;
  pf->start_line = f->start_line;
  if (pf->name == NULL || pf->system_name == NULL || pf->file == NULL)
    {
      free (pf->name);
      free (pf->system_name);
      free (pf->file);
      return -1;
    }
  s->idx = ++p->nfuncs;
  s->h = h;
  return (long) p->nfuncs - 1;
}

/* A location being looked up: its address and lines (in p->lines from
   LINE0, not yet kept).  */
struct loc_key
{
  uint64_t address;
  size_t line0, nlines;
};

static bool
loc_eq (const void *ctx, size_t i, const void *key)
{
  const struct profile *p = ctx;
  const struct loc_key *k = key;
  const struct profile_loc *l = &p->locs[i];
  if (l->address != k->address || l->nlines != k->nlines)
    return false;
  for (size_t j = 0; j < k->nlines; j++)
    if (p->lines[l->line0 + j].func != p->lines[k->line0 + j].func
        || p->lines[l->line0 + j].line != p->lines[k->line0 + j].line)
      return false;
  return true;
}

/* The location of frames F[0..N) (one physical pc), ADDRESS; its index,
   or -1 when out of memory.  */
static long
intern_loc (struct profile *p, const struct stack_frame *f, size_t n,
            uint64_t address)
{
  struct loc_key k = { address, p->nlines, 0 };
  uint64_t h = fnv1a (FNV1A_BASIS, &address, sizeof address);
  for (size_t i = 0; i < n && f[i].func != NULL; i++)
    {
      long fi = intern_func (p, &f[i]);
      if (fi < 0 || !grow (&p->lines, &p->clines, p->nlines + k.nlines,
                           sizeof *p->lines))
        return -1;
      struct profile_line *l = &p->lines[p->nlines + k.nlines++];
      l->func = (size_t) fi;
      l->line = f[i].line;
      h = fnv1a (h, l, sizeof *l);
    }
  struct hash_slot *s = hash_find (&p->loc_ht, &p->loc_hn,
                           p->nlocs, h, loc_eq, p, &k);
  if (s == NULL)
    return -1;
  if (s->idx != 0)
    return (long) s->idx - 1;   /* its lines stay unused past nlines */
  if (!grow (&p->locs, &p->clocs, p->nlocs, sizeof *p->locs))
    return -1;
  p->locs[p->nlocs] = (struct profile_loc) { address, p->nlines, k.nlines };
  p->nlines += k.nlines;
  s->idx = ++p->nlocs;
  s->h = h;
  return (long) p->nlocs - 1;
}

/* A sample being looked up: its locations (in p->sample_locs from LOC0,
   not yet kept) and label text.  */
struct sample_key
{
  size_t loc0, nlocs;
  const char *labels;
  size_t labels_len;
};

static bool
sample_eq (const void *ctx, size_t i, const void *key)
{
  const struct profile *p = ctx;
  const struct sample_key *k = key;
  const struct profile_sample *s = &p->samples[i];
  return s->nlocs == k->nlocs
    && memcmp (&p->sample_locs[s->loc0], &p->sample_locs[k->loc0],
               k->nlocs * sizeof *p->sample_locs) == 0
    && strlen (s->label_text) == k->labels_len
    && memcmp (s->label_text, k->labels, k->labels_len) == 0;
}

/* Add sample SL (its stack in p->record when it has one).  */
static bool
add_sample (struct profile *p, const struct sample_line *sl, size_t lineno)
{
  size_t n = sl->has_stack
    ? stack_frames (p->cache, &p->record, p->frames,
                    sizeof p->frames / sizeof p->frames[0]) : 0;
  struct sample_key k = { p->nsample_locs, 0, sl->labels, sl->labels_len };
  uint64_t h = fnv1a (FNV1A_BASIS, sl->labels, sl->labels_len);
  for (size_t i = 0; i < n;)
    {
      /* A location: the inlined frames of one pc and its physical one.  */
      size_t j = i;
      while (p->frames[j].inlined && j + 1 < n
             && p->frames[j + 1].pc == p->frames[j].pc)
        j++;
      /* The address of the instruction in question, as runtime/pprof
         writes it: a return address's call (pc - 1).  Not by position:
         a leaf wrapper left out makes the first frame a caller's.  */
      uint64_t address = p->frames[i].pc;
      if (p->frames[i].ret && address > 0)
        address--;
      long li = intern_loc (p, &p->frames[i], j + 1 - i, address);
      if (li < 0 || !grow (&p->sample_locs, &p->csample_locs,
                           p->nsample_locs + k.nlocs, sizeof *p->sample_locs))
        return false;
      p->sample_locs[p->nsample_locs + k.nlocs++] = (size_t) li;
      h = fnv1a (h, &li, sizeof li);
      i = j + 1;
    }
  struct hash_slot *s = hash_find (&p->sample_ht, &p->sample_hn,
                           p->nsamples, h, sample_eq, p, &k);
  if (s == NULL)
    return false;
  for (size_t t = 0; t < p->ntypes; t++)
    {
      if (__builtin_add_overflow (p->total[t], sl->value[t], &p->total[t]))
        {
          bad (p, lineno, "the values of '%s' overflow", p->type[t].type);
          return true;
        }
    }
  if (s->idx != 0)
    {
      struct profile_sample *ps = &p->samples[s->idx - 1];
      for (size_t t = 0; t < p->ntypes; t++)
        ps->value[t] += sl->value[t];   /* bounded by the total */
      return true;
    }
  if (!grow (&p->samples, &p->csamples, p->nsamples, sizeof *p->samples))
    return false;
  struct profile_sample *ps = &p->samples[p->nsamples];
  memset (ps, 0, sizeof *ps);
  ps->label_text = strndup (sl->labels, sl->labels_len);
  if (ps->label_text == NULL)
    return false;
  ps->label0 = p->nlabels;
  long nl = add_labels (p, sl->labels, sl->labels_len);
  if (nl < 0)
    {
      free (ps->label_text);
      if (!p->oom)
        bad (p, lineno, "malformed labels");
      return !p->oom;
    }
  ps->nlabels = (size_t) nl;
  ps->loc0 = k.loc0;
  ps->nlocs = k.nlocs;
  memcpy (ps->value, sl->value, sizeof ps->value);
  p->nsample_locs += k.nlocs;
  s->idx = ++p->nsamples;
  s->h = h;
  return true;
}

/* The sample line at S (after "<goprof:sample:") into SL and p->record;
   NULL when it is malformed, else where it ends.  */
static const char *
parse_sample (struct profile *p, const char *s, struct sample_line *sl)
{
  sl->nvalues = 0;
  for (;;)
    {
      if (sl->nvalues == PROFILE_MAX_TYPES
          || !parse_int (&s, &sl->value[sl->nvalues]))
        return NULL;
      sl->nvalues++;
      if (*s == ':')
        break;
      if (*s++ != ',')
        return NULL;
    }
  s++;
  const char *colon = strchr (s, ':');
  if (colon == NULL)
    return NULL;
  sl->labels = s;
  sl->labels_len = (size_t) (colon - s);
  s = colon + 1;
  sl->has_stack = strncmp (s, STACK_TOKEN, strlen (STACK_TOKEN)) == 0;
  if (sl->has_stack)
    {
      size_t len;
      if (!stack_parse (s, &p->record, &len))
        return NULL;
      s += len;
    }
  return *s == '>' ? s + 1 : NULL;
}

/* The text form of a sample: "sample: samples=3 reason=chan receive",
   then its stack in Go's traceback format.  */
static void
write_text (struct profile *p, const struct sample_line *sl, FILE *out)
{
  fputs ("sample:", out);
  for (size_t t = 0; t < sl->nvalues; t++)
    fprintf (out, " %s=%" PRId64, t < p->ntypes ? p->type[t].type : "value",
             sl->value[t]);
  size_t first = p->nlabels;
  long nl = add_labels (p, sl->labels, sl->labels_len);
  for (long i = 0; i < nl; i++)
    fprintf (out, " %s=%s", p->labels[first + (size_t) i].key,
             p->labels[first + (size_t) i].value);
  while (p->nlabels > first)
    {
      p->nlabels--;
      free (p->labels[p->nlabels].key);
      free (p->labels[p->nlabels].value);
    }
  putc ('\n', out);
  if (sl->has_stack)
    {
      write_traceback (out, p->cache, &p->record);
      putc ('\n', out);
    }
}

/* Take a line that starts with PROFILE_TOKEN, S after it.  */
static void
take (struct profile *p, const char *s, size_t lineno, FILE *text)
{
  static const char type[] = "type:", period[] = "period:",
    sample[] = "sample:";
  if (strncmp (s, type, sizeof type - 1) == 0)
    {
      struct profile_type t;
      s += sizeof type - 1;
      if (!parse_name (&s, ':', t.type) || !parse_name (&s, '>', t.unit)
          || !line_ends (s))
        bad (p, lineno, "malformed sample type");
      else if (p->nsamples > 0)
        bad (p, lineno, "a sample type after the first sample");
      else if (p->ntypes == PROFILE_MAX_TYPES)
        bad (p, lineno, "more than %d sample types", PROFILE_MAX_TYPES);
      else
        p->type[p->ntypes++] = t;
      return;
    }
  if (strncmp (s, period, sizeof period - 1) == 0)
    {
      s += sizeof period - 1;
      if (!parse_name (&s, ':', p->period_type.type)
          || !parse_name (&s, ':', p->period_type.unit)
          || !parse_int (&s, &p->period) || *s++ != '>' || !line_ends (s))
        bad (p, lineno, "malformed period");
      else
        p->has_period = true;
      return;
    }
  struct sample_line sl;
  if (strncmp (s, sample, sizeof sample - 1) != 0
      || (s = parse_sample (p, s + sizeof sample - 1, &sl)) == NULL
      || !line_ends (s))
    {
      bad (p, lineno, "malformed profile line");
      return;
    }
  if (text != NULL)
    {
      write_text (p, &sl, text);
      return;
    }
  if (p->ntypes == 0 && sl.nvalues == 1)
    {
      /* No type declared: one count per sample.  */
      strcpy (p->type[0].type, "samples");
      strcpy (p->type[0].unit, "count");
      p->ntypes = 1;
    }
  if (sl.nvalues != p->ntypes)
    bad (p, lineno, "%zu values in a sample of %zu sample types",
         sl.nvalues, p->ntypes);
  else if (p->bad_line == 0 && !p->oom && !add_sample (p, &sl, lineno))
    p->oom = true;
}

bool
profile_line (struct profile *p, const char *line, size_t len, size_t lineno,
              FILE *text)
{
  if (len < strlen (PROFILE_TOKEN)
      || strncmp (line, PROFILE_TOKEN, strlen (PROFILE_TOKEN)) != 0)
    return false;
  bool was_bad = p->bad_line != 0;
  take (p, line + strlen (PROFILE_TOKEN), lineno, text);
  if (text != NULL && !was_bad && p->bad_line != 0)
    {
      /* Written as text, a malformed line is just text.  */
      p->bad_line = 0;
      fwrite (line, 1, len, text);
    }
  return true;
}

int
profile_done (const struct profile *p, const char *outname)
{
  if (p->oom)
    error (0, ENOMEM, "%s not written", outname);
  else if (p->bad_line != 0)
    error (0, 0, "%s not written: line %zu of stap's output: %s", outname,
           p->bad_line, p->why);
  else if (p->nsamples == 0)
    error (0, 0, "%s not written: the script printed no profile sample "
           "(go_profile_sample, tapsets/go_profile.stp)", outname);
  else
    return 0;
  return -1;
}

int
profile_write (const struct profile *p, const char *pprof, const char *folded)
{
  int ret = 0;
  if (pprof != NULL && (profile_done (p, pprof) != 0
                        || write_pprof (p, pprof) != 0))
    ret = -1;
  if (folded != NULL && (profile_done (p, folded) != 0
                         || write_folded (p, folded) != 0))
    ret = -1;
  return ret;
}
