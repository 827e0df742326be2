/* ow-tb-grep.c: grep, by ripgrep when it is installed, else built in.
 *
 * ripgrep is fast, respects .gitignore and understands the Perl-style
 * regexes models write, so it is used whenever `rg` is on PATH, with the
 * original's argv. Where it is missing (a fresh machine, a minimal
 * sandbox image) a built-in walk does the same job with POSIX regcomp:
 * the common Perl escapes (\d \w \s, (?:…), (?i), lazy quantifiers) are
 * translated to extended POSIX syntax, and what cannot be translated
 * (look-arounds, back-references) is refused with a clear message rather
 * than silently matching something else. The walk skips the usual
 * dependency and cache folders, binary files and symlinks (a link could
 * lead out of the session's folders; ripgrep does not follow them either).
 *
 * Context lines, when asked for, are read from the files afterwards, the
 * same way for both engines, so ripgrep's output never has to be parsed
 * in its ambiguous context format.
 */
#include "ow-tb-private.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GREP_TIMEOUT_MS     30000
#define GREP_TEXT_CHARS     300
#define GREP_MAX_FILE_BYTES (32u * 1024 * 1024)
#define GREP_RG_MAX_OUTPUT  (8u * 1024 * 1024)
#define GREP_MAX_DEPTH      64

/* One matching line. */
typedef struct {
  char *abs;   /* the file, canonical (owned) */
  long  line;  /* 1-based */
  char *text;  /* the line, without its newline (owned) */
} Match;

/* Everything found so far. */
typedef struct {
  Match  *items;     /* in the order found (owned) */
  size_t  n;         /* how many */
  size_t  cap;       /* allocated slots */
  size_t  limit;     /* stop collecting after limit + 1 (to know it was truncated) */
} Matches;

static void
matches_add (Matches *m, const char *abs, long line, const char *text, size_t len)
{
  Match *it;

  if (m->n == m->cap)
    {
      m->cap = m->cap ? m->cap * 2 : 32;
      m->items = ow_tb_xrealloc (m->items, m->cap * sizeof *m->items);
    }
  it = &m->items[m->n++];
  if (len > 0 && text[len - 1] == '\r')
    len--;
  it->abs = ow_tb_xstrdup (abs);
  it->line = line;
  it->text = ow_tb_xstrndup (text, len);
}

static void
matches_clear (Matches *m)
{
  for (size_t i = 0; i < m->n; i++)
    {
      free (m->items[i].abs);
      free (m->items[i].text);
    }
  free (m->items);
  memset (m, 0, sizeof *m);
}

/* ---- Perl-style regex → POSIX extended ---- */

static void
translate_bracket (const char *pat, size_t *i, OwTbBuf *out, char **error)
{
  OwTbBuf body;
  int negate = 0, has_rbracket = 0, has_dash = 0, has_caret = 0, has_backslash = 0;
  size_t at = *i + 1;

  ow_tb_buf_init (&body);
  if (pat[at] == '^')
    {
      negate = 1;
      at++;
    }
  if (pat[at] == ']')
    {
      has_rbracket = 1;
      at++;
    }
  while (pat[at] != '\0' && pat[at] != ']')
    {
      char c = pat[at];

      if (c == '[' && pat[at + 1] == ':')
        {
          const char *end = strstr (pat + at + 2, ":]");

          if (end != NULL)
            {
              ow_tb_buf_append (&body, pat + at, (size_t) (end + 2 - (pat + at)));
              at = (size_t) (end + 2 - pat);
              continue;
            }
        }
      if (c == '\\' && pat[at + 1] != '\0')
        {
          char d = pat[at + 1];

          at += 2;
          switch (d)
            {
            case 'd': ow_tb_buf_puts (&body, "0-9"); break;
            case 'w': ow_tb_buf_puts (&body, "[:alnum:]_"); break;
            case 's': ow_tb_buf_puts (&body, "[:space:]"); break;
            case 'n': ow_tb_buf_puts (&body, "\n"); break;
            case 't': ow_tb_buf_puts (&body, "\t"); break;
            case 'r': ow_tb_buf_puts (&body, "\r"); break;
            case ']': has_rbracket = 1; break;
            case '-': has_dash = 1; break;
            case '^': has_caret = 1; break;
            case '\\': has_backslash = 1; break;
            case 'D':
            case 'W':
            case 'S':
              if (*error == NULL)
                *error = ow_tb_strdup_printf ("\\%c inside [...] is not supported by the built-in "
                                              "grep; rewrite the class", d);
              break;
            default:
              ow_tb_buf_append (&body, &d, 1);
              break;
            }
          continue;
        }
      ow_tb_buf_append (&body, &c, 1);
      at++;
    }
  if (pat[at] != ']')
    {
      if (*error == NULL)
        *error = ow_tb_xstrdup ("unterminated [ in the pattern");
      ow_tb_buf_free (&body);
      *i = at;
      return;
    }
  /* POSIX brackets have no escapes: ']' must come first, '-' last and
   * '^' anywhere but first. */
  ow_tb_buf_puts (out, "[");
  if (negate)
    ow_tb_buf_puts (out, "^");
  if (has_rbracket)
    ow_tb_buf_puts (out, "]");
  ow_tb_buf_append (out, body.data, body.len);
  if (has_backslash)
    ow_tb_buf_puts (out, "\\");
  if (has_caret)
    {
      if (body.len == 0 && !has_rbracket && !has_backslash && !negate)
        ow_tb_buf_puts (out, "\\"); /* "[\^]" alone: "[\^]" is backslash-or-caret, close enough */
      ow_tb_buf_puts (out, "^");
    }
  if (has_dash)
    ow_tb_buf_puts (out, "-");
  ow_tb_buf_puts (out, "]");
  ow_tb_buf_free (&body);
  *i = at + 1;
}

