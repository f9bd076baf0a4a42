/* commands.h: one entry point per subcommand, each in its own cmd-*.c,
   all listed in the table in gostap.c.  */

#ifndef GOSTAP_COMMANDS_H
#define GOSTAP_COMMANDS_H

/* Each returns the process exit status (see gobin.h).  ARGV[0] is the
   subcommand's name.  */
int cmd_list (int argc, char **argv);
int cmd_gen (int argc, char **argv);
int cmd_run (int argc, char **argv);
int cmd_doctor (int argc, char **argv);
int cmd_companion (int argc, char **argv);
int cmd_symbolize (int argc, char **argv);
int cmd_types (int argc, char **argv);

#endif
