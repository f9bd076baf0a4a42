/* read-dwarf-path.c: the type a SystemTap DWARF value path ($r,
   $r->URL->Path) reaches in one Go function, from the function's DWARF:
   for @go_fmt (run-gofmt.c), which prints the value with the runtime
   type descriptor Go's DWARF names for that type.  */

#include "config.h"

#include <dwarf.h>
#include <string.h>

#include "dwarf-index.h"

enum { MAX_HOPS = 32 };  /* typedefs and pointers between two fields */

static bool
type_of (Dwarf_Die *die, Dwarf_Die *type)
{
  Dwarf_Attribute a;
  return dwarf_attr_integrate (die, DW_AT_type, &a) != NULL
    && dwarf_formref_die (&a, type) != NULL;
}

/* T without its typedefs; false for a loop of them.  */
static bool
strip_typedefs (Dwarf_Die *t)
{
  for (int k = 0; k < MAX_HOPS; k++)
    if (dwarf_tag (t) != DW_TAG_typedef)
      return true;
    else if (!type_of (t, t))
      return false;
  return false;
}

/* The child of PARENT with tag TAG (or TAG2) named NAME.  */
static bool
child_named (Dwarf_Die *parent, int tag, int tag2, const char *name,
             Dwarf_Die *out)
{
  if (dwarf_child (parent, out) != 0)
    return false;
  do
    {
      const char *n = dwarf_diename (out);
      int t = dwarf_tag (out);
      if ((t == tag || t == tag2) && n != NULL && strcmp (n, name) == 0)
        return true;
    }
  while (dwarf_siblingof (out, out) == 0);
  return false;
}

int
go_path_type (struct go_params_ctx *ctx, const struct go_func *f,
              const char *var, char *const *fields, size_t n,
              struct go_path_type *out, const char **why)
{
  Dwarf_Die sub, v, t;
  memset (out, 0, sizeof *out);
  if (!dwarf_index_subprogram ((struct dwarf_index *) ctx, f->entry, &sub))
    {
      *why = "no DWARF describes the function";
      return -1;
    }
  if (!child_named (&sub, DW_TAG_formal_parameter, DW_TAG_variable, var, &v))
    {
      *why = "the function's DWARF has no argument or result of that name";
      return -1;
    }
  if (!type_of (&v, &t))
    {
      *why = "DWARF gives the variable no type";
      return -1;
    }
  for (size_t i = 0; i < n && i < GO_PATH_MAX; i++)
    {
      /* As stap's ->: through typedefs and one pointer to a struct.  */
      if (!strip_typedefs (&t))
        goto no_struct;
      out->deref[i] = dwarf_tag (&t) == DW_TAG_pointer_type;
      if (out->deref[i] && (!type_of (&t, &t) || !strip_typedefs (&t)))
        goto no_struct;
      if (dwarf_tag (&t) != DW_TAG_structure_type)
        goto no_struct;
      Dwarf_Die m;
      Dwarf_Attribute a;
      Dwarf_Word off;
      if (!child_named (&t, DW_TAG_member, DW_TAG_member, fields[i], &m))
        {
          *why = "a struct on the path has no field of that name";
          return -1;
        }
      if (!type_of (&m, &t)
          || dwarf_attr (&m, DW_AT_data_member_location, &a) == NULL
          || dwarf_formudata (&a, &off) != 0)
        {
          *why = "DWARF gives a field on the path no type or no offset";
          return -1;
        }
      out->offset[i] = off;
    }
  out->type = dwarf_diename (&t);
  out->has_rtype = go_dwarf_runtime_type (&t, &out->rtype);
  return 0;
no_struct:
  *why = "-> is taken of a value that is neither a struct nor a pointer "
    "to one";
  return -1;
}
