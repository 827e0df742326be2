/* ow-safety-code.c: checkers of programs that run code, reach other
 * machines or set up lasting authority.
 *
 * git (hooks, -c keys, config), schedulers, services and accounts
 * (check_authority), PowerShell and cmd.exe, ssh/scp/rsync, containers,
 * downloaders, and the programs that take a command line as an argument
 * (eval, su -c, watch, trap, alias, env -S, echo … | sh). Looked up by name
 * in ow-safety-command.c. Part of the safety checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <string.h>

/* ---- programs that run code or grant authority ---- */

/* git keys whose value is a program git runs, or that pull in such keys. */
static gboolean
git_key_runs_code (const char *key)
{
  static const char *const exact[] = {
    "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor",
    "core.askpass", "core.gitproxy", "sequence.editor", "credential.helper", "gpg.program",
    "diff.external", "include.path", "uploadpack.packobjectshook", "merge.tool", "diff.tool",
    "difftool.cmd", "mergetool.cmd", "web.browser", NULL,
  };
  g_autofree char *lower = g_ascii_strdown (key, -1);

  if (ow_safety_name_in (lower, exact))
    return TRUE;
  if (g_str_has_prefix (lower, "alias.") || g_str_has_prefix (lower, "filter.")
      || g_str_has_prefix (lower, "includeif.") || g_str_has_prefix (lower, "pager.")
      || g_str_has_prefix (lower, "credential."))
    return TRUE;
  if ((g_str_has_prefix (lower, "diff.")
       && (g_str_has_suffix (lower, ".textconv") || g_str_has_suffix (lower, ".command")))
      || (g_str_has_prefix (lower, "merge.") && g_str_has_suffix (lower, ".driver"))
      || (g_str_has_prefix (lower, "gpg.") && g_str_has_suffix (lower, ".program"))
      || (g_str_has_prefix (lower, "difftool.") && g_str_has_suffix (lower, ".cmd"))
      || (g_str_has_prefix (lower, "mergetool.") && g_str_has_suffix (lower, ".cmd")))
    return TRUE;
  return FALSE;
}

static void
check_git_config (Check *c, const Args *a)
{
  static const char *const verbs[] = { "get", "set", "unset", "list", "edit", "rename-section",
                                       "remove-section", NULL };
  static const char *const reads[]
      = { "get",       "get-all",       "get-regexp",  "get-urlmatch", "list",
          "get-color", "get-colorbool", "show-origin", "show-scope",   NULL };
  static const char *const writes[] = { "unset",          "unset-all",      "add",  "replace-all",
                                        "rename-section", "remove-section", "edit", NULL };
  gboolean global = ow_safety_args_has (a, 0, "global") || ow_safety_args_has (a, 0, "system");
  const Opt *file = ow_safety_args_value (a, 'f', "file");
  const char *verb = ow_safety_n_ops (a) > 1 && ow_safety_name_in (ow_safety_op (a, 1), verbs)
                         ? ow_safety_op (a, 1)
                         : NULL;
  guint key_at = verb != NULL ? 2 : 1;
  const char *key = ow_safety_n_ops (a) > key_at ? ow_safety_op (a, key_at) : NULL;
  gboolean reading = FALSE, writing = FALSE, editing;

  for (guint i = 0; i < a->opts->len; i++)
    {
      const Opt *o = &g_array_index (a->opts, Opt, i);

      for (guint k = 0; reads[k] != NULL; k++)
        if (ow_safety_opt_is (o, 0, reads[k]))
          reading = TRUE;
      for (guint k = 0; writes[k] != NULL; k++)
        if (ow_safety_opt_is (o, 0, writes[k]))
          writing = TRUE;
      if (o->sh == 'l' || o->sh == 'e')
        {
          reading = reading || o->sh == 'l';
          writing = writing || o->sh == 'e';
        }
    }
  if (verb != NULL)
    {
      reading = strcmp (verb, "get") == 0 || strcmp (verb, "list") == 0;
      writing = !reading;
    }
  else if (!reading && !writing)
    writing = ow_safety_n_ops (a) > key_at + 1;
  if (!writing)
    return;
  editing = (verb != NULL && strcmp (verb, "edit") == 0) || ow_safety_args_has (a, 'e', "edit");
  if (global)
    ow_safety_finding (
        c, OW_SAFETY_PERSISTENT_AUTHORITY,
        "git config %s%s%s changes git's settings for every repository, which outlives the session",
        ow_safety_args_has (a, 0, "system") ? "--system" : "--global",
        key != NULL && !editing ? " " : "", key != NULL && !editing ? key : "");
  if (key != NULL && !editing && git_key_runs_code (key))
    ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE, "git config %s changes which programs git runs",
                       key);
  if (editing && !global && file == NULL)
    ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE,
                       "git config --edit edits the repository's git settings");
  if (file != NULL)
    ow_safety_judge_write (c, file->value, file->dynamic, "writes");
}

