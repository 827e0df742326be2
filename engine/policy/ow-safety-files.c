/* ow-safety-files.c: checkers of programs that write, move and delete files.
 *
 * rm, find, cp/mv/install/ln, chmod/chown, sed -i, awk, tar, cd and the
 * smaller ones (tee, touch, dd, zip, editors, compilers' -o, …): which
 * operands they write, delete or read. Looked up by name in
 * ow-safety-command.c. Part of the safety checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <string.h>
#include <sys/stat.h>

/* ---- programs that touch files ---- */

void
ow_safety_check_rm (Check *c, const Run *r)
{
  static const char *const longs[] = { NULL };
  OptSpec spec = { "", NULL, longs, FALSE };
  Args a;
  gboolean recursive;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  recursive = ow_safety_args_has (&a, 'r', "recursive") || ow_safety_args_has (&a, 'R', NULL);
  if (strcmp (r->prog, "rmdir") == 0)
    {
      gboolean parents = ow_safety_args_has (&a, 'p', "parents");

      for (guint k = 0; k < ow_safety_n_ops (&a); k++)
        {
          ow_safety_judge_delete (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), FALSE, FALSE);
          if (parents)
            {
              /* rmdir -p a/b/c also removes a/b and a, as written */
              g_autofree char *path = g_strdup (ow_safety_op (&a, k));
              char *slash;

              while ((slash = strrchr (path, '/')) != NULL && slash != path)
                {
                  *slash = '\0';
                  if (path[0] != '\0')
                    ow_safety_judge_delete (c, path, ow_safety_op_dyn (&a, k), TRUE, FALSE);
                }
            }
        }
      ow_safety_more_targets (c, r, "deletes", TRUE, parents);
    }
  else
    {
      for (guint k = 0; k < ow_safety_n_ops (&a); k++)
        ow_safety_judge_delete (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), recursive,
                                FALSE);
      ow_safety_more_targets (c, r, "deletes", TRUE, recursive);
    }
  ow_safety_args_clear (&a);
}

void
ow_safety_check_find (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) starts = g_ptr_array_new ();
  g_autoptr(GArray) start_dyn = g_array_new (FALSE, FALSE, sizeof (gboolean));
  guint i = r->start;
  gboolean deletes = FALSE;

  /* leading options: -H -L -P -Olevel -D debug */
  while (r->argv[i] != NULL && !r->dyn[i]
         && (strcmp (r->argv[i], "-H") == 0 || strcmp (r->argv[i], "-L") == 0
             || strcmp (r->argv[i], "-P") == 0 || g_str_has_prefix (r->argv[i], "-O")
             || strcmp (r->argv[i], "-D") == 0))
    {
      if (strcmp (r->argv[i], "-D") == 0 && r->argv[i + 1] != NULL)
        i++;
      i++;
    }
  while (r->argv[i] != NULL && (r->dyn[i] || (r->argv[i][0] != '-' && strcmp (r->argv[i], "(") != 0
                                              && strcmp (r->argv[i], "!") != 0)))
    {
      g_ptr_array_add (starts, (gpointer) r->argv[i]);
      g_array_append_val (start_dyn, r->dyn[i]);
      i++;
    }
  if (starts->len == 0)
    {
      gboolean no = FALSE;

      g_ptr_array_add (starts, (gpointer) ".");
      g_array_append_val (start_dyn, no);
    }
  for (; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (strcmp (w, "-delete") == 0)
        deletes = TRUE;
      else if ((strcmp (w, "-fprint") == 0 || strcmp (w, "-fprint0") == 0 || strcmp (w, "-fls") == 0
                || strcmp (w, "-fprintf") == 0) && r->argv[i + 1] != NULL)
        {
          ow_safety_judge_write (c, r->argv[i + 1], r->dyn[i + 1], "writes");
          i++;
        }
      else if (strcmp (w, "-exec") == 0 || strcmp (w, "-execdir") == 0 || strcmp (w, "-ok") == 0
               || strcmp (w, "-okdir") == 0)
        {
          guint from = i + 1, end = from;
          const char *prog;

          while (r->argv[end] != NULL && strcmp (r->argv[end], ";") != 0
                 && strcmp (r->argv[end], "+") != 0)
            end++;
          if (end == from)
            {
              if (r->argv[end] == NULL)
                break;
              i = end;
              continue;
            }
          prog = strrchr (r->argv[from], '/') != NULL ? strrchr (r->argv[from], '/') + 1
                                                      : r->argv[from];
          if (strcmp (prog, "rm") == 0 || strcmp (prog, "rmdir") == 0
              || strcmp (prog, "unlink") == 0 || strcmp (prog, "shred") == 0)
            deletes = TRUE;
          else
            for (guint s = 0; s < starts->len; s++)
              {
                /* {} stands for what find finds below each start */
                g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
                g_autoptr(GArray) flags = g_array_new (FALSE, TRUE, sizeof (gboolean));
                g_autofree char *below = ow_safety_path_join (g_ptr_array_index (starts, s), "*");

                for (guint k = from; k < end; k++)
                  {
                    gboolean is_found = strstr (r->argv[k], "{}") != NULL;
                    gboolean flag = r->dyn[k] || (is_found && k > from);

                    g_ptr_array_add (words, is_found && k > from ? g_strdup (below)
                                                                 : g_strdup (r->argv[k]));
                    g_array_append_val (flags, flag);
                  }
                ow_safety_check_words (c, (char **) words->pdata,
                                       (const gboolean *) (void *) flags->data, words->len);
              }
          i = r->argv[end] != NULL ? end : end - 1;
        }
    }
  if (deletes)
    for (guint s = 0; s < starts->len; s++)
      ow_safety_judge_delete (c, g_ptr_array_index (starts, s),
                              g_array_index (start_dyn, gboolean, s), TRUE, TRUE);
}

