/* write-pprof.c: a profile (profile.h) as pprof's profile.proto, gzipped,
   the format `go tool pprof` reads: encoded by protobuf-c from the
   messages of profile.proto, compressed by zlib.  One mapping, the
   binary's executable segment with its build id, marked as symbolized
   (functions, files, lines and inlined frames are all in the profile:
   pprof needs no binary to show it).  Each function has its start_line
   where the pclntab has it (Go 1.20+), which `go build -pgo` needs to
   place the profile's call edges in the source.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "profile.h"
#include "profile.pb-c.h"
#include "stp-write.h"
#include "util.h"

typedef Gostap__Pprof__Profile Profile;
typedef Gostap__Pprof__ValueType ValueType;
typedef Gostap__Pprof__Sample Sample;
typedef Gostap__Pprof__Label Label;
typedef Gostap__Pprof__Mapping Mapping;
typedef Gostap__Pprof__Location Location;
typedef Gostap__Pprof__Line Line;
typedef Gostap__Pprof__Function Function;

/* The string table: each string once (hash_find, util.c).  */
struct strings
{
  char **v;
  size_t n, cap;
  struct hash_slot *ht;
  size_t hn;
};

static bool
str_eq (const void *ctx, size_t i, const void *key)
{
  const struct strings *t = ctx;
  return strcmp (t->v[i], key) == 0;
}

/* The index of S in the table (added when new), or -1.  */
static int64_t
str_index (struct strings *t, const char *s)
{
  uint64_t h = fnv1a (FNV1A_BASIS, s, strlen (s));
  struct hash_slot *slot = hash_find (&t->ht, &t->hn, t->n, h, str_eq, t, s);
  if (slot == NULL)
    return -1;
  if (slot->idx != 0)
    return (int64_t) slot->idx - 1;
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? 2 * t->cap : 256;
      char **v = reallocarray (t->v, cap, sizeof *v);
      if (v == NULL)
        return -1;
      t->v = v;
      t->cap = cap;
    }
  t->v[t->n] = (char *) s;
  slot->idx = ++t->n;
  slot->h = h;
  return (int64_t) t->n - 1;
}

/* The index of S, or 0 and *OOM.  */
static int64_t
str_add (struct strings *t, const char *s, bool *oom)
{
  int64_t i = str_index (t, s);
  if (i < 0)
    {
      *oom = true;
      return 0;
    }
  return i;
}

/* BYTES gzipped into *OUT (malloc'd), length *OUTLEN; 0, or a zlib error
   code.  */
static int
gzip (const uint8_t *bytes, size_t len, uint8_t **out, size_t *outlen)
{
  z_stream z = { 0 };
  int r = deflateInit2 (&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                        Z_DEFAULT_STRATEGY);
  if (r != Z_OK)
    return r;
  uLong cap = deflateBound (&z, (uLong) len) + 32;
  *out = malloc (cap);
  if (*out == NULL)
    {
      deflateEnd (&z);
      return Z_MEM_ERROR;
    }
  z.next_in = (Bytef *) bytes;
  z.avail_in = (uInt) len;
  z.next_out = *out;
  z.avail_out = (uInt) cap;
  r = deflate (&z, Z_FINISH);
  *outlen = z.total_out;
  deflateEnd (&z);
  if (r != Z_STREAM_END)
    {
      free (*out);
      *out = NULL;
      return r == Z_OK ? Z_BUF_ERROR : r;
    }
  return Z_OK;
}

/* The executable segment of B (the one mapping).  */
static void
fill_mapping (const struct go_bin *b, Mapping *m)
{
  const struct go_seg *s = gobin_exec_segment (b);
  if (s != NULL)
    {
      m->memory_start = s->vaddr;
      m->memory_limit = s->vaddr + s->memsz;
      m->file_offset = s->offset;
    }
}

/* The messages of one profile, each array as protobuf-c wants it (the
   messages and the pointers to them), and its string table.  */
struct pb
{
  ValueType *types, **ptypes, period;
  Sample *samples, **psamples;
  Label *labels, **plabels;
  Location *locs, **plocs;
  Line *lines, **plines;
  Function *funcs, **pfuncs;
  uint64_t *locids;
  int64_t *values;
  Mapping mapping, *pmapping;
  struct strings st;
  bool oom;             /* a string could not be added */
};