static const char *const git_readonly[] = {
  "status", "log", "show", "diff", "blame", "shortlog", "describe", "rev-parse", "rev-list",
  "ls-files", "ls-tree", "grep", "cat-file", "name-rev", "merge-base", "count-objects", "var",
  "check-ignore", "reflog", "help", "version", NULL,
};

void
ow_safety_check_git (Check *c, const Run *r)
{
  static const char *const global_long[] = { "git-dir", "work-tree", "namespace", "config-env",
                                             "super-prefix", NULL };
  static const char *const clone_long[]
      = { "origin",           "branch",        "upload-pack", "template",
          "config",           "depth",         "reference",   "reference-if-able",
          "separate-git-dir", "jobs",          "filter",      "shallow-since",
          "shallow-exclude",  "server-option", "bundle-uri",  NULL };
  static const char *const config_long[] = { "file", "blob", "type", "default", "comment", NULL };
  OptSpec gspec = { "Cc", NULL, global_long, TRUE };
  GPtrArray *saved = NULL;
  gboolean saved_unknown = FALSE, elsewhere = FALSE;
  const char *sub;
  guint sub_at;
  Args g, a;

  ow_safety_args_parse (&g, r->argv, r->dyn, r->start, &gspec);
  for (guint i = 0; i < g.opts->len; i++)
    {
      const Opt *o = &g_array_index (g.opts, Opt, i);

      if (ow_safety_opt_is (o, 'C', NULL) && o->value != NULL)
        {
          if (saved != NULL)
            {
              /* -C a -C b means a/b: keep the latest folder set */
              GPtrArray *inner = ow_safety_push_cwd (c, o->value, o->dynamic, &saved_unknown);

              g_ptr_array_unref (inner);
            }
          else
            saved = ow_safety_push_cwd (c, o->value, o->dynamic, &saved_unknown);
          elsewhere = TRUE;
        }
      if (ow_safety_opt_is (o, 'c', NULL) && o->value != NULL && strchr (o->value, '=') != NULL)
        {
          /* git -c core.sshCommand='…' runs that text as a command */
          g_autofree char *key = g_strndup (o->value, strcspn (o->value, "="));
          g_autofree char *lower = g_ascii_strdown (key, -1);

          if (g_str_has_suffix (lower, "command") || g_str_has_suffix (lower, ".editor")
              || strcmp (lower, "core.pager") == 0 || g_str_has_prefix (lower, "alias.")
              || g_str_has_suffix (lower, ".helper") || g_str_has_suffix (lower, "proxy"))
            {
              const char *code = strchr (o->value, '=') + 1;

              ow_safety_check_code (c, code[0] == '!' ? code + 1 : code, "a command git -c runs");
            }
        }
      if (ow_safety_opt_is (o, 0, "git-dir") || ow_safety_opt_is (o, 0, "work-tree"))
        {
          elsewhere = TRUE;
          if (o->value != NULL)
            ow_safety_judge_write (c, o->value, o->dynamic, "changes the repository in");
        }
    }
  if (ow_safety_n_ops (&g) == 0)
    goto out;
  sub = ow_safety_op (&g, 0);
  sub_at = g_array_index (g.ops, guint, 0);
  if (strcmp (sub, "config") == 0)
    {
      OptSpec spec = { "f", NULL, config_long, FALSE };

      ow_safety_args_parse (&a, r->argv, r->dyn, sub_at, &spec);
      check_git_config (c, &a);
      ow_safety_args_clear (&a);
    }
  else if (strcmp (sub, "clone") == 0 || strcmp (sub, "init") == 0)
    {
      OptSpec spec = { "obcju", NULL, clone_long, FALSE };
      const Opt *tmpl;

      ow_safety_args_parse (&a, r->argv, r->dyn, sub_at + 1, &spec);
      tmpl = ow_safety_args_value (&a, 0, "template");
      if (tmpl != NULL)
        ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE,
                           "git %s --template copies the git hooks in %s", sub, tmpl->value);
      for (guint i = 0; i < a.opts->len; i++)
        {
          const Opt *o = &g_array_index (a.opts, Opt, i);

          if (ow_safety_opt_is (o, 'c', "config") && o->value != NULL)
            {
              g_autofree char *key = g_strndup (o->value, strcspn (o->value, "="));

              if (git_key_runs_code (key))
                ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE,
                                   "git %s -c %s changes which programs git runs", sub, key);
            }
          if (ow_safety_opt_is (o, 'u', "upload-pack") && o->value != NULL)
            ow_safety_check_code (c, o->value, "git clone --upload-pack");
          if (ow_safety_opt_is (o, 0, "separate-git-dir") && o->value != NULL)
            ow_safety_judge_write (c, o->value, o->dynamic, "writes");
        }
      if (strcmp (sub, "init") == 0)
        ow_safety_judge_write (c, ow_safety_n_ops (&a) > 0 ? ow_safety_op (&a, 0) : ".",
                               ow_safety_n_ops (&a) > 0 && ow_safety_op_dyn (&a, 0), "writes");
      else if (ow_safety_n_ops (&a) > 1)
        ow_safety_judge_write (c, ow_safety_op (&a, 1), ow_safety_op_dyn (&a, 1), "clones into");
      else if (ow_safety_n_ops (&a) == 1 && !ow_safety_op_dyn (&a, 0))
        {
          g_autofree char *trimmed = g_strdup (ow_safety_op (&a, 0));
          g_autofree char *name = NULL;

          while (g_str_has_suffix (trimmed, "/"))
            trimmed[strlen (trimmed) - 1] = '\0';
          name = ow_safety_url_basename (strchr (trimmed, '/') != NULL ? trimmed : "", NULL);
          if (name == NULL && strrchr (trimmed, ':') != NULL)
            name = g_strdup (strrchr (trimmed, ':') + 1);
          if (name != NULL && g_str_has_suffix (name, ".git"))
            name[strlen (name) - 4] = '\0';
          if (name != NULL && name[0] != '\0')
            ow_safety_judge_write (c, name, FALSE, "clones into");
        }
      ow_safety_args_clear (&a);
    }
  else if (strcmp (sub, "worktree") == 0 && r->argv[sub_at + 1] != NULL
           && strcmp (r->argv[sub_at + 1], "add") == 0)
    {
      OptSpec spec = { "bB", NULL, NULL, FALSE };

      ow_safety_args_parse (&a, r->argv, r->dyn, sub_at + 2, &spec);
      if (ow_safety_n_ops (&a) > 0)
        ow_safety_judge_write (c, ow_safety_op (&a, 0), ow_safety_op_dyn (&a, 0), "writes");
      ow_safety_args_clear (&a);
    }
  else if (elsewhere && !ow_safety_name_in (sub, git_readonly))
    ow_safety_judge_write (c, ".", FALSE, "changes the repository in");
