/* write.h: the writers of a binary's tapset directory (write-*.c).  */

#ifndef GOSTAP_WRITE_H
#define GOSTAP_WRITE_H

#include "gobin.h"
#include "layout.h"

/* Each writes one file into DIR atomically; 0, or -1 with a message.  */
int write_target (const struct go_bin *b, const struct go_layout *l,
                  const char *dir);
int write_funcs (const struct go_bin *b, const struct go_func *const *sel,
                 size_t n, const char *dir);

#endif
