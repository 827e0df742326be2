/* ow-cli-keys.h: model keys on the command line.
 *
 *   openworker keys list [--json]        every provider and where its key comes from:
 *                                        environment, keyring or file — never the key
 *   openworker keys set PROVIDER [--verify]
 *                                        saves a key read from stdin, or typed at a
 *                                        prompt that does not echo; never from argv
 *   openworker keys remove PROVIDER      forgets the saved key
 *   openworker keys verify PROVIDER      tests the key this machine would use
 *
 * Returns the process exit code (0 ok, 1 failure, 2 bad command line).
 */
#pragma once

int ow_keys_main (int argc, char **argv);