out:
  if (saved != NULL)
    ow_safety_pop_cwd (c, saved, saved_unknown);
  ow_safety_args_clear (&g);
}

/* The non-option words after the program (for tools whose commands are
 * words: gh auth login, systemctl enable, launchctl load). */
static GPtrArray *
plain_words (const Run *r)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] || r->argv[i][0] != '-')
      g_ptr_array_add (out, (gpointer) r->argv[i]);
  return out;
}

static gboolean
has_word_ci (const Run *r, const char *word)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_ascii_strcasecmp (r->argv[i], word) == 0)
      return TRUE;
  return FALSE;
}

/* Programs whose job is to set up authority that outlives the session.
 * TRUE when @r was one of them. */
gboolean
ow_safety_check_authority (Check *c, const Run *r)
{
  static const char *const accounts[]
      = { "useradd", "usermod", "adduser", "passwd", "chpasswd", "gpasswd",
          "visudo",  "chsh",    "vipw",    "vigr",   "newusers", NULL };
  static const char *const boot[] = { "update-rc.d", "chkconfig", "rc-update", NULL };
  const char *p = r->prog;
  g_autoptr(GPtrArray) words = plain_words (r);
  const char *w0 = words->len > 0 ? g_ptr_array_index (words, 0) : "";
  const char *w1 = words->len > 1 ? g_ptr_array_index (words, 1) : "";

  if (strcmp (p, "openworker") == 0 || strcmp (p, "openworker-desktop") == 0)
    {
      static const char *const governing[] = { "rules", "inbox", "keys", "machine", NULL };

      if (ow_safety_name_in (w0, governing))
        {
          ow_safety_finding (
              c, OW_SAFETY_PERSISTENT_AUTHORITY,
              "runs `openworker %s`, which changes OpenWorker's own rules, asks, keys or machine settings",
              w0);
          return TRUE;
        }
      return FALSE;
    }
  if (strcmp (p, "crontab") == 0)
    {
      if (!ow_safety_run_has_flag (r, 'l', NULL))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "crontab changes scheduled jobs, which outlive the session");
      return TRUE;
    }
  if (strcmp (p, "at") == 0 || strcmp (p, "batch") == 0)
    {
      if (strcmp (p, "batch") == 0
          || !(ow_safety_run_has_flag (r, 'l', NULL) || ow_safety_run_has_flag (r, 'c', NULL)
               || ow_safety_run_has_flag (r, 'r', NULL) || ow_safety_run_has_flag (r, 'd', NULL)))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "%s schedules a job that runs after the session", p);
      return TRUE;
    }
  if (strcmp (p, "systemctl") == 0)
    {
      static const char *const start_verbs[]
          = { "enable",    "reenable",     "link",        "preset", "preset-all",
              "add-wants", "add-requires", "set-default", NULL };
      static const char *const change_verbs[] = { "edit", "set-property", NULL };
      static const char *const sys_long[]
          = { "type",   "property",  "host",  "machine",  "root",        "lines",
              "output", "signal",    "state", "job-mode", "preset-mode", "kill-whom",
              "what",   "timestamp", "image", "message",  NULL };
      OptSpec spec = { "tpHMnos", NULL, sys_long, FALSE };
      Args a;

      ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
      if (ow_safety_n_ops (&a) > 0 && ow_safety_name_in (ow_safety_op (&a, 0), start_verbs))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "systemctl %s makes a service start on its own, beyond the session",
                           ow_safety_op (&a, 0));
      else if (ow_safety_n_ops (&a) > 0 && ow_safety_name_in (ow_safety_op (&a, 0), change_verbs)
               && !ow_safety_args_has (&a, 0, "runtime"))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "systemctl %s changes a unit for good", ow_safety_op (&a, 0));
      ow_safety_args_clear (&a);
      return TRUE;
    }
  if (strcmp (p, "systemd-run") == 0)
    {
      for (guint i = r->start; r->argv[i] != NULL; i++)
        if (g_str_has_prefix (r->argv[i], "--on-"))
          {
            ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                               "systemd-run sets a timer that fires after the session");
            break;
          }
      return FALSE;
    }
  if (strcmp (p, "loginctl") == 0)
    {
      if (strcmp (w0, "enable-linger") == 0)
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "loginctl enable-linger keeps your services running after you log out");
      return TRUE;
    }
  if (strcmp (p, "launchctl") == 0)
    {
      if (strcmp (w0, "load") == 0 || strcmp (w0, "bootstrap") == 0 || strcmp (w0, "enable") == 0
          || strcmp (w0, "submit") == 0)
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "launchctl %s installs a job that outlives the session", w0);
      return TRUE;
    }
  if (g_ascii_strcasecmp (p, "schtasks") == 0 || g_ascii_strcasecmp (p, "schtasks.exe") == 0)
    {
      if (has_word_ci (r, "/create") || has_word_ci (r, "-create"))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "schtasks /create schedules a task that outlives the session");
      return TRUE;
    }
  if (g_ascii_strcasecmp (p, "reg") == 0 || g_ascii_strcasecmp (p, "reg.exe") == 0)
    {
      gboolean run_key = FALSE;

      for (guint i = r->start; r->argv[i] != NULL; i++)
        {
          g_autofree char *lower = g_ascii_strdown (r->argv[i], -1);

          if (strstr (lower, "currentversion\\run") != NULL)
            run_key = TRUE;
        }
      if (g_ascii_strcasecmp (w0, "add") == 0 && run_key)
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "reg add …\\Run makes a program start at every login");
      return TRUE;
    }
  if (strcmp (p, "setcap") == 0)
    {
      if (!ow_safety_run_has_flag (r, 'v', NULL))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "setcap gives %s capabilities that outlive the session",
                           words->len > 0 ? (const char *) g_ptr_array_index (words, words->len - 1)
                                          : "a program");
      return TRUE;
    }
  if (strcmp (p, "ssh-copy-id") == 0)
    {
      ow_safety_finding (
          c, OW_SAFETY_PERSISTENT_AUTHORITY,
          "ssh-copy-id adds a key to a server's authorized keys, which outlives the session");
      return FALSE;
    }
  if (ow_safety_name_in (p, accounts))
    {
      ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                         "%s changes the system's accounts, which outlives the session", p);
      return TRUE;
    }
  if (ow_safety_name_in (p, boot))
    {
      ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY, "%s makes a service start at boot", p);
      return TRUE;
    }
  if (strcmp (p, "gh") == 0)
    {
      if (strcmp (w0, "auth") == 0)
        {
          if (strcmp (w1, "token") == 0)
            ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ,
                               "gh auth token prints the GitHub CLI token");
          else if (strcmp (w1, "status") != 0 && w1[0] != '\0')
            ow_safety_finding (
                c, OW_SAFETY_PERSISTENT_AUTHORITY,
                "gh auth %s changes the GitHub CLI's login, which outlives the session", w1);
        }
      else if ((strcmp (w0, "ssh-key") == 0 || strcmp (w0, "gpg-key") == 0)
               && strcmp (w1, "add") == 0)
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "gh %s add registers a key with GitHub, which outlives the session", w0);
      else if (strcmp (w0, "repo") == 0 && strcmp (w1, "deploy-key") == 0 && words->len > 2
               && strcmp (g_ptr_array_index (words, 2), "add") == 0)
        ow_safety_finding (
            c, OW_SAFETY_PERSISTENT_AUTHORITY,
            "gh repo deploy-key add grants a key access to a repository, which outlives the "
            "session");
      return FALSE;
    }
  return FALSE;
}

