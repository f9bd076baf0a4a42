/* companion.h: where a companion debug file goes and whether a binary
   needs one (companion.c); write-companion.c writes it.  */

#ifndef GOSTAP_COMPANION_H
#define GOSTAP_COMPANION_H

#include "gobin.h"

/* EXIT_OK when B has no DWARF anywhere (or only a companion of its own
   build, to be written again); else EXIT_ERROR after one line saying
   where its DWARF is.  */
int companion_check_needed (const struct go_bin *b);

/* Where SystemTap's lookup finds B's debug file under the debug directory
   DIR: DIR/.build-id/xx/yyyy.debug with a GNU build id, else DIR/ABSPATH
   .debug (malloc'd; NULL after a message).  */
char *companion_path (const struct go_bin *b, const char *dir);

/* Create the directories above PATH: 0, or -1 after a message.  */
int companion_mkdirs (const char *path);

#endif
