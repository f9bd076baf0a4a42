/* stp-write.h: writing SystemTap source safely: string literals escaped,
   files written under a temporary name and renamed into place.  */

#ifndef GOSTAP_STP_WRITE_H
#define GOSTAP_STP_WRITE_H

#include <stdio.h>

/* S as a SystemTap string literal, quotes included: printable ASCII as it
   is, '"' and '\\' escaped, every other byte as an octal escape.  */
void stp_string (FILE *f, const char *s);

/* S inside a comment: only [A-Za-z0-9 ._/()*[\]:-], everything else as
   '?', so no byte of a binary can end the comment or start code.  */
void stp_comment_text (FILE *f, const char *s);

/* An output file under construction in DIR.  */
struct stp_file
{
  char *path, *tmp;
  FILE *f;
};

/* Open DIR/NAME.tmp.XXXXXX; 0, or -1 with a message.  */
int stp_file_open (struct stp_file *sf, const char *dir, const char *name);
/* The same for the file at PATH (in the current directory when PATH has
   no '/'); -1 with a message when PATH names no file ("", "DIR/").  */
int stp_file_open_path (struct stp_file *sf, const char *path);
/* Close and rename into place when OK, else remove; 0, or -1.  */
int stp_file_close (struct stp_file *sf, int ok);

#endif