/* Text in another shell's language (cmd /c, powershell -Command):
 * only the plainest signs are looked for. */
static void
judge_foreign_text (Check *c, const char *text, const char *shell)
{
  g_autofree char *lower = g_ascii_strdown (text, -1);

  if (((strstr (lower, "rd ") != NULL || strstr (lower, "rmdir") != NULL
        || strstr (lower, "del ") != NULL || strstr (lower, "erase ") != NULL)
       && strstr (lower, "/s") != NULL)
      || ((strstr (lower, "remove-item") != NULL || strstr (lower, "rm ") != NULL
           || strstr (lower, "ri ") != NULL)
          && strstr (lower, "-r") != NULL))
    ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE,
                       "%s deletes a folder tree, which cannot be located before it runs", shell);
  if ((strstr (lower, "iex") != NULL || strstr (lower, "invoke-expression") != NULL)
      && (strstr (lower, "iwr") != NULL || strstr (lower, "irm") != NULL
          || strstr (lower, "invoke-webrequest") != NULL
          || strstr (lower, "invoke-restmethod") != NULL || strstr (lower, "downloadstring") != NULL
          || strstr (lower, "webclient") != NULL || strstr (lower, "curl") != NULL
          || strstr (lower, "wget") != NULL))
    ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code it downloads", shell);
  if (strstr (lower, "register-scheduledtask") != NULL
      || strstr (lower, "new-scheduledtask") != NULL
      || (strstr (lower, "schtasks") != NULL && strstr (lower, "create") != NULL)
      || strstr (lower, "currentversion\\run") != NULL)
    ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                       "%s sets up a task or start-up entry that outlives the session", shell);
  ow_safety_judge_code_text (c, text, shell);
}