/* The destination of cp, mv, install or ln: a folder (given with -t,
 * written with a trailing slash, or already one) receives each source
 * under its own name; anything else is the file written. */
static void
judge_destination (Check *c, const char *dest, gboolean dynamic, const Args *a, guint n_sources,
                   gboolean may_be_folder)
{
  gboolean folder = FALSE;
  Target t;

  ow_safety_target_init (c, &t, dest, dynamic);
  if (may_be_folder && !t.unknown)
    {
      struct stat st;

      folder = g_str_has_suffix (dest, "/") || n_sources > 1
               || (t.real.len > 0 && stat (t.real.item[0], &st) == 0
                   && S_ISDIR (st.st_mode));
    }
  if (!folder || n_sources == 0)
    {
      ow_safety_judge_write_target (c, &t, "writes");
      ow_safety_target_clear (&t);
      return;
    }
  ow_safety_target_clear (&t);
  for (guint k = 0; k < n_sources; k++)
    {
      const char *src = ow_safety_op (a, k);
      g_autofree char *trimmed = g_strdup (src);
      g_autofree char *into = NULL;
      const char *name;

      while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
        trimmed[strlen (trimmed) - 1] = '\0';
      name = strrchr (trimmed, '/') != NULL ? strrchr (trimmed, '/') + 1 : trimmed;
      /* a name only known at run time is still a name inside the folder */
      if (ow_safety_op_dyn (a, k) || name[0] == '\0' || strcmp (name, ".") == 0)
        name = "…";
      else if (strcmp (name, "..") == 0)
        name = "";
      into = g_strconcat (dest, g_str_has_suffix (dest, "/") ? "" : "/", name, NULL);
      ow_safety_judge_write (c, into, dynamic, "writes");
    }
}

/* cp, mv, install, ln: the destination is written; sources are read
 * (and removed by mv). */
