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

int
write_pprof (const struct profile *p, const char *path)
{
  int ret = -1;
  struct strings st = { 0 };
  Profile pr = GOSTAP__PPROF__PROFILE__INIT;
  ValueType *types = calloc (p->ntypes, sizeof *types), **ptypes
    = calloc (p->ntypes, sizeof *ptypes), period = GOSTAP__PPROF__VALUE_TYPE__INIT;
  Sample *samples = calloc (p->nsamples, sizeof *samples), **psamples
    = calloc (p->nsamples, sizeof *psamples);
  Label *labels = calloc (p->nlabels, sizeof *labels), **plabels
    = calloc (p->nlabels, sizeof *plabels);
  Location *locs = calloc (p->nlocs, sizeof *locs), **plocs
    = calloc (p->nlocs, sizeof *plocs);
  Line *lines = calloc (p->nlines, sizeof *lines), **plines
    = calloc (p->nlines, sizeof *plines);
  Function *funcs = calloc (p->nfuncs, sizeof *funcs), **pfuncs
    = calloc (p->nfuncs, sizeof *pfuncs);
  uint64_t *locids = calloc (p->nsample_locs, sizeof *locids);
  int64_t *values = calloc (p->nsamples * p->ntypes, sizeof *values);
  Mapping mapping = GOSTAP__PPROF__MAPPING__INIT, *pmapping = &mapping;
  uint8_t *packed = NULL, *gz = NULL;
  size_t gzlen = 0;
  bool oom = false;

  if ((p->ntypes && (types == NULL || ptypes == NULL))
      || (p->nsamples && (samples == NULL || psamples == NULL
                          || values == NULL))
      || (p->nlabels && (labels == NULL || plabels == NULL))
      || (p->nlocs && (locs == NULL || plocs == NULL))
      || (p->nlines && (lines == NULL || plines == NULL))
      || (p->nfuncs && (funcs == NULL || pfuncs == NULL))
      || (p->nsample_locs && locids == NULL) || str_index (&st, "") != 0)
    goto oom;

#define STR(s) str_add (&st, (s), &oom)
  for (size_t i = 0; i < p->ntypes; i++)
    {
      gostap__pprof__value_type__init (&types[i]);
      types[i].type = STR (p->type[i].type);
      types[i].unit = STR (p->type[i].unit);
      ptypes[i] = &types[i];
    }
  pr.n_sample_type = p->ntypes;
  pr.sample_type = ptypes;
  if (p->has_period)
    {
      period.type = STR (p->period_type.type);
      period.unit = STR (p->period_type.unit);
      pr.period_type = &period;
      pr.period = p->period;
    }

  for (size_t i = 0; i < p->nfuncs; i++)
    {
      gostap__pprof__function__init (&funcs[i]);
      funcs[i].id = i + 1;
      funcs[i].name = STR (p->funcs[i].name);
      funcs[i].system_name = STR (p->funcs[i].system_name);
      funcs[i].filename = STR (p->funcs[i].file);
      funcs[i].start_line = p->funcs[i].start_line;
      pfuncs[i] = &funcs[i];
    }
  pr.n_function = p->nfuncs;
  pr.function = pfuncs;

  for (size_t i = 0; i < p->nlines; i++)
    {
      gostap__pprof__line__init (&lines[i]);
      lines[i].function_id = p->lines[i].func + 1;
      lines[i].line = p->lines[i].line;
      plines[i] = &lines[i];
    }
  for (size_t i = 0; i < p->nlocs; i++)
    {
      gostap__pprof__location__init (&locs[i]);
      locs[i].id = i + 1;
      locs[i].mapping_id = 1;
      locs[i].address = p->locs[i].address;
      locs[i].n_line = p->locs[i].nlines;
      locs[i].line = plines + p->locs[i].line0;
      plocs[i] = &locs[i];
    }
  pr.n_location = p->nlocs;
  pr.location = plocs;

  for (size_t i = 0; i < p->nlabels; i++)
    {
      gostap__pprof__label__init (&labels[i]);
      labels[i].key = STR (p->labels[i].key);
      labels[i].str = STR (p->labels[i].value);
      plabels[i] = &labels[i];
    }
  for (size_t i = 0; i < p->nsample_locs; i++)
    locids[i] = p->sample_locs[i] + 1;
  for (size_t i = 0; i < p->nsamples; i++)
    {
      const struct profile_sample *s = &p->samples[i];
      gostap__pprof__sample__init (&samples[i]);
      samples[i].n_location_id = s->nlocs;
      samples[i].location_id = locids + s->loc0;
      samples[i].n_value = p->ntypes;
      samples[i].value = values + i * p->ntypes;
      memcpy (samples[i].value, s->value, p->ntypes * sizeof *values);
      samples[i].n_label = s->nlabels;
      samples[i].label = plabels + s->label0;
      psamples[i] = &samples[i];
    }
  pr.n_sample = p->nsamples;
  pr.sample = psamples;

  mapping.id = 1;
  fill_mapping (p->b, &mapping);
  mapping.filename = STR (p->b->probe_path);
  mapping.build_id = STR (p->b->build_id);
  mapping.has_functions = mapping.has_filenames = true;
  mapping.has_line_numbers = mapping.has_inline_frames = true;
  pr.n_mapping = 1;
  pr.mapping = &pmapping;
#undef STR
  if (oom)
    goto oom;
  pr.n_string_table = st.n;
  pr.string_table = st.v;
  struct timespec now;
  if (clock_gettime (CLOCK_REALTIME, &now) == 0)
    pr.time_nanos = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;

  size_t len = gostap__pprof__profile__get_packed_size (&pr);
  if ((packed = malloc (len ? len : 1)) == NULL)
    goto oom;
  gostap__pprof__profile__pack (&pr, packed);
  int zr = gzip (packed, len, &gz, &gzlen);
  if (zr != Z_OK)
    {
      error (0, 0, "%s: deflate: %s", path, zError (zr));
      goto out;
    }

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
  goto out;
oom:
  error (0, ENOMEM, "%s", path);
out:
  free (gz);
  free (packed);
  free (st.v);
  free (st.ht);
  free (types);
  free (ptypes);
  free (samples);
  free (psamples);
  free (labels);
  free (plabels);
  free (locs);
  free (plocs);
  free (lines);
  free (plines);
  free (funcs);
  free (pfuncs);
  free (locids);
  free (values);
  return ret;
}