/* Allocate A's arrays for P; false when memory runs out.  */
static bool
pb_alloc (struct pb *a, const struct profile *p)
{
  memset (a, 0, sizeof *a);
  a->period = (ValueType) GOSTAP__PPROF__VALUE_TYPE__INIT;
  a->mapping = (Mapping) GOSTAP__PPROF__MAPPING__INIT;
  a->pmapping = &a->mapping;
  a->types = calloc (p->ntypes, sizeof *a->types);
  a->ptypes = calloc (p->ntypes, sizeof *a->ptypes);
  a->samples = calloc (p->nsamples, sizeof *a->samples);
  a->psamples = calloc (p->nsamples, sizeof *a->psamples);
  a->labels = calloc (p->nlabels, sizeof *a->labels);
  a->plabels = calloc (p->nlabels, sizeof *a->plabels);
  a->locs = calloc (p->nlocs, sizeof *a->locs);
  a->plocs = calloc (p->nlocs, sizeof *a->plocs);
  a->lines = calloc (p->nlines, sizeof *a->lines);
  a->plines = calloc (p->nlines, sizeof *a->plines);
  a->funcs = calloc (p->nfuncs, sizeof *a->funcs);
  a->pfuncs = calloc (p->nfuncs, sizeof *a->pfuncs);
  a->locids = calloc (p->nsample_locs, sizeof *a->locids);
  a->values = calloc (p->nsamples * p->ntypes, sizeof *a->values);
  return !((p->ntypes && (a->types == NULL || a->ptypes == NULL))
           || (p->nsamples && (a->samples == NULL || a->psamples == NULL
                               || a->values == NULL))
           || (p->nlabels && (a->labels == NULL || a->plabels == NULL))
           || (p->nlocs && (a->locs == NULL || a->plocs == NULL))
           || (p->nlines && (a->lines == NULL || a->plines == NULL))
           || (p->nfuncs && (a->funcs == NULL || a->pfuncs == NULL))
           || (p->nsample_locs && a->locids == NULL)
           || str_index (&a->st, "") != 0);
}

static void
pb_free (struct pb *a)
{
  free (a->st.v);
  free (a->st.ht);
  free (a->types);
  free (a->ptypes);
  free (a->samples);
  free (a->psamples);
  free (a->labels);
  free (a->plabels);
  free (a->locs);
  free (a->plocs);
  free (a->lines);
  free (a->plines);
  free (a->funcs);
  free (a->pfuncs);
  free (a->locids);
  free (a->values);
}

/* The index of S in A's string table.  */
static int64_t
pb_str (struct pb *a, const char *s)
{
  return str_add (&a->st, s, &a->oom);
}

/* P's sample types and period into PR.  */
static void
pb_types (struct pb *a, const struct profile *p, Profile *pr)
{
  for (size_t i = 0; i < p->ntypes; i++)
    {
      gostap__pprof__value_type__init (&a->types[i]);
      a->types[i].type = pb_str (a, p->type[i].type);
      a->types[i].unit = pb_str (a, p->type[i].unit);
      a->ptypes[i] = &a->types[i];
    }
  pr->n_sample_type = p->ntypes;
  pr->sample_type = a->ptypes;
  if (p->has_period)
    {
      a->period.type = pb_str (a, p->period_type.type);
      a->period.unit = pb_str (a, p->period_type.unit);
      pr->period_type = &a->period;
      pr->period = p->period;
    }
}

/* P's functions, and its locations with their lines (inlined calls),
   into PR.  */
static void
pb_code (struct pb *a, const struct profile *p, Profile *pr)
{
  for (size_t i = 0; i < p->nfuncs; i++)
    {
      gostap__pprof__function__init (&a->funcs[i]);
      a->funcs[i].id = i + 1;
      a->funcs[i].name = pb_str (a, p->funcs[i].name);
      a->funcs[i].system_name = pb_str (a, p->funcs[i].system_name);
      a->funcs[i].filename = pb_str (a, p->funcs[i].file);
      a->funcs[i].start_line = p->funcs[i].start_line;
      a->pfuncs[i] = &a->funcs[i];
    }
  pr->n_function = p->nfuncs;
  pr->function = a->pfuncs;
  for (size_t i = 0; i < p->nlines; i++)
    {
      gostap__pprof__line__init (&a->lines[i]);
      a->lines[i].function_id = p->lines[i].func + 1;
      a->lines[i].line = p->lines[i].line;
      a->plines[i] = &a->lines[i];
    }
  for (size_t i = 0; i < p->nlocs; i++)
    {
      gostap__pprof__location__init (&a->locs[i]);
      a->locs[i].id = i + 1;
      a->locs[i].mapping_id = 1;
      a->locs[i].address = p->locs[i].address;
      a->locs[i].n_line = p->locs[i].nlines;
      a->locs[i].line = a->plines + p->locs[i].line0;
      a->plocs[i] = &a->locs[i];
    }
  pr->n_location = p->nlocs;
  pr->location = a->plocs;
}

