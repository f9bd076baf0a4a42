/* read-types.c: Go's runtime type descriptors (types.h).

   Layout on 64-bit targets, Go 1.19 to 1.27 (learnt from Go's
   internal/abi and runtime/type.go, and checked against reflect in
   testsuite/run-types.sh):

     header, 48 bytes: size @0, ptrdata @8, hash @16 (u32), tflag @20,
       align @21, fieldAlign @22, kind @23 (low five bits; the bits above
       are flags), equal @24, gcdata @32, str @40 and ptrToThis @44 (i32
       offsets from the type data's start)
     Ptr, Slice: elem @48 (56 bytes)
     Array: elem @48, slice @56, len @64 (72)
     Chan: elem @48, dir @56 (64)
     Func: in count @48 (u16), out count @50 (u16, top bit: variadic)
       (56), then after the uncommon record the in + out parameter types
     Interface: pkgpath name @48, methods slice @56 (80); 8 bytes a method
     Map: key @48, elem @56, bucket/group @64, hasher @72; before 1.24
       (and 1.24, 1.25 with GOEXPERIMENT=noswissmap)
       key/elem/bucket sizes and flags @80 (88); 1.24 to 1.26 groupSize
       @80, slotSize @88, elemOff @96, flags @104 (112); 1.27 groupSize
       @80, keysOff, keyStride, elemsOff, elemStride, elemOff, flags @128
       (136)
     Struct: pkgpath name @48, fields slice @56 (80); a field is name
       pointer @0, type @8, offset @16 (24 bytes)
     uncommon (tflag bit 0), 16 bytes after the kind's part: pkgpath
       name offset @0 (i32), mcount @4, xcount @6 (u16), moff @8 (u32);
       16 bytes a method at uncommon + moff

   A name is a flag byte (1 exported, 2 a tag follows, 4 a package path
   follows, 8 an embedded field), a varint length and the bytes; a tag the
   same way after it.  */

#include "config.h"

#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

enum { HEADER = 48, UNCOMMON = 16, METHOD = 16, FIELD = 24, IMETHOD = 8 };

static const char *const KIND_NAMES[] = {
  "invalid", "bool", "int", "int8", "int16", "int32", "int64",
  "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
  "float32", "float64", "complex64", "complex128",
  "array", "chan", "func", "interface", "map", "ptr", "slice", "string",
  "struct", "unsafe.Pointer",
};

const char *
go_kind_name (unsigned k)
{
  return k < sizeof KIND_NAMES / sizeof KIND_NAMES[0] ? KIND_NAMES[k] : NULL;
}

int
go_types_open (const struct go_bin *b, struct go_types *ts)
{
  size_t avail;
  memset (ts, 0, sizeof *ts);
  ts->bin = b;
  if (b->ptrsize != 8)
    {
      error (0, 0, "%s: %u-byte pointers: type descriptors are read on "
             "64-bit targets only", b->path, b->ptrsize);
      return -1;
    }
  if (!gobin_types_range (b, &ts->start, &ts->end))
    {
      error (0, 0, "%s: no type data found (neither runtime.types in "
             ".symtab nor a moduledata of Go 1.18 or later)", b->path);
      return -1;
    }
  ts->data = gobin_vaddr (b, ts->start, ts->end - ts->start, &avail);
  if (ts->data == NULL || avail < ts->end - ts->start)
    {
      error (0, 0, "%s: the type data [%#" PRIx64 ", %#" PRIx64 ") is not "
             "in the file", b->path, ts->start, ts->end);
      return -1;
    }
  return 0;
}

/* LEN bytes at ADDR of the type data, or NULL.  */
static const uint8_t *
at (const struct go_types *ts, uint64_t addr, uint64_t len)
{
  if (addr < ts->start || addr > ts->end || len > ts->end - addr)
    return NULL;
  return ts->data + (addr - ts->start);
}

static uint64_t
u64 (const struct go_types *ts, const uint8_t *p)
{
  return gobin_read_uint (ts->bin, p, 8);
}

static uint32_t
u32 (const struct go_types *ts, const uint8_t *p)
{
  return (uint32_t) gobin_read_uint (ts->bin, p, 4);
}

static uint16_t
u16 (const struct go_types *ts, const uint8_t *p)
{
  return (uint16_t) gobin_read_uint (ts->bin, p, 2);
}

/* The problem with the descriptor being read, for go_type_read's
   caller; false, so that a check can return it.  */
