/* out.h: writing strings taken from a binary to JSON and to text safely. */

#ifndef GOSTAP_OUT_H
#define GOSTAP_OUT_H

#include <stddef.h>
#include <stdio.h>

/* S as a JSON string with quotes: control characters and invalid UTF-8
   escaped (invalid bytes become U+FFFD), so the output is always valid.  */
void out_json_string (FILE *f, const char *s);

/* S for a terminal: printable characters as they are, everything else
   (control bytes, invalid UTF-8, backslash) as \xNN.  */
void out_text_string (FILE *f, const char *s);
/* The same for the LEN bytes at S.  */
void out_text_mem (FILE *f, const char *s, size_t len);

/* Length of the valid UTF-8 sequence at S (1-4), or 0 if invalid.  */
int utf8_len (const unsigned char *s);

#endif