void
ow_safety_check_powershell (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      g_autofree char *lower = g_ascii_strdown (r->argv[i], -1);

      if ((strcmp (lower, "-command") == 0 || strcmp (lower, "-c") == 0
           || strcmp (lower, "/c") == 0)
          && r->argv[i + 1] != NULL)
        {
          g_autofree char *text = ow_safety_join_words (r->argv, i + 1);

          if (strcmp (text, "-") == 0)
            ow_safety_note_stdin_exec (c, r->prog);
          else
            judge_foreign_text (c, text, r->prog);
          return;
        }
      if ((strcmp (lower, "-encodedcommand") == 0 || strcmp (lower, "-enc") == 0
           || strcmp (lower, "-e") == 0 || strcmp (lower, "-ec") == 0)
          && r->argv[i + 1] != NULL)
        {
          gsize len = 0;
          g_autofree guchar *raw = g_base64_decode (r->argv[i + 1], &len);
          g_autofree char *text = len >= 2 ? g_utf16_to_utf8 ((const gunichar2 *) (void *) raw,
                                                              (glong) (len / 2), NULL, NULL, NULL)
                                           : NULL;

          if (text == NULL)
            ow_safety_finding (c, SAFETY_ALL,
                               "%s runs encoded code that cannot be read, so every check applies",
                               r->prog);
          else
            judge_foreign_text (c, text, r->prog);
          return;
        }
      if ((strcmp (lower, "-file") == 0 || strcmp (lower, "-f") == 0) && r->argv[i + 1] != NULL)
        {
          ow_safety_check_exec_file (c, r->argv[i + 1], r->dyn[i + 1], r->prog);
          return;
        }
      if (lower[0] != '-')
        {
          /* powershell "text" runs the words as a command */
          g_autofree char *text = ow_safety_join_words (r->argv, i);

          judge_foreign_text (c, text, r->prog);
          return;
        }
    }
  ow_safety_note_stdin_exec (c, r->prog);
}