static bool __attribute__ ((format (printf, 4, 5)))
bad (char *err, size_t errsize, uint64_t addr, const char *fmt, ...)
{
  int n = snprintf (err, errsize, "type at %#" PRIx64 ": ", addr);
  va_list ap;
  va_start (ap, fmt);
  if (n >= 0 && (size_t) n < errsize)
    vsnprintf (err + n, errsize - (size_t) n, fmt, ap);
  va_end (ap);
  return false;
}

/* The name at ADDR (0: none) into *N.  */
static bool
read_name (const struct go_types *ts, uint64_t addr, struct go_name *n,
           const char *what, uint64_t taddr, char *err, size_t errsize)
{
  memset (n, 0, sizeof *n);
  if (addr == 0)
    return true;
  const uint8_t *p = at (ts, addr, 1), *end = ts->data + (ts->end - ts->start);
  uint64_t len;
  if (p == NULL)
    return bad (err, errsize, taddr, "%s name at %#" PRIx64 " is outside "
                "the type data", what, addr);
  uint8_t flags = *p++;
  if (!uvarint (&p, end, &len) || len > (uint64_t) (end - p))
    return bad (err, errsize, taddr, "%s name at %#" PRIx64 " runs past "
                "the type data", what, addr);
  n->bytes = (const char *) p;
  n->len = len;
  n->exported = flags & 1;
  n->embedded = flags & 8;
  p += len;
  if (flags & 2)
    {
      if (!uvarint (&p, end, &len) || len > (uint64_t) (end - p))
        return bad (err, errsize, taddr, "the tag of %s name at %#" PRIx64
                    " runs past the type data", what, addr);
      n->tag = (const char *) p;
      n->tag_len = len;
    }
  return true;
}

/* A type pointer of the descriptor: 0 when ALLOW_NIL, else inside the
   type data with room for a header.  */
static bool
check_type (const struct go_types *ts, uint64_t v, bool allow_nil,
            const char *what, uint64_t taddr, char *err, size_t errsize)
{
  if ((v == 0 && allow_nil) || (v % 8 == 0 && at (ts, v, HEADER) != NULL))
    return true;
  return bad (err, errsize, taddr, "%s %#" PRIx64 " is not a descriptor of "
              "the type data [%#" PRIx64 ", %#" PRIx64 ")", what, v,
              ts->start, ts->end);
}

/* reflect's Name() of a named type: STR after its last '.' outside
   square brackets (a generic type's arguments have dots).  */
static void
short_name (const struct go_name *str, struct go_name *name)
{
  size_t i = str->len;
  int depth = 0;
  while (i > 0 && (str->bytes[i - 1] != '.' || depth != 0))
    {
      if (str->bytes[i - 1] == ']')
        depth++;
      else if (str->bytes[i - 1] == '[')
        depth--;
      i--;
    }
  name->bytes = str->bytes + i;
  name->len = str->len - i;
}

/* The map layout of the map descriptor at ADDR.  Go 1.24 and 1.25 write
   either (GOEXPERIMENT=noswissmap: buckets): the word after the hasher is
   the group type's size in a Swiss table's descriptor, and the bucket
   type's size is the u16 at +82 in a bucket map's.  */
static enum go_map_layout
map_layout (const struct go_types *ts, uint64_t addr)
{
  int minor = ts->bin->go_minor;
  if (minor < 24)
    return GO_MAP_BUCKETS;
  if (minor >= 27)
    return GO_MAP_SWISS_127;
  const uint8_t *p = at (ts, addr, 88), *g;
  if (minor >= 26 || p == NULL || (g = at (ts, u64 (ts, p + 64), 8)) == NULL)
    return GO_MAP_SWISS;
  uint64_t size = u64 (ts, g);
  return u64 (ts, p + 80) != size && u16 (ts, p + 82) == size
    ? GO_MAP_BUCKETS : GO_MAP_SWISS;
}

/* The size of the kind's part of a descriptor (HEADER included).  */
static uint64_t
kind_size (const struct go_type *t)
{
  switch (t->kind)
    {
    case K_PTR: case K_SLICE: case K_FUNC:
      return 56;
    case K_CHAN:
      return 64;
    case K_ARRAY:
      return 72;
    case K_INTERFACE: case K_STRUCT:
      return 80;
    case K_MAP:
      return t->map_layout == GO_MAP_BUCKETS ? 88
        : t->map_layout == GO_MAP_SWISS ? 112 : 136;
    default:
      return HEADER;
    }
}