/* P's samples with their locations, values and labels into PR.  */
static void
pb_samples (struct pb *a, const struct profile *p, Profile *pr)
{
  for (size_t i = 0; i < p->nlabels; i++)
    {
      gostap__pprof__label__init (&a->labels[i]);
      a->labels[i].key = pb_str (a, p->labels[i].key);
      a->labels[i].str = pb_str (a, p->labels[i].value);
      a->plabels[i] = &a->labels[i];
    }
  for (size_t i = 0; i < p->nsample_locs; i++)
    a->locids[i] = p->sample_locs[i] + 1;
  for (size_t i = 0; i < p->nsamples; i++)
    {
      const struct profile_sample *s = &p->samples[i];
      Sample *out = &a->samples[i];
      gostap__pprof__sample__init (out);
      out->n_location_id = s->nlocs;
      out->location_id = a->locids + s->loc0;
      out->n_value = p->ntypes;
      out->value = a->values + i * p->ntypes;
      memcpy (out->value, s->value, p->ntypes * sizeof *a->values);
      out->n_label = s->nlabels;
      out->label = a->plabels + s->label0;
      a->psamples[i] = out;
    }
  pr->n_sample = p->nsamples;
  pr->sample = a->psamples;
}

/* The one mapping: B's executable segment, its path and build id, all
   symbolized.  */
static void
pb_mapping (struct pb *a, const struct go_bin *b, Profile *pr)
{
  a->mapping.id = 1;
  fill_mapping (b, &a->mapping);
  a->mapping.filename = pb_str (a, b->probe_path);
  a->mapping.build_id = pb_str (a, b->build_id);
  a->mapping.has_functions = a->mapping.has_filenames = true;
  a->mapping.has_line_numbers = a->mapping.has_inline_frames = true;
  pr->n_mapping = 1;
  pr->mapping = &a->pmapping;
}

/* PR packed, gzipped, written to PATH (a temporary name, renamed).  */
static int
pack_and_write (const Profile *pr, const char *path)
{
  int ret = -1;
  uint8_t *packed = NULL, *gz = NULL;
  size_t gzlen = 0;
  size_t len = gostap__pprof__profile__get_packed_size (pr);
  if ((packed = malloc (len ? len : 1)) == NULL)
    {
      error (0, ENOMEM, "%s", path);
      return -1;
    }
  gostap__pprof__profile__pack (pr, packed);
  int zr = gzip (packed, len, &gz, &gzlen);
  if (zr != Z_OK)
    error (0, 0, "%s: deflate: %s", path, zError (zr));
  else
    {
      struct stp_file sf;
      if (stp_file_open_path (&sf, path) == 0)
        {
          bool ok = fwrite (gz, 1, gzlen, sf.f) == gzlen;
          if (!ok)
            error (0, errno, "%s: write", path);
          ret = stp_file_close (&sf, ok);
        }
      else
        stp_file_close (&sf, 0);
    }
  free (gz);
  free (packed);
  return ret;
}

int
write_pprof (const struct profile *p, const char *path)
{
  int ret = -1;
  struct pb a;
  Profile pr = GOSTAP__PPROF__PROFILE__INIT;
  if (!pb_alloc (&a, p))
    goto oom;
  pb_types (&a, p, &pr);
  pb_code (&a, p, &pr);
  pb_samples (&a, p, &pr);
  pb_mapping (&a, p->b, &pr);
  if (a.oom)
    goto oom;
  pr.n_string_table = a.st.n;
  pr.string_table = a.st.v;
  struct timespec now;
  if (clock_gettime (CLOCK_REALTIME, &now) == 0)
    pr.time_nanos = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;
  ret = pack_and_write (&pr, path);
  goto out;
oom:
  error (0, ENOMEM, "%s", path);
out:
  pb_free (&a);
  return ret;
}
