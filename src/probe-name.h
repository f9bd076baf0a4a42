/* probe-name.h: Go symbol name <-> SystemTap probe alias component list
   (see probe-name.c for the mapping).  */

#ifndef GOSTAP_PROBE_NAME_H
#define GOSTAP_PROBE_NAME_H

/* "main.(*T).M" -> "main._PT.M" (without the "go.func." prefix); malloc'd,
   NULL when out of memory.  */
char *probe_name (const char *goname);

#endif