/* A struct descriptor's part at P: its package path and its fields
   (name, type, offset, embedded), each checked.  */
static bool
read_struct (const struct go_types *ts, const uint8_t *p, struct go_type *t,
             char *err, size_t errsize)
{
  uint64_t a = t->addr;
  if (!read_name (ts, u64 (ts, p + 48), &t->own_pkgpath, "package path",
                  a, err, errsize))
    return false;
  uint64_t fa = u64 (ts, p + 56), n = u64 (ts, p + 64);
  const uint8_t *f = n > 0 && n <= (ts->end - ts->start) / FIELD
    ? at (ts, fa, n * FIELD) : NULL;
  if (n > 0 && f == NULL)
    return bad (err, errsize, a, "%" PRIu64 " fields at %#" PRIx64
                " run past the type data", n, fa);
  if (n == 0)
    return true;
  t->fields = calloc (n, sizeof *t->fields);
  if (t->fields == NULL)
    return bad (err, errsize, a, "out of memory for %" PRIu64
                " fields", n);
  t->nfields = n;
  for (uint64_t i = 0; i < n; i++, f += FIELD)
    {
      struct go_type_field *tf = &t->fields[i];
      if (!read_name (ts, u64 (ts, f), &tf->name, "field", a, err,
                      errsize)
          || !check_type (ts, u64 (ts, f + 8), false, "field type", a,
                          err, errsize))
        return false;
      tf->type = u64 (ts, f + 8);
      tf->offset = u64 (ts, f + 16);
      tf->embedded = tf->name.embedded;
      if (tf->name.len == 0)
        return bad (err, errsize, a, "field %" PRIu64 " has no name",
                    i);
      if (tf->offset > t->size)
        return bad (err, errsize, a, "field %" PRIu64 " at offset %"
                    PRIu64 " of a %" PRIu64 "-byte struct", i,
                    tf->offset, t->size);
    }
  return true;
}

/* The kind's own part of the descriptor at P (KSIZE bytes checked).  */
static bool
read_kind (const struct go_types *ts, const uint8_t *p, struct go_type *t,
           char *err, size_t errsize)
{
  uint64_t a = t->addr;
  switch (t->kind)
    {
    case K_PTR: case K_SLICE: case K_ARRAY: case K_CHAN:
      t->elem = u64 (ts, p + 48);
      if (!check_type (ts, t->elem, false, "elem", a, err, errsize))
        return false;
      if (t->kind == K_ARRAY)
        t->len = u64 (ts, p + 64);
      if (t->kind == K_CHAN)
        {
          t->dir = u64 (ts, p + 56);
          if (t->dir < 1 || t->dir > 3)
            return bad (err, errsize, a, "channel direction %" PRIu64,
                        t->dir);
        }
      return true;
    case K_MAP:
      t->key = u64 (ts, p + 48);
      t->elem = u64 (ts, p + 56);
      t->bucket = u64 (ts, p + 64);
      if (t->map_layout != GO_MAP_BUCKETS)
        t->group_size = u64 (ts, p + 80);
      if (t->map_layout == GO_MAP_SWISS)
        t->slot_size = u64 (ts, p + 88);
      if (t->map_layout == GO_MAP_SWISS_127)
        t->slot_size = u64 (ts, p + 96);  /* keyStride */
      return check_type (ts, t->key, false, "key", a, err, errsize)
        && check_type (ts, t->elem, false, "elem", a, err, errsize)
        && check_type (ts, t->bucket, false, "bucket", a, err, errsize);
    case K_FUNC:
      t->in = u16 (ts, p + 48);
      t->out = u16 (ts, p + 50);
      t->variadic = t->out & 0x8000;
      t->out &= 0x7fff;
      return true;
    case K_INTERFACE:
      if (!read_name (ts, u64 (ts, p + 48), &t->own_pkgpath, "package path",
                      a, err, errsize))
        return false;
      t->nmethods = u64 (ts, p + 64);
      if (t->nmethods > 0
          && at (ts, u64 (ts, p + 56), t->nmethods * IMETHOD) == NULL)
        return bad (err, errsize, a, "%" PRIu64 " methods at %#" PRIx64
                    " run past the type data", t->nmethods,
                    u64 (ts, p + 56));
      return true;
    case K_STRUCT:
      return read_struct (ts, p, t, err, errsize);
    default:
      return true;
    }
}