/* 1 when pat + i starts a valid interval "{n}", "{n,}" or "{n,m}". */
static int
is_interval (const char *pat, size_t i)
{
  size_t k = i + 1;
  int digits = 0;

  while (pat[k] >= '0' && pat[k] <= '9')
    {
      k++;
      digits++;
    }
  if (digits == 0)
    return 0;
  if (pat[k] == ',')
    {
      k++;
      while (pat[k] >= '0' && pat[k] <= '9')
        k++;
    }
  return pat[k] == '}';
}

static char *
translate_regex (const char *pat, int *icase, char **error)
{
  OwTbBuf out;
  size_t i = 0;

  ow_tb_buf_init (&out);
  *icase = 0;
  *error = NULL;
  while (pat[i] != '\0' && *error == NULL)
    {
      char c = pat[i];

      if (c == '\\' && pat[i + 1] != '\0')
        {
          char d = pat[i + 1];

          i += 2;
          switch (d)
            {
            case 'd': ow_tb_buf_puts (&out, "[0-9]"); break;
            case 'D': ow_tb_buf_puts (&out, "[^0-9]"); break;
            case 'w': ow_tb_buf_puts (&out, "[[:alnum:]_]"); break;
            case 'W': ow_tb_buf_puts (&out, "[^[:alnum:]_]"); break;
            case 's': ow_tb_buf_puts (&out, "[[:space:]]"); break;
            case 'S': ow_tb_buf_puts (&out, "[^[:space:]]"); break;
            case 'b': ow_tb_buf_puts (&out, "\\b"); break;
            case 'B': ow_tb_buf_puts (&out, "\\B"); break;
            case 'A': ow_tb_buf_puts (&out, "^"); break;
            case 'z':
            case 'Z': ow_tb_buf_puts (&out, "$"); break;
            case 't': ow_tb_buf_puts (&out, "\t"); break;
            case 'n': ow_tb_buf_puts (&out, "\n"); break;
            case 'r': ow_tb_buf_puts (&out, "\r"); break;
            case 'f': ow_tb_buf_puts (&out, "\f"); break;
            case 'v': ow_tb_buf_puts (&out, "\v"); break;
            case '<':
            case '>': ow_tb_buf_append (&out, "\\", 1); ow_tb_buf_append (&out, &d, 1); break;
            default:
              if (d >= '1' && d <= '9')
                *error = ow_tb_xstrdup ("back-references are not supported by the built-in grep");
              else if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || (d >= '0' && d <= '9')
                       || (unsigned char) d >= 0x80)
                ow_tb_buf_append (&out, &d, 1);
              else
                {
                  /* Escaped punctuation stays escaped: ERE knows "\." etc. */
                  ow_tb_buf_append (&out, "\\", 1);
                  ow_tb_buf_append (&out, &d, 1);
                }
              break;
            }
          continue;
        }
      if (c == '[')
        {
          translate_bracket (pat, &i, &out, error);
          continue;
        }
      if (c == '(' && pat[i + 1] == '?')
        {
          if (pat[i + 2] == ':')
            {
              ow_tb_buf_puts (&out, "(");
              i += 3;
              continue;
            }
          if (pat[i + 2] == 'i' && pat[i + 3] == ')')
            {
              *icase = 1;
              i += 4;
              continue;
            }
          *error = ow_tb_xstrdup ("look-arounds and other (?…) groups are not supported by the "
                                  "built-in grep (ripgrep is not installed)");
          break;
        }
      if (c == '{')
        {
          if (is_interval (pat, i))
            {
              const char *close = strchr (pat + i, '}');

              ow_tb_buf_append (&out, pat + i, (size_t) (close + 1 - (pat + i)));
              i = (size_t) (close + 1 - pat);
              if (pat[i] == '?' || pat[i] == '+')
                i++;
            }
          else
            {
              /* Perl reads a '{' that starts no interval as a literal. */
              ow_tb_buf_puts (&out, "\\{");
              i++;
            }
          continue;
        }
      if (c == '}')
        {
          ow_tb_buf_puts (&out, "\\}");
          i++;
          continue;
        }
      ow_tb_buf_append (&out, &c, 1);
      i++;
      /* Lazy (*?) and possessive (*+) quantifiers match the same lines. */
      if ((c == '*' || c == '+' || c == '?') && (pat[i] == '?' || pat[i] == '+'))
        i++;
    }
  if (*error != NULL)
    {
      ow_tb_buf_free (&out);
      return NULL;
    }
  return ow_tb_buf_steal (&out);
}

