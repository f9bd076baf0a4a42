/* read-buildinfo.c: the Go version and build settings from .go.buildinfo.

   Layout (Go's debug/buildinfo): a 32-byte header "\xff Go buildinf:",
   pointer size at byte 14, flags at byte 15.  With flags bit 1 (Go 1.18+)
   the version and the module info follow at offset 32 as varint-prefixed
   strings; before that, two pointers at offset 16 lead to Go string
   headers.  Without section headers the blob is found by its magic on a
   16-byte boundary.  */

#include "config.h"

#include <error.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static const char magic[14] = "\xff Go buildinf:";

/* Find the 32-byte header: the section, else a 16-aligned scan.  */
static const uint8_t *
find_header (const struct go_bin *b, size_t *avail)
{
  GElf_Shdr sh;
  if (gobin_section (b, ".go.buildinfo", &sh) != NULL
      && sh.sh_type != SHT_NOBITS)
    {
      const uint8_t *p = gobin_at (b, sh.sh_offset, 32);
      if (p != NULL && memcmp (p, magic, sizeof magic) == 0)
        {
          *avail = b->size - sh.sh_offset;
          return p;
        }
    }
  for (size_t i = 0; i < b->nsegs; i++)
    {
      const struct go_seg *s = &b->segs[i];
      if (s->exec)
        continue;
      uint64_t start = (s->vaddr + 15) & ~15ULL;
      for (uint64_t va = start; va - s->vaddr + 32 <= s->filesz; va += 16)
        {
          const uint8_t *p = b->image + s->offset + (va - s->vaddr);
          if (p[0] == 0xff && memcmp (p, magic, sizeof magic) == 0)
            {
              *avail = s->filesz - (va - s->vaddr);
              return p;
            }
        }
    }
  return NULL;
}

bool
uvarint (const uint8_t **p, const uint8_t *end, uint64_t *v)
{
  uint64_t x = 0;
  for (unsigned shift = 0; shift < 64; shift += 7)
    {
      if (*p >= end)
        return false;
      uint8_t c = *(*p)++;
      x |= (uint64_t) (c & 0x7f) << shift;
      if ((c & 0x80) == 0)
        {
          *v = x;
          return true;
        }
    }
  return false;
}

/* A Go string header (ptr, len) at VADDR, read through the segments.  */
static const uint8_t *
go_string_at (const struct go_bin *b, uint64_t vaddr, uint64_t *len)
{
  const uint8_t *h = gobin_vaddr (b, vaddr, 2 * b->ptrsize, NULL);
  if (h == NULL)
    return NULL;
  uint64_t data = gobin_read_uint (b, h, b->ptrsize);
  *len = gobin_read_uint (b, h + b->ptrsize, b->ptrsize);
  if (*len > (1u << 20))
    return NULL;
  return gobin_vaddr (b, data, *len, NULL);
}

/* "go1.22.1" -> 22; "devel go1.27-abc" -> 27; 0 when not a Go 1.x version. */
int
go_version_minor (const char *v)
{
  if (strncmp (v, "devel ", 6) == 0)
    v += 6;
  if (strncmp (v, "go1.", 4) != 0)
    return 0;
  char *end;
  long m = strtol (v + 4, &end, 10);
  if (end == v + 4 || m < 0 || m > 1000)
    return 0;
  return (int) m;
}

/* Keep printable ASCII only: the version reaches JSON, text and tapsets. */
static void
set_version (struct go_bin *b, const uint8_t *s, uint64_t len)
{
  size_t n = 0;
  for (uint64_t i = 0; i < len && n + 1 < sizeof b->go_version; i++)
    if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
      b->go_version[n++] = (char) s[i];
  b->go_version[n] = '\0';
  b->go_minor = go_version_minor (b->go_version);
}

static bool
contains (const uint8_t *s, uint64_t len, const char *needle)
{
  size_t n = strlen (needle);
  for (uint64_t i = 0; i + n <= len; i++)
    if (memcmp (s + i, needle, n) == 0)
      return true;
  return false;
}

int
gobin_read_buildinfo (struct go_bin *b)
{
  size_t avail;
  const uint8_t *h = find_header (b, &avail);
  if (h == NULL)
    return EXIT_OK;             /* Go before 1.13, or stripped of it */
  uint8_t flags = h[15];
  const uint8_t *vers = NULL, *mod = NULL;
  uint64_t vlen = 0, mlen = 0;
  if (flags & 2)
    {
      const uint8_t *p = h + 32, *end = h + avail;
      if (!uvarint (&p, end, &vlen) || vlen > (uint64_t) (end - p))
        {
          error (0, 0, "%s: warning: malformed .go.buildinfo version",
                 b->path);
          return EXIT_OK;
        }
      vers = p;
      p += vlen;
      if (uvarint (&p, end, &mlen) && mlen <= (uint64_t) (end - p))
        mod = p;
    }
  else
    {
      unsigned ps = h[14];
      if (ps != 8 || (flags & 1))
        return EXIT_OK;
      vers = go_string_at (b, gobin_read_uint (b, h + 16, ps), &vlen);
      mod = go_string_at (b, gobin_read_uint (b, h + 24, ps), &mlen);
    }
  if (vers != NULL)
    set_version (b, vers, vlen);
  if (mod != NULL && contains (mod, mlen, "\tCGO_ENABLED=1\n"))
    b->buildinfo_cgo = true;
  return EXIT_OK;
}
