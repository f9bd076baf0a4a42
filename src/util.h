/* util.h: small helpers of the commands, the writers and the run
   machinery (util.c); the library's own (fnv1a, hex_string, addr_list)
   are in gobin.h.  */

#ifndef GOSTAP_UTIL_H
#define GOSTAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse up to 16 hex digits at *P into *V; false when there are none or
   too many.  Inline: the symbolizer parses every pc of
   its records with it (stack.c); stap's warnings (run-stderr.c) too.  */
static inline bool
parse_hex (const char **p, uint64_t *v)
{
  const char *s = *p;
  uint64_t x = 0;
  int n = 0;
  for (;; s++, n++)
    {
      int d;
      if (*s >= '0' && *s <= '9')
        d = *s - '0';
      else if (*s >= 'a' && *s <= 'f')
        d = *s - 'a' + 10;
      else
        break;
      if (n == 16)
        return false;
      x = x << 4 | (uint64_t) d;
    }
  if (n == 0)
    return false;
  *v = x;
  *p = s;
  return true;
}

/* A 64-bit hash of N bytes at DATA, for telling files apart by content
   (the run cache's key): fast, not cryptographic.  */
uint64_t hash_content (const void *data, size_t n);
/* An open-addressing hash index over an array of N elements (linear
   probing, a power of two slots, doubled when half full): a slot holds an
   element's index + 1 (0: empty) and its hash.  hash_find returns the slot
   of hash H whose element EQ (CTX, index, KEY) says is KEY, or the empty
   slot where KEY goes (set its idx and h when it is added); NULL when out
   of memory.  Free *HT when done.  */
struct hash_slot
{
  size_t idx;
  uint64_t h;
};
struct hash_slot *hash_find (struct hash_slot **ht, size_t *hn, size_t n,
                             uint64_t h,
                             bool (*eq) (const void *ctx, size_t i,
                                         const void *key),
                             const void *ctx, const void *key);
bool name_matches (char *const *globs, int nglobs, const char *name,
                   bool *used);
/* mkdir -p PATH: 0, or -1 with errno.  */
int make_dirs (const char *path);
/* Close FD, the temporary file TMP, and rename TMP to PATH, the last step
   of writing PATH atomically: 0, or -1 after one line (FD is closed
   either way; TMP is left for the caller to remove).  */
int publish_tmp (int fd, const char *tmp, const char *path);
/* Copy the bytes of FROM (named FROM_NAME), from its current offset to
   its end, to TO (named TO_NAME), retrying after EINTR: 0, or -1 after
   one line.  */
int copy_fd (int from, const char *from_name, int to, const char *to_name);

#endif