/* scp and rsync: local sources are read (and may leave the machine), a
 * local destination is written. */
void
ow_safety_check_transfer (Check *c, const Run *r)
{
  static const char *const rsync_long[]
      = { "rsh",           "rsync-path",   "filter",     "exclude",       "include",
          "exclude-from",  "include-from", "files-from", "backup-dir",    "suffix",
          "chmod",         "chown",        "log-file",   "password-file", "partial-dir",
          "compare-dest",  "copy-dest",    "link-dest",  "temp-dir",      "block-size",
          "remote-option", "timeout",      "port",       "out-format",    "max-size",
          "min-size",      "bwlimit",      NULL };
  gboolean rsync = strcmp (r->prog, "rsync") == 0;
  OptSpec spec = { rsync ? "efBTM" : "cFiJloPSD", NULL, rsync ? rsync_long : NULL, FALSE };
  gboolean deletes = FALSE;
  Args a;
  guint n;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if (o->lng != NULL && o->lng_len >= 6 && strncmp (o->lng, "delete", 6) == 0)
        deletes = TRUE;
      if (rsync && ow_safety_opt_is (o, 0, "log-file") && o->value != NULL)
        ow_safety_judge_write (c, o->value, o->dynamic, "writes");
    }
  n = ow_safety_n_ops (&a);
  for (guint k = 0; k < n; k++)
    {
      const char *w = ow_safety_op (&a, k);
      const char *colon = strchr (w, ':');
      const char *slash = strchr (w, '/');
      gboolean remote = colon != NULL && (slash == NULL || colon < slash);

      if (remote)
        continue;
      if (k + 1 == n && n > 1)
        {
          if (deletes)
            ow_safety_judge_delete (c, w, ow_safety_op_dyn (&a, k), TRUE, FALSE);
          else
            ow_safety_judge_write (c, w, ow_safety_op_dyn (&a, k), "writes");
        }
      else
        ow_safety_judge_read (c, w, ow_safety_op_dyn (&a, k), TRUE);
    }
  ow_safety_args_clear (&a);
}

/* docker/podman -v HOST:CONTAINER: the host folder is read and, unless
 * mounted read-only, written by the container. */
void
ow_safety_check_container (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];
      const char *value = NULL;
      gboolean dyn = r->dyn[i];
      g_autofree char *host = NULL;

      if ((strcmp (w, "-v") == 0 || strcmp (w, "--volume") == 0 || strcmp (w, "--mount") == 0)
          && r->argv[i + 1] != NULL)
        {
          value = r->argv[i + 1];
          dyn = r->dyn[i + 1];
          if (strcmp (w, "--mount") == 0)
            w = "--mount=";
        }
      else if (g_str_has_prefix (w, "--volume="))
        value = w + strlen ("--volume=");
      else if (g_str_has_prefix (w, "--mount="))
        value = w + strlen ("--mount=");
      else if (g_str_has_prefix (w, "-v") && w[2] != '\0')
        value = w + 2;
      if (value == NULL)
        continue;
      if (g_str_has_prefix (w, "--mount"))
        {
          const char *src = strstr (value, "source=");

          if (src == NULL)
            src = strstr (value, "src=");
          if (src == NULL)
            continue;
          src = strchr (src, '=') + 1;
          host = g_strndup (src, strcspn (src, ","));
        }
      else
        host = g_strndup (value, strcspn (value, ":"));
      if (host[0] != '/' && host[0] != '~' && host[0] != '.' && host[0] != '$')
        continue;   /* a named volume */
      ow_safety_judge_read (c, host, dyn, TRUE);
      if (strstr (value, ":ro") == NULL && strstr (value, "readonly") == NULL)
        ow_safety_judge_write (c, host, dyn, "lets a container write");
    }
}

/* deno: a script given by URL runs straight from the network. */
void
ow_safety_check_deno (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) words = plain_words (r);

  for (guint k = 1; k < words->len; k++)
    if (ow_safety_is_url (g_ptr_array_index (words, k)))
      ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "deno runs %s straight from the network",
                         (const char *) g_ptr_array_index (words, k));
}