void
ow_safety_check_copy (Check *c, const Run *r)
{
  static const char *const longs[]
      = { "target-directory", "suffix", "mode", "owner", "group", NULL };
  OptSpec spec = { strcmp (r->prog, "install") == 0 ? "gmoSt" : "St", NULL, longs, FALSE };
  const Opt *target;
  gboolean recursive;
  Args a;
  guint n_sources;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  target = ow_safety_args_value (&a, 't', "target-directory");
  recursive = ow_safety_args_has (&a, 'r', "recursive") || ow_safety_args_has (&a, 'R', NULL)
              || ow_safety_args_has (&a, 'a', "archive");
  if (strcmp (r->prog, "install") == 0)
    {
      const Opt *mode = ow_safety_args_value (&a, 'm', "mode");

      if (mode != NULL && ow_safety_mode_sets_id (mode->value))
        ow_safety_finding (
            c, OW_SAFETY_PERSISTENT_AUTHORITY,
            "install -m %s sets the setuid or setgid bit, which outlives the session", mode->value);
      if (ow_safety_args_has (&a, 'd', "directory"))
        {
          ow_safety_each_write (c, &a, 0, "writes");
          ow_safety_args_clear (&a);
          return;
        }
    }
  if (target != NULL)
    {
      n_sources = ow_safety_n_ops (&a);
      judge_destination (c, target->value, target->dynamic, &a, n_sources, TRUE);
    }
  else if (ow_safety_n_ops (&a) >= 2 || (r->more && ow_safety_n_ops (&a) >= 1))
    {
      n_sources = ow_safety_n_ops (&a) - 1;
      judge_destination (
          c, ow_safety_op (&a, n_sources), ow_safety_op_dyn (&a, n_sources), &a, n_sources,
          n_sources > 1 || r->more || ow_safety_args_has (&a, 'T', "no-target-directory") == FALSE);
    }
  else if (strcmp (r->prog, "ln") == 0 && ow_safety_n_ops (&a) == 1)
    {
      /* ln SOURCE makes a link named like it in the current folder */
      const char *name = strrchr (ow_safety_op (&a, 0), '/') != NULL
                             ? strrchr (ow_safety_op (&a, 0), '/') + 1
                             : ow_safety_op (&a, 0);

      ow_safety_judge_write (c, name[0] != '\0' ? name : ".", ow_safety_op_dyn (&a, 0), "writes");
      n_sources = 1;
    }
  else
    n_sources = ow_safety_n_ops (&a);
  ow_safety_more_targets (c, r, "writes", FALSE, FALSE);
  for (guint k = 0; k < n_sources; k++)
    {
      const char *src = ow_safety_op (&a, k);
      gboolean dyn = ow_safety_op_dyn (&a, k);

      if (strcmp (r->prog, "mv") == 0)
        ow_safety_judge_delete (c, src, dyn, FALSE, FALSE);
      ow_safety_judge_read (c, src, dyn, recursive);
      if (strcmp (r->prog, "ln") == 0 && ow_safety_args_has (&a, 's', "symbolic"))
        {
          /* a link to /, a home or a folder holding a session folder
           * lets later writes through it land anywhere there */
          Target t;

          ow_safety_target_init (c, &t, src, dyn);
          for (guint i = 0; i < t.real.len && !t.unknown; i++)
            {
              const char *f = t.real.item[i];
              const char *scope = ow_safety_delete_scope (c, f, TRUE);

              if (scope != NULL && strcmp (scope, "outside the session's folders") != 0)
                {
                  g_autofree char *where = ow_safety_display (c, f);

                  ow_safety_finding (
                      c, OW_SAFETY_WRITE_OUTSIDE,
                      "links to %s (%s), so writes through the link land outside the "
                      "session's folders",
                      where, scope);
                  break;
                }
            }
          for (guint i = 0; i < t.names.len && !t.unknown; i++)
            {
              const char *kind = ow_safety_protected_kind (c, t.names.item[i]);

              if (kind != NULL)
                {
                  ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE,
                                     "links to %s, %s, so writes through the link change it", src,
                                     kind);
                  break;
                }
            }
          ow_safety_target_clear (&t);
        }
    }
  ow_safety_args_clear (&a);
}

void
ow_safety_check_chmod (Check *c, const Run *r)
{
  gboolean reference = FALSE;
  const char *mode = NULL;
  guint first = 0;
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (guint));

  /* chmod -x file: a mode that looks like an option */
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (!r->dyn[i] && w[0] == '-' && w[1] != '\0' && strspn (w + 1, "cfvR") == strlen (w + 1))
        continue;
      if (!r->dyn[i] && g_str_has_prefix (w, "--"))
        {
          if (g_str_has_prefix (w, "--reference"))
            reference = TRUE;
          continue;
        }
      g_array_append_val (ops, i);
    }
  if (strcmp (r->prog, "chmod") == 0 && !reference && ops->len > 0)
    {
      mode = r->argv[g_array_index (ops, guint, 0)];
      first = 1;
    }
  else if (strcmp (r->prog, "chmod") != 0 && !reference && ops->len > 0)
    first = 1;
  for (guint k = first; k < ops->len; k++)
    {
      guint i = g_array_index (ops, guint, k);

      ow_safety_judge_write (c, r->argv[i], r->dyn[i],
                             strcmp (r->prog, "chmod") == 0 ? "changes the permissions of"
                                                            : "changes the owner of");
      if (mode != NULL && ow_safety_mode_sets_id (mode))
        ow_safety_finding (
            c, OW_SAFETY_PERSISTENT_AUTHORITY,
            "chmod %s sets the setuid or setgid bit on %s, which outlives the session", mode,
            r->argv[i]);
    }
  if (r->more)
    {
      if (mode != NULL && ow_safety_mode_sets_id (mode))
        ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                           "chmod %s sets the setuid or setgid bit, which outlives the session",
                           mode);
      ow_safety_more_targets (c, r, "changes", FALSE, FALSE);
    }
}

