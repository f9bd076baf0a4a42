/* types.h: Go's runtime type descriptors (abi.Type, runtime._type before
   Go 1.21) read from a binary's type data (read-types.c), the data a
   printer of Go values walks.

   A descriptor is a 48-byte header (64-bit targets: amd64 and arm64 lay
   it out alike) followed by what its kind adds, then, when the type is
   named or has methods, an "uncommon" record (package path, methods).
   Names and types are offsets from the start of the type data
   (moduledata.types) or pointers into it; every read here is checked
   against that range, so a corrupt descriptor gives an error message,
   never a read outside the file.  */

#ifndef GOSTAP_TYPES_H
#define GOSTAP_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gobin.h"

/* A name of the type data: its bytes (not NUL-terminated), inside the
   mapped file; len 0 and bytes NULL for none.  */
struct go_name
{
  const char *bytes;
  size_t len;
  bool exported, embedded;
  const char *tag;              /* a struct field's tag, or NULL */
  size_t tag_len;
};

struct go_type_field
{
  struct go_name name;
  uint64_t type;                /* its descriptor's address */
  uint64_t offset;
  bool embedded;
};

/* Bits of a descriptor's tflag byte.  */
enum
{
  GO_TFLAG_UNCOMMON = 1,
  GO_TFLAG_EXTRA_STAR = 2,
  GO_TFLAG_NAMED = 4,
};

/* Map layouts: Go's buckets (before 1.24), the Swiss table's groups of
   1.24 to 1.26 and the one of 1.27 (strides for split groups).  */
enum go_map_layout { GO_MAP_BUCKETS, GO_MAP_SWISS, GO_MAP_SWISS_127 };

struct go_type
{
  uint64_t addr;
  uint64_t size, ptrdata;
  uint32_t hash;
  uint8_t tflag, align, field_align;
  uint8_t kind;                 /* enum go_kind: the low five bits */
  struct go_name str;           /* reflect's String(): without the extra
                                   star of GO_TFLAG_EXTRA_STAR */
  struct go_name name;          /* reflect's Name(): the end of str for a
                                   named type, else empty */
  uint64_t ptr_to_this;         /* the descriptor of *T, or 0 */

  bool uncommon;
  struct go_name pkgpath;       /* reflect's PkgPath(): the uncommon
                                   record's, of a named type */
  struct go_name own_pkgpath;   /* Struct, Interface: the package of its
                                   unexported fields or methods */
  uint16_t mcount, xcount;      /* methods, exported methods */

  /* By kind (0 where the kind has none).  */
  uint64_t elem;                /* Ptr, Slice, Array, Chan, Map */
  uint64_t key;                 /* Map */
  uint64_t len;                 /* Array */
  uint64_t dir;                 /* Chan: 1 recv, 2 send, 3 both */
  enum go_map_layout map_layout;
  uint64_t bucket;              /* Map: the bucket or group type */
  uint64_t group_size, slot_size; /* Map: Swiss table's (Go 1.24+) */
  uint64_t nmethods;            /* Interface */
  uint16_t in, out;             /* Func */
  bool variadic;
  uint64_t *params;             /* Func: in + out descriptors, malloc'd */
  struct go_type_field *fields; /* Struct: malloc'd */
  size_t nfields;
  uint64_t desc_size;           /* bytes of the descriptor with what
                                   follows it (Go 1.27's DescriptorSize) */
};

/* The type data of B: the link-time range [START, END) and its bytes.  */
struct go_types
{
  const struct go_bin *bin;
  uint64_t start, end;
  const uint8_t *data;
};

/* Find B's type data: 0, or -1 after one line naming the binary.  */
int go_types_open (const struct go_bin *b, struct go_types *ts);

/* Decode the descriptor at ADDR into *T: 0, or -1 with the problem in
   ERR (ERRSIZE bytes; *T is freed then).  Free *T with go_type_free.  */
int go_type_read (const struct go_types *ts, uint64_t addr,
                  struct go_type *t, char *err, size_t errsize);
void go_type_free (struct go_type *t);

/* Reflect's name of kind K ("int", "ptr", "unsafe.Pointer"), or NULL.  */
const char *go_kind_name (unsigned k);

/* The roots of the type data into L: every descriptor of the linear
   table (Go 1.27), else the typelinks (Go 1.18 to 1.26).  0, or -1 after
   one line; a binary that lists none gives an empty list.  */
int go_types_roots (const struct go_types *ts, struct addr_list *l);

#endif