/* ---- the built-in walk ---- */

/* State of a built-in search. */
typedef struct {
  regex_t     re;         /* the compiled pattern */
  const char *glob;       /* file filter, or NULL */
  int         glob_neg;   /* the glob started with '!' */
  int         cancel_fd;  /* stop when readable */
  int         cancelled;  /* …and it did */
  size_t      files_seen; /* for checking cancel_fd now and then */
  Matches    *matches;   /* where results go (borrowed) */
  const OwTbEnv *env;    /* the roots files are opened below (borrowed) */
} Walk;

static int
glob_accepts (const Walk *w, const char *rel, const char *name)
{
  int hit;

  if (w->glob == NULL)
    return 1;
  hit = fnmatch (w->glob, strchr (w->glob, '/') != NULL ? rel : name, 0) == 0;
  return w->glob_neg ? !hit : hit;
}

static void
search_file (Walk *w, const char *abs)
{
  OwTbBuf text;
  char *error = NULL;
  size_t at = 0;
  long line = 0;

  ow_tb_buf_init (&text);
  if (ow_tb_read_whole (w->env, abs, GREP_MAX_FILE_BYTES, &text, &error) != 0)
    {
      free (error);
      ow_tb_buf_free (&text);
      return;
    }
  if (memchr (text.data, '\0', text.len < 8192 ? text.len : 8192) != NULL)
    {
      ow_tb_buf_free (&text);
      return;
    }
  while (at < text.len && w->matches->n <= w->matches->limit)
    {
      char *nl = memchr (text.data + at, '\n', text.len - at);
      size_t end = nl != NULL ? (size_t) (nl - text.data) : text.len;

      line++;
      text.data[end] = '\0'; /* regexec wants a C string; the buffer is ours */
      if (regexec (&w->re, text.data + at, 0, NULL, 0) == 0)
        matches_add (w->matches, abs, line, text.data + at, end - at);
      at = end + 1;
    }
  ow_tb_buf_free (&text);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
walk_dir (Walk *w, const char *abs, const char *rel, int depth)
{
  DIR *dir;
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, cap = 0;

  if (depth > GREP_MAX_DEPTH)
    return;
  dir = opendir (abs);
  if (dir == NULL)
    return;
  while ((e = readdir (dir)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 32;
          names = ow_tb_xrealloc (names, cap * sizeof *names);
        }
      names[n++] = ow_tb_xstrdup (e->d_name);
    }
  closedir (dir);
  /* Sorted, so the built-in engine gives the same answer every time. */
  if (n > 1)
    qsort (names, n, sizeof *names, compare_names);
  for (size_t i = 0; i < n; i++)
    {
      char *child = ow_tb_strdup_printf ("%s/%s", strcmp (abs, "/") == 0 ? "" : abs, names[i]);
      char *child_rel = rel[0] ? ow_tb_strdup_printf ("%s/%s", rel, names[i])
                               : ow_tb_xstrdup (names[i]);
      struct stat st;

      if (w->matches->n <= w->matches->limit && !w->cancelled && lstat (child, &st) == 0)
        {
          if (S_ISDIR (st.st_mode))
            {
              if (!ow_tb_name_in_list (names[i], ow_tb_grep_ignored_dirs))
                walk_dir (w, child, child_rel, depth + 1);
            }
          else if (S_ISREG (st.st_mode) && glob_accepts (w, child_rel, names[i]))
            {
              if ((++w->files_seen & 63) == 0 && ow_tb_cancelled (w->cancel_fd))
                w->cancelled = 1;
              else
                search_file (w, child);
            }
        }
      free (child);
      free (child_rel);
      free (names[i]);
    }
  free (names);
}

/* ---- ripgrep ---- */

/* Runs rg; returns OW_TB_OK, or an error status with @out written. */
static OwTbStatus
run_ripgrep (const OwTbEnv *env, const char *pattern, const char *glob, long long max,
             const char *target, int target_is_file, Matches *m, OwTbBuf *out)
{
  const char *argv[64];
  size_t argc = 0;
  char max_text[32];
  char **globs = NULL;
  size_t n_globs = 0;
  /* A user's RIPGREP_CONFIG_PATH could change the output parsed below. */
  static const char *const unset[] = { "RIPGREP_CONFIG_PATH", NULL };
  char **envp = ow_tb_env_build (env->shell != NULL ? ow_tb_shell_envp (env->shell) : NULL,
                                 NULL, unset);
  OwTbProcSpec spec;
  OwTbProcResult res;
  OwTbStatus status = OW_TB_OK;
  size_t at = 0, prefix_len = strlen (target);

  snprintf (max_text, sizeof max_text, "%lld", max);
  argv[argc++] = "rg";
  argv[argc++] = "--line-number";
  argv[argc++] = "--no-heading";
  argv[argc++] = "--color=never";
  /* rg searches on several threads and prints files as they finish; sorted,
   * the answer (and which matches a max_results cut keeps) is the same on
   * every run and the same as the built-in engine's. */
  argv[argc++] = "--sort=path";
  argv[argc++] = "--max-count";
  argv[argc++] = max_text;
  argv[argc++] = "-e";
  argv[argc++] = pattern;
  if (glob != NULL)
    {
      argv[argc++] = "--glob";
      argv[argc++] = glob;
    }
  for (size_t i = 0; ow_tb_grep_ignored_dirs[i] != NULL; i++)
    n_globs++;
  globs = ow_tb_xcalloc (n_globs, sizeof *globs);
  for (size_t i = 0; i < n_globs; i++)
    {
      globs[i] = ow_tb_strdup_printf ("!**/%s/**", ow_tb_grep_ignored_dirs[i]);
      argv[argc++] = "--glob";
      argv[argc++] = globs[i];
    }
  argv[argc++] = target;
  argv[argc] = NULL;

  memset (&spec, 0, sizeof spec);
  spec.argv = argv;
  spec.cwd = env->roots[0].path;
  spec.envp = (const char *const *) envp;
  spec.timeout_ms = GREP_TIMEOUT_MS;
  spec.cancel_fd = env->cancel_fd;
  spec.max_stdout = GREP_RG_MAX_OUTPUT;
  spec.max_stderr = 4096;
  spec.stop_when_full = 1;
  ow_tb_proc_result_init (&res);
  if (ow_tb_proc_run (&spec, &res) != 0)
    {
      char scratch[128];

      ow_tb_set_error (out, "cannot run rg: %s",
                       ow_tb_strerror (res.spawn_errno, scratch, sizeof scratch));
      status = OW_TB_ERROR;
      goto done;
    }
  if (res.cancelled)
    {
      ow_tb_set_error (out, "interrupted by user");
      status = OW_TB_INTERRUPTED;
      goto done;
    }

  /* Each line is "FILE:LINE:TEXT", or "LINE:TEXT" when the target is a
   * single file. FILE starts with the target we passed, which keeps a
   * ':' in a folder name from confusing the split. */
  while (at < res.out.len && m->n <= m->limit)
    {
      char *nl = memchr (res.out.data + at, '\n', res.out.len - at);
      size_t end = nl != NULL ? (size_t) (nl - res.out.data) : res.out.len;
      char *line = res.out.data + at;
      char *file_end = NULL, *num, *colon;

      if (nl == NULL && res.out_truncated)
        break; /* a line cut by the capture limit */
      res.out.data[end] = '\0';
      if (target_is_file)
        num = line;
      else
        {
          char *scan = line + (strncmp (line, target, prefix_len) == 0 ? prefix_len : 0);

          for (; (scan = strchr (scan, ':')) != NULL; scan++)
            if (scan[1] >= '0' && scan[1] <= '9')
              {
                char *p = scan + 1;

                while (*p >= '0' && *p <= '9')
                  p++;
                if (*p == ':')
                  {
                    file_end = scan;
                    break;
                  }
              }
          num = file_end != NULL ? file_end + 1 : NULL;
        }
      if (num != NULL && (colon = strchr (num, ':')) != NULL)
        {
          long lineno = strtol (num, NULL, 10);
          char *file = target_is_file ? ow_tb_xstrdup (target)
                                      : ow_tb_xstrndup (line, (size_t) (file_end - line));

          matches_add (m, file, lineno, colon + 1, strlen (colon + 1));
          free (file);
        }
      at = end + 1;
    }
  if (res.exit_code == 2 && m->n == 0)
    {
      size_t len = res.err.len;

      while (len > 0 && (res.err.data[len - 1] == '\n' || res.err.data[len - 1] == ' '))
        len--;
      ow_tb_set_error (out, "grep failed: %.*s", (int) len, res.err.data);
      status = OW_TB_ERROR;
    }
  else if (res.timed_out)
    m->limit = m->n > 0 ? m->n - 1 : 0; /* partial results, reported as truncated */
  else if (res.out_truncated && m->n <= m->limit)
    m->limit = m->n > 0 ? m->n - 1 : 0;

done:
  ow_tb_proc_result_clear (&res);
  for (size_t i = 0; i < n_globs; i++)
    free (globs[i]);
  free (globs);
  ow_tb_env_free (envp);
  return status;
}

/* ---- context lines ---- */

static void
write_lines (OwTbObj *obj, const char *key, const char *text, const size_t *starts,
             long n_lines, long from, long to)
{
  OwTbObj arr;

  ow_tb_obj_key (obj, key);
  ow_tb_arr_begin (&arr, obj->buf);
  for (long l = from; l <= to; l++)
    {
      if (l < 1 || l > n_lines)
        continue;
      {
        const char *s = text + starts[l - 1];
        size_t len = starts[l] - starts[l - 1];

        if (len > 0 && s[len - 1] == '\n')
          len--;
        if (len > 0 && s[len - 1] == '\r')
          len--;
        ow_tb_obj_strn (&arr, NULL, s, ow_tb_utf8_head (s, len, GREP_TEXT_CHARS));
      }
    }
  ow_tb_obj_end (&arr);
}

OwTbStatus
ow_tb_tool_grep (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *pattern, *raw, *glob;
  long long max, context;
  OwTbPath path;
  struct stat st;
  Matches m;
  char *rg;
  const char *engine;
  OwTbStatus status = OW_TB_OK;
  OwTbObj obj, arr;
  size_t shown;
  OwTbBuf file_text;
  size_t *starts = NULL;
  long n_lines = 0;
  const char *loaded = NULL;

  if (ow_tb_arg_string (args, "pattern", 1, &pattern, NULL, out) != 0
      || ow_tb_arg_string (args, "path", 0, &raw, NULL, out) != 0
      || ow_tb_arg_string (args, "glob", 0, &glob, NULL, out) != 0
      || ow_tb_arg_int (args, "max_results", 100, &max, out) != 0
      || ow_tb_arg_int (args, "context_lines", 0, &context, out) != 0)
    return OW_TB_BAD_ARGS;
  if (pattern[0] == '\0')
    {
      ow_tb_set_error (out, "parameter \"pattern\" must not be empty");
      return OW_TB_BAD_ARGS;
    }
  if (glob != NULL && glob[0] == '\0')
    glob = NULL;
  max = max < 1 ? 1 : max > 1000 ? 1000 : max;
  context = context < 0 ? 0 : context > 10 ? 10 : context;
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_READ, &path, out) != 0)
    return OW_TB_ERROR;
  if (stat (path.abs, &st) != 0)
    {
      ow_tb_set_error (out, "no such file or directory: %s", raw != NULL ? raw : ".");
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }

  memset (&m, 0, sizeof m);
  m.limit = (size_t) max;
  rg = ow_tb_find_program ("rg", env->shell != NULL ? ow_tb_shell_envp (env->shell) : NULL);
  if (rg != NULL)
    {
      engine = "ripgrep";
      free (rg);
      status = run_ripgrep (env, pattern, glob, max, path.abs, S_ISREG (st.st_mode), &m, out);
    }
  else
    {
      Walk w;
      char *translated, *error = NULL;
      int icase, rc;

      engine = "builtin";
      translated = translate_regex (pattern, &icase, &error);
      if (translated == NULL)
        {
          ow_tb_set_error (out, "invalid pattern: %s", error);
          free (error);
          ow_tb_path_clear (&path);
          return OW_TB_ERROR;
        }
      memset (&w, 0, sizeof w);
      w.env = env;
      rc = regcomp (&w.re, translated, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
      free (translated);
      if (rc != 0)
        {
          char msg[256];

          regerror (rc, &w.re, msg, sizeof msg);
          ow_tb_set_error (out, "invalid pattern: %s", msg);
          ow_tb_path_clear (&path);
          return OW_TB_ERROR;
        }
      w.glob = glob;
      if (glob != NULL && glob[0] == '!')
        {
          w.glob = glob + 1;
          w.glob_neg = 1;
        }
      w.cancel_fd = env->cancel_fd;
      w.matches = &m;
      if (S_ISDIR (st.st_mode))
        walk_dir (&w, path.abs, "", 0);
      else if (S_ISREG (st.st_mode))
        search_file (&w, path.abs);
      regfree (&w.re);
      if (w.cancelled)
        {
          ow_tb_set_error (out, "interrupted by user");
          status = OW_TB_INTERRUPTED;
        }
    }
  if (status != OW_TB_OK)
    {
      matches_clear (&m);
      ow_tb_path_clear (&path);
      return status;
    }

  shown = m.n < (size_t) max ? m.n : (size_t) max;
  ow_tb_buf_init (&file_text);
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_str (&obj, "engine", engine);
  ow_tb_obj_int (&obj, "count", (long long) shown);
  ow_tb_obj_key (&obj, "matches");
  ow_tb_arr_begin (&arr, out);
  for (size_t i = 0; i < shown; i++)
    {
      const Match *it = &m.items[i];
      char *display = ow_tb_path_display (env, it->abs);
      OwTbObj item;

      ow_tb_obj_key (&arr, NULL);
      ow_tb_obj_begin (&item, out);
      ow_tb_obj_str (&item, "file", display);
      ow_tb_obj_int (&item, "line", it->line);
      ow_tb_obj_strn (&item, "text", it->text,
                      ow_tb_utf8_head (it->text, strlen (it->text), GREP_TEXT_CHARS));
      if (context > 0)
        {
          /* Matches of one file are adjacent, so each file is read once. */
          if (loaded == NULL || strcmp (loaded, it->abs) != 0)
            {
              char *error = NULL;

              free (starts);
              starts = NULL;
              n_lines = 0;
              loaded = it->abs;
              if (ow_tb_read_whole (env, it->abs, GREP_MAX_FILE_BYTES, &file_text, &error) == 0)
                {
                  size_t cap = 64;

                  starts = ow_tb_xmalloc (cap * sizeof *starts);
                  starts[0] = 0;
                  for (size_t k = 0; k < file_text.len; k++)
                    if (file_text.data[k] == '\n')
                      {
                        if ((size_t) n_lines + 2 >= cap)
                          {
                            cap *= 2;
                            starts = ow_tb_xrealloc (starts, cap * sizeof *starts);
                          }
                        starts[++n_lines] = k + 1;
                      }
                  if (file_text.len > 0 && file_text.data[file_text.len - 1] != '\n')
                    starts[++n_lines] = file_text.len;
                }
              else
                {
                  free (error);
                  ow_tb_buf_reset (&file_text);
                }
            }
          write_lines (&item, "before", file_text.data, starts, starts ? n_lines : 0,
                       it->line - context, it->line - 1);
          write_lines (&item, "after", file_text.data, starts, starts ? n_lines : 0,
                       it->line + 1, it->line + context);
        }
      ow_tb_obj_end (&item);
      free (display);
    }
  ow_tb_obj_end (&arr);
  ow_tb_obj_bool (&obj, "truncated", m.n > shown);
  ow_tb_obj_end (&obj);
  free (starts);
  ow_tb_buf_free (&file_text);
  matches_clear (&m);
  ow_tb_path_clear (&path);
  return OW_TB_OK;
}