void
ow_safety_check_sed (Check *c, const Run *r)
{
  static const char *const longs[] = { "expression", "file", "line-length", NULL };
  OptSpec spec = { "efl", "i", longs, FALSE };
  gboolean script_given, in_place;
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  script_given = ow_safety_args_has (&a, 'e', "expression") || ow_safety_args_has (&a, 'f', "file");
  in_place = ow_safety_args_has (&a, 'i', "in-place");
  if (in_place)
    {
      ow_safety_each_write (c, &a, script_given ? 0 : 1, "edits");
      ow_safety_more_targets (c, r, "edits", FALSE, FALSE);
    }
  else
    for (guint k = script_given ? 0 : 1; k < ow_safety_n_ops (&a); k++)
      ow_safety_judge_read (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), FALSE);
  ow_safety_args_clear (&a);
}

void
ow_safety_check_awk (Check *c, const Run *r)
{
  static const char *const longs[]
      = { "file", "assign", "field-separator", "include", "load", "source", NULL };
  OptSpec spec = { "fvFilEe", NULL, longs, FALSE };
  const Opt *include;
  gboolean program_file;
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  program_file = ow_safety_args_has (&a, 'f', "file");
  include = ow_safety_args_value (&a, 'i', "include");
  if (!program_file && ow_safety_n_ops (&a) > 0)
    ow_safety_judge_code_text (c, ow_safety_op (&a, 0), r->prog);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if ((ow_safety_opt_is (o, 'e', "source")) && o->value != NULL)
        ow_safety_judge_code_text (c, o->value, r->prog);
    }
  for (guint k = program_file ? 0 : 1; k < ow_safety_n_ops (&a); k++)
    {
      if (strchr (ow_safety_op (&a, k), '=') != NULL && !ow_safety_op_dyn (&a, k))
        continue;
      if (include != NULL && strcmp (include->value, "inplace") == 0)
        ow_safety_judge_write (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), "edits");
      ow_safety_judge_read (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), FALSE);
    }
  ow_safety_args_clear (&a);
}

