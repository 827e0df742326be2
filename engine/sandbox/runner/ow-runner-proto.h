/* ow-runner-proto.h: the framed protocol between the engine and
 * openworker-tool-runner. Plain C over libc (the runner has no GLib).
 *
 * Each frame is a 4-byte big-endian length followed by that many bytes of
 * one UTF-8 JSON object; frames larger than OW_RUNNER_MAX_FRAME are a
 * protocol error that ends the connection.
 *
 * Engine → runner:
 *   {"op":"roots","roots":[{"path":"/abs","writable":true},…]}
 *   {"op":"call","id":N,"tool":"run_shell","args":"<the arguments' JSON text>"}
 *   {"op":"cancel","id":N}                 interrupt call N (its cancel fd becomes readable)
 *   {"op":"probe","id":N,"checks":[…]}     wall proof from inside (see the runner)
 *   {"op":"shutdown"}
 * Runner → engine:
 *   {"op":"hello","version":1,"pid":P}     once, first
 *   {"id":N,"status":S,"result":"<JSON text>"}   S is an OwTbStatus
 *   {"id":N,"probe":[{"name":…,"ok":bool,"detail":…},…]}
 * Calls may overlap (a background task's output can be read while a
 * command runs); results come back as each call ends.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define OW_RUNNER_PROTOCOL_VERSION 1
#define OW_RUNNER_MAX_FRAME (64u * 1024u * 1024u)

/* Writes one frame (blocking, retrying on EINTR). 0 on success, -1 on error. */
int ow_runner_write_frame (int fd, const char *json, size_t len);

/* Reads one frame into a malloc'ed, NUL-terminated buffer (blocking).
 * Returns its length, or -1 at end of stream / on error / when too large. */
long ow_runner_read_frame (int fd, char **json_out);
