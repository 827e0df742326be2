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
 *                                          optional "cancelled":true: the caller
 *                                          had already cancelled it; its cancel
 *                                          fd is readable before the tool starts
 *   {"op":"cancel","id":N}                 interrupt call N (its cancel fd becomes readable)
 *   {"op":"probe","id":N,"checks":[…]}     wall proof from inside (see the runner)
 *   {"op":"shutdown"}
 * Runner → engine:
 *   {"op":"hello","version":1,"pid":P}     once, first; behind a wall it also
 *                                          carries "wall": {"landlock_abi": N,
 *                                          "seccomp": bool, "network": "none"|
 *                                          "proxy"|"open", "bridge_port": N,
 *                                          "home": "/…"}
 *   {"op":"fatal","message":"…"}           instead of hello when the wall could
 *                                          not be built; the runner then exits
 *   {"id":N,"status":S,"result":"<JSON text>"}   S is an OwTbStatus
 *   {"id":N,"probe":[{"name":…,"ok":bool,"detail":…},…]}
 * Calls may overlap (a background task's output can be read while a
 * command runs); results come back as each call ends. A cancelled call
 * still gets its result frame (status OW_TB_INTERRUPTED).
 *
 * When the runner builds its own wall (openworker-tool-runner --wall) the
 * engine's first frame is {"op":"wall",…} with the sandbox's description
 * (platform/linux/ow-wall.h); hello follows once the wall stands.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define OW_RUNNER_PROTOCOL_VERSION 1
#define OW_RUNNER_MAX_FRAME (64u * 1024u * 1024u)

/* Writes one frame (blocking, retrying on EINTR and short writes). 0 on
 * success, -1 on error with errno set (EMSGSIZE when @len is larger than
 * OW_RUNNER_MAX_FRAME). Callers sharing @fd between threads serialize. */
int ow_runner_write_frame (int fd, const char *json, size_t len);

/* Reads one frame into a malloc'ed, NUL-terminated buffer (blocking).
 * Returns its length, or -1 at end of stream / on error / when too large,
 * with errno telling which: 0 for a clean end of stream between frames,
 * EPROTO for a stream that ends inside a frame, EMSGSIZE for a length
 * above OW_RUNNER_MAX_FRAME (nothing is allocated), else the read error.
 * *json_out is NULL on failure. */
long ow_runner_read_frame (int fd, char **json_out);

/* The 4-byte header for a frame of @len bytes, and back. */
void     ow_runner_frame_header_encode (uint32_t len, unsigned char header[4]);
uint32_t ow_runner_frame_header_decode (const unsigned char header[4]);
