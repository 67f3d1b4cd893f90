/* commands.h - the subcommands of the ntmem tool; each takes its own argv
 * (argv[0] is the subcommand name) and returns the exit status. */
#ifndef NTM_COMMANDS_H
#define NTM_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_pollution(int argc, char **argv);
int cmd_populate(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
