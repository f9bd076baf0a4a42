/* util.c: small helpers of the library, which its users share
   (gobin.h).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>

#include "reader.h"

int
addr_list_push (struct addr_list *l, uint64_t v)
{
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? 2 * l->cap : 4;
      uint64_t *nv = reallocarray (l->v, cap, sizeof *nv);
      if (nv == NULL)
        {
          error (0, errno, "reallocarray");
          return -1;
        }
      l->v = nv;
      l->cap = cap;
    }
  l->v[l->n++] = v;
  return 0;
}

void
addr_list_free (struct addr_list *l)
{
  free (l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

uint64_t
fnv1a (uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

const char *
arch_name (enum go_arch arch)
{
  return arch == GO_ARCH_AMD64 ? "x86_64" : "aarch64";
}

void
hex_string (char *out, size_t outsize, const uint8_t *bytes, size_t n)
{
  out[0] = '\0';
  for (size_t i = 0; i < n && 2 * i + 2 < outsize; i++)
    snprintf (out + 2 * i, 3, "%02x", bytes[i]);
}
