/* ow-secret-env.h: the engine's own secrets in its environment.
 *
 * A provider key exported for a run (OPENAI_API_KEY, …) is read once, at
 * start, into memory and removed from the process environment, so nothing
 * that later reads the environment (a spawned command, a crash reporter,
 * /proc/<pid>/environ) finds it there. Commands get an allow-listed
 * environment: the variables a shell and its programs need, plus the names
 * a person adds in config.toml (shell_environment_allow).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes this process undumpable (Linux: PR_SET_DUMPABLE 0): no other
 * process of the same user may ptrace it or read its /proc/<pid>/environ,
 * mem or maps, and it leaves no core dump, so the keys it holds stay in it.
 * Programs it starts are dumpable again (execve resets the flag). */
void         ow_secret_env_protect_process (void);

/* Moves each variable of @names that is set into memory, registers its value
 * for redaction and unsets it; also registers the password of every URL
 * with credentials in the environment (a base URL, a proxy). Call once, at
 * the very start of main(), before any thread exists: unsetenv() is not
 * thread-safe. Calling it again adds names. */
void         ow_secret_env_capture        (const char *const *names);

/* The value of @name: the captured one, else the environment's; NULL when
 * unset or empty. Every read of a key variable goes through here. */
const char  *ow_secret_env_get            (const char *name);

/* The password in @url's userinfo, as written (percent-encoded or not), or
 * NULL when it has none. */
char        *ow_secret_env_url_password   (const char *url);

/* Registers the password of @url ("http://user:pass@host/") for redaction;
 * a URL without one is left alone. */
void         ow_secret_env_register_url   (const char *url);

/* Sets the extra names (from the machine config) that commands may see;
 * a name ending in '*' allows a prefix. NULL clears them. Thread-safe. */
void         ow_secret_env_set_allowed    (const char *const *names);

/* Whether a command may see the variable @name: the built-in allow list
 * (PATH, HOME, locale, terminal, time zone, temporary folder, proxies) or
 * one of the names set with ow_secret_env_set_allowed(). */
gboolean     ow_secret_env_name_allowed   (const char *name);

/* @envp (NULL = this process's) with only the allowed variables. */
char       **ow_secret_env_filter         (const char *const *envp);

G_END_DECLS