/* eval: its words are a command line (ow_shell_inner_command). */
void
ow_safety_check_eval (Check *c, const Run *r)
{
  g_autofree char *code = ow_shell_inner_command (r->cmd, NULL);

  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] && (strstr (r->argv[i], "$(") != NULL || strchr (r->argv[i], '`') != NULL))
      {
        ow_safety_finding (
            c, OW_SAFETY_OPAQUE_CODE,
            "eval runs the output of a command, code that is only known when it runs");
        break;
      }
  ow_safety_check_code (c, code != NULL ? code : "", "eval");
}

/* source, .: the file runs here. */
void
ow_safety_check_source (Check *c, const Run *r)
{
  const char *p = r->prog;

  if (r->argv[r->start] != NULL)
    ow_safety_check_exec_file (c, r->argv[r->start], r->dyn[r->start], p);
}

/* su, runuser, flock, script: -c code, a command to run, script's log file. */
void
ow_safety_check_su (Check *c, const Run *r)
{
  const char *p = r->prog;
  static const char *const longs[] = { "command", "session-command", "group", "shell", NULL };
  OptSpec spec = { strcmp (p, "flock") == 0    ? "wEc"
                   : strcmp (p, "script") == 0 ? "cEIOTBt"
                                               : "cgGswu",
                   NULL, longs, strcmp (p, "flock") == 0 };
  const Opt *code;
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  code = ow_safety_args_value (&a, 'c', "command");
  if (code == NULL)
    code = ow_safety_args_value (&a, 0, "session-command");
  if (code != NULL)
    {
      g_autofree char *what = g_strdup_printf ("%s -c", p);

      ow_safety_check_code (c, code->value, what);
    }
  else if (strcmp (p, "flock") == 0 && ow_safety_n_ops (&a) > 1)
    {
      guint from = g_array_index (a.ops, guint, 1);

      ow_safety_check_words (c, (char **) r->argv + from, r->dyn + from,
                             g_strv_length ((char **) r->argv + from));
    }
  if (strcmp (p, "script") == 0 && ow_safety_n_ops (&a) > 0)
    ow_safety_judge_write (c, ow_safety_op (&a, 0), ow_safety_op_dyn (&a, 0), "writes");
  ow_safety_args_clear (&a);
}

/* watch: its command runs, as words (-x) or as a command line. */
void
ow_safety_check_watch (Check *c, const Run *r)
{
  static const char *const longs[] = { "interval", NULL };
  OptSpec spec = { "nq", NULL, longs, TRUE };
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (ow_safety_n_ops (&a) > 0)
    {
      guint from = g_array_index (a.ops, guint, 0);

      if (ow_safety_args_has (&a, 'x', "exec"))
        ow_safety_check_words (c, (char **) r->argv + from, r->dyn + from,
                               g_strv_length ((char **) r->argv + from));
      else
        {
          g_autofree char *code = ow_safety_join_words (r->argv, from);

          ow_safety_check_code (c, code, "watch");
        }
    }
  ow_safety_args_clear (&a);
}

/* trap: the handler is code. */
void
ow_safety_check_trap (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) words = plain_words (r);

  if (words->len >= 2)
    ow_safety_check_code (c, g_ptr_array_index (words, 0), "trap");
}

/* alias: the value is code. */
void
ow_safety_check_alias (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *eq = strchr (r->argv[i], '=');

      if (eq != NULL)
        ow_safety_check_code (c, eq + 1, "alias");
    }
}

/* env -S: the split string is a command line. */
void
ow_safety_check_env (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if ((strcmp (w, "-S") == 0 || strcmp (w, "--split-string") == 0) && r->argv[i + 1] != NULL)
        {
          ow_safety_check_code (c, r->argv[i + 1], "env -S");
          break;
        }
      if (g_str_has_prefix (w, "--split-string="))
        {
          ow_safety_check_code (c, w + strlen ("--split-string="), "env -S");
          break;
        }
      if (g_str_has_prefix (w, "-S") && w[2] != '\0')
        {
          ow_safety_check_code (c, w + 2, "env -S");
          break;
        }
    }
}

/* cmd /c, /k: the rest is a cmd.exe command line. */
void
ow_safety_check_cmd_exe (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_ascii_strcasecmp (r->argv[i], "/c") == 0 || g_ascii_strcasecmp (r->argv[i], "/k") == 0)
      {
        g_autofree char *text = ow_safety_join_words (r->argv, i + 1);

        judge_foreign_text (c, text, "cmd");
        break;
      }
}

