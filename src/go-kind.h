/* go-kind.h: Go's reflect.Kind, which Go's DWARF gives each type
   (DW_AT_go_kind) and which read-params.c classifies values by.  */

#ifndef GOSTAP_GO_KIND_H
#define GOSTAP_GO_KIND_H

enum go_kind
{
  K_BOOL = 1, K_INT, K_INT8, K_INT16, K_INT32, K_INT64,
  K_UINT, K_UINT8, K_UINT16, K_UINT32, K_UINT64, K_UINTPTR,
  K_FLOAT32, K_FLOAT64, K_COMPLEX64, K_COMPLEX128,
  K_ARRAY, K_CHAN, K_FUNC, K_INTERFACE, K_MAP, K_PTR, K_SLICE, K_STRING,
  K_STRUCT, K_UNSAFEPTR,
};

#endif
