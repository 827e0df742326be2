/* ow-cli-admin.h: the person's side of governance on the command line.
 *
 *   openworker rules list|add|revoke     standing rules: visible, revocable
 *   openworker inbox list|answer         asks parked for a person
 *   openworker audit verify|list         the tamper-evident audit trail
 *
 * Each returns the process exit code (0 ok, 1 failure, 2 bad command line).
 */
#pragma once

int ow_rules_main (int argc, char **argv);
int ow_inbox_main (int argc, char **argv);
int ow_audit_main (int argc, char **argv);