/* The uncommon record after the kind's part (at END), and what follows
   it: a function's parameter types.  */
static bool
read_tail (const struct go_types *ts, uint64_t end, struct go_type *t,
           char *err, size_t errsize)
{
  uint64_t a = t->addr, add = 0;
  if (t->tflag & GO_TFLAG_UNCOMMON)
    {
      const uint8_t *u = at (ts, end, UNCOMMON);
      if (u == NULL)
        return bad (err, errsize, a, "its uncommon record runs past the "
                    "type data");
      t->uncommon = true;
      t->mcount = u16 (ts, u + 4);
      t->xcount = u16 (ts, u + 6);
      int32_t off = (int32_t) u32 (ts, u);
      struct go_name pkg;
      if (off != 0 && !read_name (ts, ts->start + (uint64_t) (int64_t) off,
                                  &pkg, "package path", a, err, errsize))
        return false;
      if (off != 0 && (t->tflag & GO_TFLAG_NAMED))
        t->pkgpath = pkg;
      if (t->xcount > t->mcount
          || (t->mcount > 0
              && at (ts, end + u32 (ts, u + 8),
                     (uint64_t) t->mcount * METHOD) == NULL))
        return bad (err, errsize, a, "%u methods (%u exported) at +%u run "
                    "past the type data", t->mcount, t->xcount,
                    u32 (ts, u + 8));
      end += UNCOMMON;
    }
  if (t->kind == K_FUNC)
    {
      size_t n = (size_t) t->in + t->out;
      const uint8_t *p = at (ts, end, (uint64_t) n * 8);
      if (p == NULL)
        return bad (err, errsize, a, "%u in and %u out parameters run past "
                    "the type data", t->in, t->out);
      t->params = calloc (n + 1, sizeof *t->params);
      if (t->params == NULL)
        return bad (err, errsize, a, "out of memory");
      for (size_t i = 0; i < n; i++)
        {
          t->params[i] = u64 (ts, p + i * 8);
          if (!check_type (ts, t->params[i], false, "parameter type", a, err,
                           errsize))
            return false;
        }
      add = n * 8;
    }
  else if (t->kind == K_INTERFACE)
    add = t->nmethods * IMETHOD;
  else if (t->kind == K_STRUCT)
    add = t->nfields * FIELD;
  t->desc_size = end - a + add + (uint64_t) t->mcount * METHOD;
  return true;
}

int
go_type_read (const struct go_types *ts, uint64_t addr, struct go_type *t,
              char *err, size_t errsize)
{
  memset (t, 0, sizeof *t);
  t->addr = addr;
  const uint8_t *p = at (ts, addr, HEADER);
  if (p == NULL || addr % 8 != 0)
    {
      bad (err, errsize, addr, "not a descriptor of the type data [%#"
           PRIx64 ", %#" PRIx64 ")", ts->start, ts->end);
      return -1;
    }
  t->size = u64 (ts, p);
  t->ptrdata = u64 (ts, p + 8);
  t->hash = u32 (ts, p + 16);
  t->tflag = p[20];
  t->align = p[21];
  t->field_align = p[22];
  t->kind = p[23] & 0x1f;
  if (go_kind_name (t->kind) == NULL || t->kind == 0)
    {
      bad (err, errsize, addr, "kind %u", t->kind);
      return -1;
    }
  if (t->align == 0 || (t->align & (t->align - 1)) != 0
      || t->ptrdata > t->size)
    {
      bad (err, errsize, addr, "alignment %u, %" PRIu64 " pointer bytes of "
           "%" PRIu64, t->align, t->ptrdata, t->size);
      return -1;
    }
  int32_t str = (int32_t) u32 (ts, p + 40), ptt = (int32_t) u32 (ts, p + 44);
  if (!read_name (ts, ts->start + (uint64_t) (int64_t) str, &t->str,
                  "its", addr, err, errsize))
    goto fail;
  if (t->tflag & GO_TFLAG_EXTRA_STAR)
    {
      if (t->str.len == 0 || t->str.bytes[0] != '*')
        {
          bad (err, errsize, addr, "its name has no extra star");
          goto fail;
        }
      t->str.bytes++;
      t->str.len--;
    }
  if (t->tflag & GO_TFLAG_NAMED)
    short_name (&t->str, &t->name);
  if (ptt != 0)
    {
      t->ptr_to_this = ts->start + (uint64_t) (int64_t) ptt;
      if (!check_type (ts, t->ptr_to_this, false, "pointer type", addr, err,
                       errsize))
        goto fail;
    }
  if (t->kind == K_MAP)
    t->map_layout = map_layout (ts, addr);
  uint64_t ksize = kind_size (t);
  p = at (ts, addr, ksize);
  if (p == NULL)
    {
      bad (err, errsize, addr, "its %s part runs past the type data",
           go_kind_name (t->kind));
      goto fail;
    }
  if (!read_kind (ts, p, t, err, errsize)
      || !read_tail (ts, addr + ksize, t, err, errsize))
    goto fail;
  return 0;
fail:
  go_type_free (t);
  return -1;
}