void
ow_safety_check_tar (Check *c, const Run *r)
{
  static const char *const longs[] = { "file",
                                       "directory",
                                       "files-from",
                                       "exclude-from",
                                       "listed-incremental",
                                       "label",
                                       "use-compress-program",
                                       "to-command",
                                       "info-script",
                                       "new-volume-script",
                                       NULL };
  OptSpec spec = { "fCbTXgKLNVHIF", NULL, longs, FALSE };
  gboolean create, extract;
  const Opt *file, *dir;
  g_autofree char *old_archive = NULL;
  gboolean old_dynamic = FALSE;
  GPtrArray *saved = NULL;
  Args a;
  guint i = r->start;
  char mode[64] = "";

  /* old style: tar czf archive.tgz dir */
  if (r->argv[i] != NULL && !r->dyn[i] && r->argv[i][0] != '-'
      && strspn (r->argv[i], "AcdrtuxzjJvfpPkmOSWhlLBGgioV") == strlen (r->argv[i]))
    {
      g_strlcpy (mode, r->argv[i], sizeof mode);
      if (strchr (r->argv[i], 'f') != NULL && r->argv[i + 1] != NULL)
        {
          old_archive = g_strdup (r->argv[i + 1]);
          old_dynamic = r->dyn[i + 1];
          i++;
        }
      i++;
    }
  ow_safety_args_parse (&a, r->argv, r->dyn, i, &spec);
  create = strpbrk (mode, "cruA") != NULL || ow_safety_args_has (&a, 'c', "create")
           || ow_safety_args_has (&a, 'r', "append") || ow_safety_args_has (&a, 'u', "update")
           || ow_safety_args_has (&a, 'A', "concatenate");
  extract = strchr (mode, 'x') != NULL || ow_safety_args_has (&a, 'x', "extract")
            || ow_safety_args_has (&a, 0, "get");
  file = ow_safety_args_value (&a, 'f', "file");
  dir = ow_safety_args_value (&a, 'C', "directory");
  for (guint k = 0; k < a.opts->len; k++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, k);

      if ((ow_safety_opt_is (o, 'I', "use-compress-program")
           || ow_safety_opt_is (o, 0, "to-command") || ow_safety_opt_is (o, 'F', "info-script")
           || ow_safety_opt_is (o, 0, "new-volume-script")
           || ow_safety_opt_is (o, 0, "checkpoint-action"))
          && o->value != NULL)
        {
          const char *code = g_str_has_prefix (o->value, "exec=") ? o->value + 5 : o->value;

          ow_safety_check_code (c, code, "a command tar runs");
        }
    }
  if (dir != NULL)
    {
      Target t;

      ow_safety_target_init (c, &t, dir->value, dir->dynamic);
      saved = c->cwds;
      c->cwds = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < t.real.len; k++)
        g_ptr_array_add (c->cwds, g_strdup (t.real.item[k]));
      if (t.unknown)
        c->cwd_unknown = TRUE;
      ow_safety_target_clear (&t);
    }
  if (create)
    {
      const char *archive = file != NULL ? file->value : old_archive;

      if (archive != NULL && strcmp (archive, "-") != 0)
        {
          GPtrArray *inner = c->cwds;

          /* the archive itself is named from where tar starts */
          if (saved != NULL)
            c->cwds = saved;
          ow_safety_judge_write (c, archive, file != NULL ? file->dynamic : old_dynamic, "writes");
          c->cwds = inner;
        }
      for (guint k = 0; k < ow_safety_n_ops (&a); k++)
        ow_safety_judge_read (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), TRUE);
    }
  if (extract)
    {
      if (ow_safety_args_has (&a, 'P', "absolute-names") || strchr (mode, 'P') != NULL)
        ow_safety_finding (c, OW_SAFETY_WRITE_OUTSIDE,
                           "tar extracts with absolute names, which can write anywhere");
      ow_safety_judge_write (c, ".", FALSE, "extracts an archive into");
    }
  if (saved != NULL)
    {
      g_ptr_array_unref (c->cwds);
      c->cwds = saved;
    }
  ow_safety_args_clear (&a);
}

/* Makes @dir the only folder relative paths resolve against, for one
 * command (env -C, git -C, sudo -D); returns what to restore. */
GPtrArray *
ow_safety_push_cwd (Check *c, const char *dir, gboolean dynamic, gboolean *saved_unknown)
{
  GPtrArray *saved = c->cwds;
  Target t;

  ow_safety_target_init (c, &t, dir, dynamic);
  *saved_unknown = c->cwd_unknown;
  c->cwds = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < t.names.len; i++)
    ow_safety_add_unique (c->cwds, g_strdup (t.names.item[i]));
  if (t.unknown || c->cwds->len == 0)
    c->cwd_unknown = TRUE;
  ow_safety_target_clear (&t);
  return saved;
}

void
ow_safety_pop_cwd (Check *c, GPtrArray *saved, gboolean saved_unknown)
{
  g_ptr_array_unref (c->cwds);
  c->cwds = saved;
  c->cwd_unknown = saved_unknown;
}

/* cd and pushd: later relative paths may resolve there too (the parse is
 * flat, so every folder seen stays a candidate). */
void
ow_safety_check_cd (Check *c, const Run *r)
{
  const char *dir = NULL;
  gboolean dyn = FALSE;
  Target t;

  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      if (!r->dyn[i] && r->argv[i][0] == '-' && r->argv[i][1] != '\0'
          && strcmp (r->argv[i], "--") != 0)
        continue;
      if (strcmp (r->argv[i], "--") == 0)
        continue;
      dir = r->argv[i];
      dyn = r->dyn[i];
      break;
    }
  if (dir == NULL)
    {
      dir = "~";
      dyn = TRUE;
    }
  if (strcmp (dir, "-") == 0
      || (strcmp (r->prog, "pushd") == 0 && (dir[0] == '+' || dir[0] == '-')))
    {
      c->cwd_unknown = TRUE;
      return;
    }
  ow_safety_target_init (c, &t, dir, dyn);
  for (guint i = 0; i < t.names.len; i++)
    ow_safety_add_unique (c->cwds, g_strdup (t.names.item[i]));
  if (t.unknown || c->cwds->len > SAFETY_MAX_CWDS)
    c->cwd_unknown = TRUE;
  ow_safety_target_clear (&t);
}

