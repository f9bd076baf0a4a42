/* util.c: small helpers of the commands, the writers and the run
   machinery (util.h).  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gobin.h"
#include "util.h"

uint64_t
hash_content (const void *data, size_t n)
{
  /* Four independent lanes of 8-byte words (so the multiplications
     overlap), folded at the end with the length: 7.6 GB/s measured on the
     CI machine (-O2; fnv1a's byte loop 0.6), 15 ms for a 100 MB binary.
     Not a cryptographic hash: it tells one build from another, not an
     attacker's collision from the original (who can write the binary
     can change what it does anyway).  */
  const unsigned char *p = data;
  const uint64_t k = 0x9e3779b97f4a7c15ULL;
  uint64_t lane[4] = { 1, 2, 3, 4 };
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 4; j++)
      {
        uint64_t w;
        memcpy (&w, p + i + 8 * j, sizeof w);
        lane[j] = ((lane[j] ^ w) * k);
        lane[j] ^= lane[j] >> 29;
      }
  uint64_t h = fnv1a (FNV1A_BASIS, p + i, n - i);
  for (int j = 0; j < 4; j++)
    h = fnv1a (h, &lane[j], sizeof lane[j]);
  return fnv1a (h, &n, sizeof n);
}

struct hash_slot *
hash_find (struct hash_slot **ht, size_t *hn, size_t n, uint64_t h,
           bool (*eq) (const void *ctx, size_t i, const void *key),
           const void *ctx, const void *key)
{
  if (2 * (n + 1) > *hn)
    {
      size_t nhn = *hn ? 2 * *hn : 1024;
      struct hash_slot *nht = calloc (nhn, sizeof *nht);
      if (nht == NULL)
        return NULL;
      for (size_t i = 0; i < *hn; i++)
        if ((*ht)[i].idx != 0)
          {
            size_t k = (*ht)[i].h & (nhn - 1);
            while (nht[k].idx != 0)
              k = (k + 1) & (nhn - 1);
            nht[k] = (*ht)[i];
          }
      free (*ht);
      *ht = nht;
      *hn = nhn;
    }
  size_t k = h & (*hn - 1);
  while ((*ht)[k].idx != 0
         && ((*ht)[k].h != h || !eq (ctx, (*ht)[k].idx - 1, key)))
    k = (k + 1) & (*hn - 1);
  return &(*ht)[k];
}

/* A glob matches a name exactly or as an fnmatch(3) pattern: Go names
   such as main.(*T).M or pkg.F[...] contain pattern characters.  No glob
   matches everything.  USED[i] is set for each glob that matched.  */
bool
name_matches (char *const *globs, int nglobs, const char *name, bool *used)
{
  if (nglobs == 0)
    return true;
  bool any = false;
  for (int i = 0; i < nglobs; i++)
    if (strcmp (globs[i], name) == 0
        /* without *, ? or [, fnmatch is strcmp (FNM_NOESCAPE) */
        || (strpbrk (globs[i], "*?[") != NULL
            && fnmatch (globs[i], name, FNM_NOESCAPE) == 0))
      any = used[i] = true;
  return any;
}

int
publish_tmp (int fd, const char *tmp, const char *path)
{
  if (close (fd) != 0)
    {
      error (0, errno, "%s: close", tmp);
      return -1;
    }
  if (rename (tmp, path) != 0)
    {
      error (0, errno, "cannot rename '%s' to '%s'", tmp, path);
      return -1;
    }
  return 0;
}

int
copy_fd (int from, const char *from_name, int to, const char *to_name)
{
  char buf[65536];
  for (;;)
    {
      ssize_t r = read (from, buf, sizeof buf);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          error (0, errno, "%s: read", from_name);
          return -1;
        }
      if (r == 0)
        return 0;
      for (ssize_t w = 0; w < r;)
        {
          ssize_t k = write (to, buf + w, (size_t) (r - w));
          if (k < 0 && errno == EINTR)
            continue;
          if (k < 0)
            {
              error (0, errno, "%s: write", to_name);
              return -1;
            }
          w += k;
        }
    }
}

int
make_dirs (const char *path)
{
  char buf[PATH_MAX];
  if (snprintf (buf, sizeof buf, "%s", path) >= (int) sizeof buf)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  for (char *p = buf + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        if (mkdir (buf, 0755) != 0 && errno != EEXIST)
          return -1;
        *p = '/';
      }
  return mkdir (buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}