void
go_type_free (struct go_type *t)
{
  free (t->params);
  free (t->fields);
  t->params = NULL;
  t->fields = NULL;
  t->nfields = 0;
}

/* Go 1.27: the descriptors one after the other from the type data's
   start plus a pointer, for typedesclen bytes.  */
static int
linear_roots (const struct go_types *ts, struct addr_list *l)
{
  uint64_t len, a = ts->start + 8;
  char err[256];
  if (!gobin_moduledata_word (ts->bin, -5, &len) || len > ts->end - ts->start)
    {
      error (0, 0, "%s: no length of the type descriptors in the "
             "moduledata", ts->bin->path);
      return -1;
    }
  while (a < ts->start + len)
    {
      struct go_type t;
      a = (a + 7) & ~(uint64_t) 7;
      if (go_type_read (ts, a, &t, err, sizeof err) != 0)
        {
          error (0, 0, "%s: %s", ts->bin->path, err);
          return -1;
        }
      go_type_free (&t);
      if (addr_list_push (l, a) != 0)
        {
          error (0, 0, "out of memory");
          return -1;
        }
      a += t.desc_size;
    }
  return 0;
}

/* Go 1.18 to 1.26: moduledata.typelinks (offsets from the type data's
   start) and the types of moduledata.itablinks, the slices after gofunc
   and textsectmap (and epclntab, Go 1.26).  */
static int
typelink_roots (const struct go_types *ts, struct addr_list *l)
{
  uint64_t tl, ntl, il, nil;
  size_t avail;
  int k = ts->bin->go_minor >= 26 ? 5 : 4;
  if (!gobin_moduledata_word (ts->bin, k, &tl)
      || !gobin_moduledata_word (ts->bin, k + 1, &ntl)
      || !gobin_moduledata_word (ts->bin, k + 3, &il)
      || !gobin_moduledata_word (ts->bin, k + 4, &nil))
    return 0;
  const uint8_t *p = ntl > 0 ? gobin_vaddr (ts->bin, tl, ntl * 4, &avail)
    : NULL;
  if (ntl > 0 && (ntl > SIZE_MAX / 4 || p == NULL || avail < ntl * 4))
    {
      error (0, 0, "%s: the %" PRIu64 " typelinks at %#" PRIx64 " are not "
             "in the file", ts->bin->path, ntl, tl);
      return -1;
    }
  for (uint64_t i = 0; i < ntl; i++)
    if (addr_list_push (l, ts->start + (uint64_t) (int64_t) (int32_t)
                        u32 (ts, p + i * 4)) != 0)
      goto oom;
  p = nil > 0 ? gobin_vaddr (ts->bin, il, nil * 8, &avail) : NULL;
  if (nil > 0 && (nil > SIZE_MAX / 8 || p == NULL || avail < nil * 8))
    {
      error (0, 0, "%s: the %" PRIu64 " itabs at %#" PRIx64 " are not "
             "in the file", ts->bin->path, nil, il);
      return -1;
    }
  for (uint64_t i = 0; i < nil; i++)
    {
      const uint8_t *itab = gobin_vaddr (ts->bin, u64 (ts, p + i * 8), 16,
                                         &avail);
      if (itab == NULL || avail < 16)
        continue;
      if (addr_list_push (l, u64 (ts, itab)) != 0
          || addr_list_push (l, u64 (ts, itab + 8)) != 0)
        goto oom;
    }
  return 0;
oom:
  error (0, 0, "out of memory");
  return -1;
}

int
go_types_roots (const struct go_types *ts, struct addr_list *l)
{
  if (ts->bin->go_minor >= 27)
    return linear_roots (ts, l);
  return typelink_roots (ts, l);
}
