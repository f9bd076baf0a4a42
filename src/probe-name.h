/* probe-name.h: Go symbol name <-> SystemTap probe alias component list
   (see probe-name.c for the mapping).  */

#ifndef GOSTAP_PROBE_NAME_H
#define GOSTAP_PROBE_NAME_H

/* "main.(*T).M" -> "main._PT.M" (without the "go.func." prefix); malloc'd,
   NULL when out of memory.  */
char *probe_name (const char *goname);

struct go_func;
/* The alias of function F: probe_name of its name, plus "._E<entry>" for
   the second and later functions that share a name.  */
char *func_probe_name (const struct go_func *f);

#endif