/* -o FILE of compilers and similar tools. */
static void
check_output_flag (Check *c, const Run *r, const char *flag)
{
  gsize n = strlen (flag);

  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (strcmp (w, flag) == 0 && r->argv[i + 1] != NULL)
        ow_safety_judge_write (c, r->argv[i + 1], r->dyn[i + 1], "writes");
      else if (n == 2 && strncmp (w, flag, n) == 0 && w[n] != '\0' && flag[1] == 'o')
        ow_safety_judge_write (c, w + n, r->dyn[i], "writes");
    }
}

/* unlink, shred: each operand is deleted. */
void
ow_safety_check_unlink (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] || r->argv[i][0] != '-')
      ow_safety_judge_delete (c, r->argv[i], r->dyn[i], FALSE, FALSE);
  ow_safety_more_targets (c, r, "deletes", TRUE, FALSE);
}

/* tee, touch, mkdir, truncate, mkfifo, mknod: each operand is written. */
void
ow_safety_check_create (Check *c, const Run *r)
{
  const char *p = r->prog;
  OptSpec spec = { strcmp (p, "touch") == 0      ? "dtr"
                   : strcmp (p, "truncate") == 0 ? "sro"
                                                 : "mZ",
                   NULL, NULL, FALSE };
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint k = 0; k < ow_safety_n_ops (&a); k++)
    if (strcmp (ow_safety_op (&a, k), "-") != 0)
      ow_safety_judge_write (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), "writes");
  ow_safety_more_targets (c, r, "writes", FALSE, FALSE);
  ow_safety_args_clear (&a);
}

/* dd: of= is written, if= is read. */
void
ow_safety_check_dd (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      if (g_str_has_prefix (r->argv[i], "of="))
        ow_safety_judge_write (c, r->argv[i] + 3, r->dyn[i], "writes");
      else if (g_str_has_prefix (r->argv[i], "if="))
        ow_safety_judge_read (c, r->argv[i] + 3, r->dyn[i], FALSE);
    }
}

/* zip: the archive is written, the files are read. */
void
ow_safety_check_zip (Check *c, const Run *r)
{
  OptSpec spec = { "bntxiIOPZs", NULL, NULL, FALSE };
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (ow_safety_n_ops (&a) > 0)
    ow_safety_judge_write (c, ow_safety_op (&a, 0), ow_safety_op_dyn (&a, 0), "writes");
  for (guint k = 1; k < ow_safety_n_ops (&a); k++)
    ow_safety_judge_read (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k),
                          ow_safety_args_has (&a, 'r', "recurse-paths")
                              || ow_safety_args_has (&a, 'R', NULL));
  ow_safety_args_clear (&a);
}

/* unzip -d: the folder is written. */
void
ow_safety_check_unzip (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (strcmp (r->argv[i], "-d") == 0 && r->argv[i + 1] != NULL)
      ow_safety_judge_write (c, r->argv[i + 1], r->dyn[i + 1], "extracts an archive into");
}

/* Compilers and linkers: -o FILE is written. */
void
ow_safety_check_compiler (Check *c, const Run *r)
{
  check_output_flag (c, r, "-o");
}

/* sort -o / --output=: the file is written. */
void
ow_safety_check_sort (Check *c, const Run *r)
{
  check_output_flag (c, r, "-o");
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_str_has_prefix (r->argv[i], "--output="))
      ow_safety_judge_write (c, r->argv[i] + strlen ("--output="), r->dyn[i], "writes");
}

/* uniq: the second operand is written. */
void
ow_safety_check_uniq (Check *c, const Run *r)
{
  OptSpec spec = { "fsw", NULL, NULL, FALSE };
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (ow_safety_n_ops (&a) > 1)
    ow_safety_judge_write (c, ow_safety_op (&a, 1), ow_safety_op_dyn (&a, 1), "writes");
  ow_safety_args_clear (&a);
}

/* openssl -out: the file is written. */
void
ow_safety_check_openssl (Check *c, const Run *r)
{
  check_output_flag (c, r, "-out");
}

/* Editors: each file operand is edited. */
void
ow_safety_check_editor (Check *c, const Run *r)
{
  OptSpec spec = { "cSuUTiwWsq", NULL, NULL, FALSE };
  Args a;

  ow_safety_args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint k = 0; k < ow_safety_n_ops (&a); k++)
    if (ow_safety_op (&a, k)[0] != '+')
      ow_safety_judge_write (c, ow_safety_op (&a, k), ow_safety_op_dyn (&a, k), "edits");
  ow_safety_args_clear (&a);
}