/* ssh, sftp: -o ProxyCommand=… and LocalCommand run here, not on the server. */
void
ow_safety_check_ssh (Check *c, const Run *r)
{
  /* -o ProxyCommand=… and LocalCommand run here, not on the server */
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];
      const char *opt = NULL;

      if (strcmp (w, "-o") == 0 && r->argv[i + 1] != NULL)
        opt = r->argv[++i];
      else if (g_str_has_prefix (w, "-o"))
        opt = w + 2;
      if (opt != NULL && (g_ascii_strncasecmp (opt, "ProxyCommand", 12) == 0
                          || g_ascii_strncasecmp (opt, "LocalCommand", 12) == 0)
          && strpbrk (opt, "= ") != NULL)
        {
          const char *code = strpbrk (opt, "= ") + 1;

          ow_safety_check_code (c, code, "an ssh ProxyCommand");
        }
    }
}

/* curl, wget, aria2c, …: the files downloaded to, written logs and uploads. */
void
ow_safety_check_download (Check *c, const Run *r)
{
  const char *p = r->prog;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  Args a;

  ow_safety_download_targets (r->cmd, p, r->start, files);
  for (guint k = 0; k < files->len; k++)
    ow_safety_judge_write (c, g_ptr_array_index (files, k), FALSE, "downloads to");
  ow_safety_args_parse (&a, r->argv, r->dyn, r->start,
                        strcmp (p, "curl") == 0        ? &ow_safety_curl_spec
                        : g_str_has_prefix (p, "wget") ? &ow_safety_wget_spec
                                                       : &ow_safety_aria_spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if (o->value == NULL)
        continue;
      if (strcmp (p, "curl") == 0
          && (ow_safety_opt_is (o, 'D', "dump-header") || ow_safety_opt_is (o, 'c', "cookie-jar")
              || ow_safety_opt_is (o, 0, "trace") || ow_safety_opt_is (o, 0, "trace-ascii")
              || ow_safety_opt_is (o, 0, "stderr") || ow_safety_opt_is (o, 0, "libcurl")
              || (ow_safety_opt_is (o, 'o', "output") && o->dynamic))
          && strcmp (o->value, "-") != 0)
        ow_safety_judge_write (c, o->value, o->dynamic, "writes");
      if (g_str_has_prefix (p, "wget")
          && (ow_safety_opt_is (o, 'o', "output-file") || ow_safety_opt_is (o, 'a', "append-output")
              || (ow_safety_opt_is (o, 'O', "output-document") && o->dynamic)))
        ow_safety_judge_write (c, o->value, o->dynamic, "writes");
      if (g_str_has_prefix (p, "wget") && ow_safety_opt_is (o, 'e', "execute"))
        ow_safety_judge_write (c, ".", FALSE, "writes");
      if (strcmp (p, "curl") == 0
          && (ow_safety_opt_is (o, 'T', "upload-file") || ow_safety_opt_is (o, 'K', "config")))
        ow_safety_judge_read (c, o->value, o->dynamic, FALSE);
      if (strcmp (p, "curl") == 0 && o->value[0] != '\0'
          && (ow_safety_opt_is (o, 'd', "data") || ow_safety_opt_is (o, 0, "data-binary")
              || ow_safety_opt_is (o, 0, "data-urlencode") || ow_safety_opt_is (o, 0, "data-ascii")
              || ow_safety_opt_is (o, 0, "json") || ow_safety_opt_is (o, 'F', "form")))
        {
          const char *at = strchr (o->value, '@');
          const char *lt = ow_safety_opt_is (o, 'F', "form") ? strchr (o->value, '<') : NULL;
          const char *from = at != NULL ? at : lt;

          if (from != NULL)
            {
              g_autofree char *file = g_strndup (from + 1, strcspn (from + 1, ";"));

              ow_safety_judge_read (c, file, o->dynamic, FALSE);
            }
        }
      if (g_str_has_prefix (p, "wget")
          && (ow_safety_opt_is (o, 0, "post-file") || ow_safety_opt_is (o, 0, "body-file")))
        ow_safety_judge_read (c, o->value, o->dynamic, FALSE);
    }
  ow_safety_args_clear (&a);
}

/* echo, printf: what is echoed into a shell (echo "…" | sh) is run. */
void
ow_safety_check_echo (Check *c, const Run *r)
{
  g_autofree char *code = NULL;

  if (!c->saw_pipe || c->stdin_exec == NULL || !ow_shell_is_shell (c->stdin_exec))
    return;
  code = ow_safety_join_words (r->argv, r->start);
  ow_safety_check_code (c, code, "the text piped into a shell");
}
