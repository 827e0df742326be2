/* ow-tb-patch.c: apply_patch, in the patch envelope models are trained on.
 *
 *   *** Begin Patch
 *   *** Add File: path          then lines that start with '+'
 *   *** Delete File: path
 *   *** Update File: path       optionally *** Move to: new-path
 *   @@ optional context line     then ' ' context, '-' removed, '+' added
 *   *** End of File              the hunk must match at the end
 *   *** End Patch
 *
 * Models copy context imperfectly, so a hunk is looked for exactly first,
 * then ignoring trailing whitespace, then ignoring whitespace at both
 * ends of each line — never by guessing which lines were meant.
 *
 * A patch is all or nothing. It is parsed, every path is checked against
 * the writable roots, every hunk is located against an in-memory copy of
 * the files (a file may appear in several sections), and only then are the
 * new contents staged next to their targets and renamed into place. A
 * hunk that does not match therefore leaves every file untouched, and the
 * error names the file, the hunk and the lines that were not found.
 */
#include "ow-tb-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATCH_MAX_FILE_BYTES (64u * 1024 * 1024)

/* A growable list of strings. */
typedef struct {
  char  **items;  /* owned strings */
  size_t  n;      /* how many */
  size_t  cap;    /* allocated slots */
} StrList;

static void
strlist_push (StrList *list, char *owned)
{
  if (list->n == list->cap)
    {
      list->cap = list->cap ? list->cap * 2 : 16;
      list->items = ow_tb_xrealloc (list->items, list->cap * sizeof *list->items);
    }
  list->items[list->n++] = owned;
}

static void
strlist_clear (StrList *list)
{
  for (size_t i = 0; i < list->n; i++)
    free (list->items[i]);
  free (list->items);
  memset (list, 0, sizeof *list);
}

static int
strlist_has (const StrList *list, const char *s)
{
  for (size_t i = 0; i < list->n; i++)
    if (strcmp (list->items[i], s) == 0)
      return 1;
  return 0;
}

/* One @@ section of an Update. */
typedef struct {
  char   *context;   /* the text after "@@ ", or NULL (owned) */
  StrList old_lines; /* context and removed lines, in order */
  StrList new_lines; /* context and added lines, in order */
  size_t *new_ctx;   /* per new line: 1 + its index in old_lines when it is
                      * context, 0 when added; context is written back as
                      * the file has it, so a fuzzy match keeps the file's
                      * own whitespace */
  int     at_eof;    /* "*** End of File" followed it */
  size_t  patch_line;/* where it starts in the patch (1-based), for errors */
} Hunk;

typedef enum { OP_ADD, OP_DELETE, OP_UPDATE } OpKind;

/* One "*** … File:" section. */
typedef struct {
  OpKind  kind;       /* add, delete or update */
  char   *path;       /* as written in the patch (owned) */
  char   *move_to;    /* Update only: the new name, or NULL (owned) */
  OwTbBuf content;    /* Add only: the new file */
  Hunk   *hunks;      /* Update only: its "@@" sections (owned) */
  size_t  n_hunks;    /* how many hunks */
  size_t  patch_line; /* the header's line in the patch */
} Op;

/* What a file will look like after the patch, built up in memory. */
typedef struct {
  char   *abs;       /* canonical path (owned) */
  char   *display;   /* as shown in results (owned) */
  int     on_disk;   /* it exists now */
  int     exists;    /* it exists after the operations so far */
  int     dirty;     /* the patch changed it */
  OwTbBuf content;   /* its content when it exists */
} VFile;

/* The whole job. */
typedef struct {
  Op      *ops;        /* the sections, in patch order (owned) */
  size_t   n_ops;      /* how many sections */
  VFile   *files;      /* every file the patch touches (owned) */
  size_t   n_files;    /* how many files */
  StrList  changed;    /* display names of updated files, in patch order */
  StrList  added;      /* display names of added files */
  StrList  deleted;    /* display names of deleted files */
  StrList  moved_from; /* renamed files' old names… */
  StrList  moved_to;   /* …and their new ones, index for index */
} Patch;

static void
patch_clear (Patch *p)
{
  for (size_t i = 0; i < p->n_ops; i++)
    {
      Op *op = &p->ops[i];

      free (op->path);
      free (op->move_to);
      ow_tb_buf_free (&op->content);
      for (size_t h = 0; h < op->n_hunks; h++)
        {
          free (op->hunks[h].context);
          strlist_clear (&op->hunks[h].old_lines);
          strlist_clear (&op->hunks[h].new_lines);
          free (op->hunks[h].new_ctx);
        }
      free (op->hunks);
    }
  free (p->ops);
  for (size_t i = 0; i < p->n_files; i++)
    {
      free (p->files[i].abs);
      free (p->files[i].display);
      ow_tb_buf_free (&p->files[i].content);
    }
  free (p->files);
  strlist_clear (&p->changed);
  strlist_clear (&p->added);
  strlist_clear (&p->deleted);
  strlist_clear (&p->moved_from);
  strlist_clear (&p->moved_to);
}

static int
starts_with (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

/* Copies @s without trailing spaces and tabs. */
static char *
rstrip_dup (const char *s)
{
  size_t n = strlen (s);

  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    n--;
  return ow_tb_xstrndup (s, n);
}

static int
is_file_header (const char *line)
{
  return starts_with (line, "*** Add File: ") || starts_with (line, "*** Delete File: ")
         || starts_with (line, "*** Update File: ");
}

/* Splits @text into lines (dropping one '\r' before each '\n'). */
static void
split_lines (const char *text, size_t len, StrList *lines)
{
  size_t at = 0;

  while (at <= len)
    {
      const char *nl = memchr (text + at, '\n', len - at);
      size_t end = nl != NULL ? (size_t) (nl - text) : len;
      size_t n = end - at;

      if (n > 0 && text[at + n - 1] == '\r')
        n--;
      strlist_push (lines, ow_tb_xstrndup (text + at, n));
      if (nl == NULL)
        break;
      at = end + 1;
    }
}

static Op *
new_op (Patch *p, OpKind kind, const char *path, size_t line)
{
  Op *op;

  p->ops = ow_tb_xrealloc (p->ops, (p->n_ops + 1) * sizeof *p->ops);
  op = &p->ops[p->n_ops++];
  memset (op, 0, sizeof *op);
  op->kind = kind;
  op->path = rstrip_dup (path);
  op->patch_line = line;
  ow_tb_buf_init (&op->content);
  return op;
}

static Hunk *
new_hunk (Op *op, const char *context, size_t line)
{
  Hunk *h;

  op->hunks = ow_tb_xrealloc (op->hunks, (op->n_hunks + 1) * sizeof *op->hunks);
  h = &op->hunks[op->n_hunks++];
  memset (h, 0, sizeof *h);
  h->context = context != NULL && context[0] != '\0' ? ow_tb_xstrdup (context) : NULL;
  h->patch_line = line;
  return h;
}

static char *
preview (const char *line)
{
  size_t n = strlen (line);
  size_t head = ow_tb_utf8_head (line, n, 80);

  return ow_tb_strdup_printf ("%.*s%s", (int) head, line, head < n ? "…" : "");
}

/* Parses the envelope into operations; NULL or an error sentence. */
static char *
parse_patch (const char *text, size_t len, Patch *p)
{
  StrList lines = { 0 };
  size_t first = 0, last, i;
  char *error = NULL;

  split_lines (text, len, &lines);
  /* A trailing newline (or several) after the end marker is fine. */
  last = lines.n;
  while (last > 0 && lines.items[last - 1][0] == '\0')
    last--;
  {
    char *begin = rstrip_dup (last > 0 ? lines.items[0] : "");
    char *end = rstrip_dup (last > 0 ? lines.items[last - 1] : "");
    int ok_begin = strcmp (begin, "*** Begin Patch") == 0;
    int ok_end = last >= 2 && strcmp (end, "*** End Patch") == 0;

    free (begin);
    free (end);
    if (!ok_begin)
      {
        error = ow_tb_xstrdup ("the patch must start with the line '*** Begin Patch'");
        goto out;
      }
    if (!ok_end)
      {
        error = ow_tb_xstrdup ("the patch must end with the line '*** End Patch'");
        goto out;
      }
  }
  last--; /* the End Patch line */
  i = first + 1;
  while (i < last)
    {
      const char *line = lines.items[i];

      if (line[0] == '\0')
        {
          i++;
          continue;
        }
      if (starts_with (line, "*** Add File: "))
        {
          Op *op = new_op (p, OP_ADD, line + strlen ("*** Add File: "), i + 1);

          i++;
          while (i < last)
            {
              const char *al = lines.items[i];

              if (al[0] == '\0')
                {
                  /* Models sometimes drop the '+' of a blank line; blank
                   * lines count as content when more '+' lines follow. */
                  size_t k = i;

                  while (k < last && lines.items[k][0] == '\0')
                    k++;
                  if (k >= last || lines.items[k][0] != '+')
                    break;
                  ow_tb_buf_append (&op->content, "\n", 1);
                }
              else if (al[0] == '+')
                {
                  ow_tb_buf_puts (&op->content, al + 1);
                  ow_tb_buf_append (&op->content, "\n", 1);
                }
              else
                break;
              i++;
            }
          continue;
        }
      if (starts_with (line, "*** Delete File: "))
        {
          new_op (p, OP_DELETE, line + strlen ("*** Delete File: "), i + 1);
          i++;
          continue;
        }
      if (starts_with (line, "*** Update File: "))
        {
          Op *op = new_op (p, OP_UPDATE, line + strlen ("*** Update File: "), i + 1);
          Hunk *hunk = NULL;

          i++;
          if (i < last && starts_with (lines.items[i], "*** Move to: "))
            {
              op->move_to = rstrip_dup (lines.items[i] + strlen ("*** Move to: "));
              i++;
            }
          while (i < last && !is_file_header (lines.items[i]))
            {
              const char *hl = lines.items[i];

              if (starts_with (hl, "@@"))
                {
                  const char *ctx = hl + 2;

                  while (*ctx == ' ')
                    ctx++;
                  /* "@@ -1,3 +1,4 @@" from a unified diff carries no context. */
                  if (starts_with (ctx, "-") && strstr (ctx, "@@") != NULL)
                    ctx = "";
                  hunk = new_hunk (op, ctx, i + 1);
                }
              else if (strcmp (hl, "*** End of File") == 0)
                {
                  if (hunk == NULL)
                    {
                      char *pv = preview (hl);
                      error = ow_tb_strdup_printf ("line %zu: '%s' must follow a hunk (in %s)",
                                                   i + 1, pv, op->path);
                      free (pv);
                      goto out;
                    }
                  hunk->at_eof = 1;
                }
              else if (hl[0] == ' ' || hl[0] == '-' || hl[0] == '+' || hl[0] == '\0')
                {
                  /* The first hunk may leave out its "@@" line. */
                  if (hunk == NULL)
                    hunk = new_hunk (op, NULL, i + 1);
                  if (hl[0] != '+')
                    strlist_push (&hunk->old_lines, ow_tb_xstrdup (hl[0] ? hl + 1 : ""));
                  if (hl[0] != '-')
                    {
                      strlist_push (&hunk->new_lines, ow_tb_xstrdup (hl[0] ? hl + 1 : ""));
                      hunk->new_ctx = ow_tb_xrealloc (hunk->new_ctx,
                                                      hunk->new_lines.cap * sizeof *hunk->new_ctx);
                      hunk->new_ctx[hunk->new_lines.n - 1] = hl[0] != '+' ? hunk->old_lines.n : 0;
                    }
                }
              else
                {
                  char *pv = preview (hl);
                  error = ow_tb_strdup_printf ("line %zu: unexpected line in the update of %s: "
                                               "'%s' (hunk lines start with ' ', '-' or '+')",
                                               i + 1, op->path, pv);
                  free (pv);
                  goto out;
                }
              i++;
            }
          if (op->n_hunks == 0 && op->move_to == NULL)
            {
              error = ow_tb_strdup_printf ("line %zu: '*** Update File: %s' has no hunks",
                                           op->patch_line, op->path);
              goto out;
            }
          continue;
        }
      {
        char *pv = preview (line);
        error = ow_tb_strdup_printf ("line %zu: expected '*** Add File:', '*** Delete File:' or "
                                     "'*** Update File:', got '%s'", i + 1, pv);
        free (pv);
        goto out;
      }
    }
  if (p->n_ops == 0)
    error = ow_tb_xstrdup ("the patch contains no file operations");
out:
  strlist_clear (&lines);
  return error;
}

/* ---- matching ---- */

typedef enum { FUZZ_EXACT, FUZZ_RSTRIP, FUZZ_STRIP } Fuzz;

static int
line_equal (const char *a, const char *b, Fuzz fuzz)
{
  size_t alen, blen;

  if (fuzz == FUZZ_EXACT)
    return strcmp (a, b) == 0;
  if (fuzz == FUZZ_STRIP)
    {
      while (*a == ' ' || *a == '\t')
        a++;
      while (*b == ' ' || *b == '\t')
        b++;
    }
  alen = strlen (a);
  blen = strlen (b);
  while (alen > 0 && (a[alen - 1] == ' ' || a[alen - 1] == '\t' || a[alen - 1] == '\r'))
    alen--;
  while (blen > 0 && (b[blen - 1] == ' ' || b[blen - 1] == '\t' || b[blen - 1] == '\r'))
    blen--;
  return alen == blen && memcmp (a, b, alen) == 0;
}

/* Where @pattern (m lines) occurs in @lines at or after @start; -1 if not. */
static long
seek (const StrList *lines, size_t start, char *const *pattern, size_t m, int at_eof)
{
  if (m == 0)
    return (long) start;
  if (m > lines->n)
    return -1;
  for (int fuzz = FUZZ_EXACT; fuzz <= FUZZ_STRIP; fuzz++)
    {
      /* "*** End of File" hunks are tried at the very end first. */
      if (at_eof && lines->n - m >= start)
        {
          size_t i = lines->n - m, k;

          for (k = 0; k < m && line_equal (lines->items[i + k], pattern[k], (Fuzz) fuzz); k++)
            ;
          if (k == m)
            return (long) i;
        }
      for (size_t i = start; i + m <= lines->n; i++)
        {
          size_t k;

          for (k = 0; k < m && line_equal (lines->items[i + k], pattern[k], (Fuzz) fuzz); k++)
            ;
          if (k == m)
            return (long) i;
        }
    }
  return -1;
}

/* One located hunk: replace @len lines at @at with the hunk's new lines. */
typedef struct {
  size_t      at;      /* first file line replaced (0-based) */
  size_t      len;     /* how many file lines are replaced */
  const Hunk *hunk;    /* where the new lines come from (borrowed) */
  size_t      n_lines; /* how many of the new lines to insert */
} Replacement;

static char *
hunk_error (const Op *op, size_t index, const Hunk *h, char *const *lines, size_t n,
            const char *why)
{
  OwTbBuf msg;

  ow_tb_buf_init (&msg);
  ow_tb_buf_printf (&msg, "%s: hunk %zu (patch line %zu) %s", op->path, index + 1,
                    h->patch_line, why);
  if (n > 0)
    {
      ow_tb_buf_puts (&msg, " These lines were not found:");
      for (size_t k = 0; k < n && k < 8; k++)
        {
          char *pv = preview (lines[k]);
          ow_tb_buf_printf (&msg, "\n  %s", pv);
          free (pv);
        }
      if (n > 8)
        ow_tb_buf_printf (&msg, "\n  … (%zu more)", n - 8);
    }
  ow_tb_buf_puts (&msg, "\nRead the file again and resend the patch with its exact current lines.");
  return ow_tb_buf_steal (&msg);
}

/* Applies an Update's hunks to @content (in place); NULL or an error. */
static char *
apply_hunks (const Op *op, OwTbBuf *content)
{
  StrList lines = { 0 };
  Replacement *reps;
  size_t cursor = 0, n_reps = 0;
  int trailing_nl, crlf;
  char *error = NULL;

  trailing_nl = content->len == 0 || content->data[content->len - 1] == '\n';
  crlf = memchr (content->data, '\n', content->len) != NULL
         && ((const char *) memchr (content->data, '\n', content->len)) > content->data
         && ((const char *) memchr (content->data, '\n', content->len))[-1] == '\r';
  if (content->len > 0)
    split_lines (content->data, trailing_nl ? content->len - 1 : content->len, &lines);

  reps = ow_tb_xcalloc (op->n_hunks, sizeof *reps);
  for (size_t h = 0; h < op->n_hunks; h++)
    {
      const Hunk *hunk = &op->hunks[h];
      size_t m = hunk->old_lines.n, n_new = hunk->new_lines.n;
      long at;

      if (hunk->context != NULL)
        {
          char *ctx[1] = { hunk->context };

          at = seek (&lines, cursor, ctx, 1, 0);
          if (at < 0)
            {
              error = hunk_error (op, h, hunk, ctx, 1,
                                  "has a context line ('@@ …') that is not in the file.");
              goto out;
            }
          cursor = (size_t) at + 1;
        }
      if (m == 0)
        {
          /* Pure addition: after the "@@" context line when there is one,
           * else at the end of the file. */
          reps[n_reps++] = (Replacement) { hunk->context != NULL ? cursor : lines.n, 0, hunk,
                                           n_new };
          continue;
        }
      at = seek (&lines, cursor, hunk->old_lines.items, m, hunk->at_eof);
      if (at < 0 && m > 1 && hunk->old_lines.items[m - 1][0] == '\0')
        {
          /* A blank last context line is often an artefact of how the
           * model ended the hunk; try without it. */
          m--;
          if (n_new > 0 && hunk->new_lines.items[n_new - 1][0] == '\0')
            n_new--;
          at = seek (&lines, cursor, hunk->old_lines.items, m, hunk->at_eof);
        }
      if (at < 0)
        {
          error = hunk_error (op, h, hunk, hunk->old_lines.items, hunk->old_lines.n,
                              cursor > 0 ? "did not match the file after the previous hunk."
                                         : "did not match the file.");
          goto out;
        }
      reps[n_reps++] = (Replacement) { (size_t) at, m, hunk, n_new };
      cursor = (size_t) at + m;
    }

  /* Rebuild the file from the located pieces, in file order. */
  {
    OwTbBuf result;
    size_t src = 0, emitted = 0;
    const char *eol = crlf ? "\r\n" : "\n";
    size_t eol_len = crlf ? 2 : 1;

    ow_tb_buf_init (&result);
#define EMIT(s)                                                                \
    do                                                                         \
      {                                                                        \
        if (emitted++ > 0)                                                     \
          ow_tb_buf_append (&result, eol, eol_len);                            \
        ow_tb_buf_puts (&result, (s));                                         \
      }                                                                        \
    while (0)
    for (size_t r = 0; r < n_reps; r++)
      {
        /* Hunks are located in increasing order, so pieces never overlap;
         * a pure insertion may share its position with the next hunk. */
        while (src < reps[r].at && src < lines.n)
          EMIT (lines.items[src++]);
        for (size_t k = 0; k < reps[r].n_lines; k++)
          {
            size_t ctx = reps[r].hunk->new_ctx[k];

            if (ctx > 0 && ctx <= reps[r].len)
              EMIT (lines.items[reps[r].at + ctx - 1]);
            else
              EMIT (reps[r].hunk->new_lines.items[k]);
          }
        src += reps[r].len;
      }
    while (src < lines.n)
      EMIT (lines.items[src++]);
#undef EMIT
    if (emitted > 0 && trailing_nl)
      ow_tb_buf_append (&result, eol, eol_len);
    ow_tb_buf_reset (content);
    ow_tb_buf_append (content, result.data, result.len);
    ow_tb_buf_free (&result);
  }
out:
  free (reps);
  strlist_clear (&lines);
  return error;
}

/* ---- the in-memory file system ---- */

/* Finds (or loads) the file at canonical @abs: its index in p->files, or
 * -1 with *error set. An index, since p->files grows while in use. */
static long
vfile_get (Patch *p, const OwTbEnv *env, const char *abs, const char *raw, char **error)
{
  VFile *f;
  struct stat st;

  for (size_t i = 0; i < p->n_files; i++)
    if (strcmp (p->files[i].abs, abs) == 0)
      return (long) i;
  p->files = ow_tb_xrealloc (p->files, (p->n_files + 1) * sizeof *p->files);
  f = &p->files[p->n_files++];
  memset (f, 0, sizeof *f);
  f->abs = ow_tb_xstrdup (abs);
  f->display = ow_tb_path_display (env, abs);
  ow_tb_buf_init (&f->content);
  if (stat (abs, &st) == 0)
    {
      if (!S_ISREG (st.st_mode))
        {
          *error = ow_tb_strdup_printf ("%s exists and is not a regular file", raw);
          return -1;
        }
      if (ow_tb_read_whole (env, abs, PATCH_MAX_FILE_BYTES, &f->content, error) != 0)
        {
          char *inner = *error;
          *error = ow_tb_strdup_printf ("%s: %s", raw, inner);
          free (inner);
          return -1;
        }
      f->on_disk = f->exists = 1;
    }
  return (long) (p->n_files - 1);
}

static void
note_once (StrList *list, const char *display)
{
  if (!strlist_has (list, display))
    strlist_push (list, ow_tb_xstrdup (display));
}

/* Runs the operations against the in-memory files; NULL or an error. */
static char *
simulate (Patch *p, const OwTbEnv *env, OwTbBuf *out, int *refused)
{
  char *error = NULL;

  for (size_t i = 0; i < p->n_ops; i++)
    {
      Op *op = &p->ops[i];
      OwTbPath path, dest = { 0 };
      VFile *f, *to;
      long fi, ti;

      if (ow_tb_path_resolve (env, op->path, OW_TB_ACCESS_WRITE, &path, out) != 0)
        {
          *refused = 1;
          return NULL;
        }
      if (op->move_to != NULL
          && ow_tb_path_resolve (env, op->move_to, OW_TB_ACCESS_WRITE, &dest, out) != 0)
        {
          ow_tb_path_clear (&path);
          *refused = 1;
          return NULL;
        }
      fi = vfile_get (p, env, path.abs, op->path, &error);
      if (fi < 0)
        goto fail;
      f = &p->files[fi];
      switch (op->kind)
        {
        case OP_ADD:
          if (f->exists)
            {
              error = ow_tb_strdup_printf ("cannot add %s: it already exists (use "
                                           "'*** Update File:' to change it, or delete it "
                                           "first)", op->path);
              goto fail;
            }
          ow_tb_buf_reset (&f->content);
          ow_tb_buf_append (&f->content, op->content.data, op->content.len);
          f->exists = f->dirty = 1;
          note_once (&p->added, f->display);
          break;
        case OP_DELETE:
          if (!f->exists)
            {
              error = ow_tb_strdup_printf ("cannot delete %s: no such file", op->path);
              goto fail;
            }
          f->exists = 0;
          f->dirty = 1;
          note_once (&p->deleted, f->display);
          break;
        case OP_UPDATE:
          if (!f->exists)
            {
              error = ow_tb_strdup_printf ("cannot update %s: no such file", op->path);
              goto fail;
            }
          if (ow_tb_is_binary (f->content.data, f->content.len))
            {
              error = ow_tb_strdup_printf ("cannot update %s: it is a binary file", op->path);
              goto fail;
            }
          error = apply_hunks (op, &f->content);
          if (error != NULL)
            goto fail;
          f->dirty = 1;
          if (op->move_to != NULL && strcmp (dest.abs, path.abs) != 0)
            {
              ti = vfile_get (p, env, dest.abs, op->move_to, &error);
              if (ti < 0)
                goto fail;
              f = &p->files[fi];
              to = &p->files[ti];
              if (to->exists)
                {
                  error = ow_tb_strdup_printf ("cannot move %s to %s: the destination exists",
                                               op->path, op->move_to);
                  goto fail;
                }
              ow_tb_buf_reset (&to->content);
              ow_tb_buf_append (&to->content, f->content.data, f->content.len);
              to->exists = to->dirty = 1;
              f->exists = 0;
              strlist_push (&p->moved_from, ow_tb_xstrdup (f->display));
              strlist_push (&p->moved_to, ow_tb_xstrdup (to->display));
              note_once (&p->changed, to->display);
            }
          else
            note_once (&p->changed, f->display);
          break;
        default:
          break;
        }
      ow_tb_path_clear (&path);
      ow_tb_path_clear (&dest);
      continue;
fail:
      ow_tb_path_clear (&path);
      ow_tb_path_clear (&dest);
      return error;
    }
  return NULL;
}

/* Stages every new content, then renames all, then deletes. *partial is
 * set when an error came after some file was already changed. */
static char *
commit (const OwTbEnv *env, Patch *p, int *partial)
{
  OwTbStaged *staged = ow_tb_xcalloc (p->n_files, sizeof *staged);
  char *error = NULL;

  for (size_t i = 0; i < p->n_files; i++)
    {
      VFile *f = &p->files[i];

      if (f->dirty && f->exists
          && ow_tb_stage_write (env, f->abs, f->content.data, f->content.len, &staged[i], &error) != 0)
        {
          for (size_t k = 0; k < i; k++)
            ow_tb_stage_abort (&staged[k]);
          free (staged);
          return error;
        }
    }
  *partial = 1;
  for (size_t i = 0; i < p->n_files; i++)
    if (staged[i].tmp != NULL && ow_tb_stage_commit (&staged[i], &error) != 0)
      {
        /* Rename into a folder we just wrote to cannot normally fail; if it
         * does, the rest is still applied and the error is reported. */
        for (size_t k = i + 1; k < p->n_files; k++)
          ow_tb_stage_abort (&staged[k]);
        free (staged);
        return error;
      }
  free (staged);
  for (size_t i = 0; i < p->n_files; i++)
    {
      VFile *f = &p->files[i];

      if (f->dirty && !f->exists && f->on_disk && ow_tb_unlink_in_root (env, f->abs, &error) != 0)
        return error;
    }
  return NULL;
}

static void
write_list (OwTbObj *obj, const char *key, const StrList *list)
{
  OwTbObj arr;

  ow_tb_obj_key (obj, key);
  ow_tb_arr_begin (&arr, obj->buf);
  for (size_t i = 0; i < list->n; i++)
    ow_tb_obj_str (&arr, NULL, list->items[i]);
  ow_tb_obj_end (&arr);
}

OwTbStatus
ow_tb_tool_apply_patch (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *text;
  size_t text_len, hunks = 0;
  Patch patch;
  char *error;
  int refused = 0, partial = 0;
  OwTbObj obj;

  if (ow_tb_arg_string (args, "patch", 1, &text, &text_len, out) != 0)
    return OW_TB_BAD_ARGS;
  memset (&patch, 0, sizeof patch);
  error = parse_patch (text, text_len, &patch);
  if (error == NULL)
    error = simulate (&patch, env, out, &refused);
  if (refused)
    {
      patch_clear (&patch);
      return OW_TB_ERROR;
    }
  if (error == NULL)
    error = commit (env, &patch, &partial);
  if (error != NULL)
    {
      ow_tb_set_error (out, partial ? "apply_patch failed part-way; some files were already "
                                      "changed, check them with git_diff: %s"
                                    : "apply_patch failed, nothing was changed: %s", error);
      free (error);
      patch_clear (&patch);
      return OW_TB_ERROR;
    }
  for (size_t i = 0; i < patch.n_ops; i++)
    hunks += patch.ops[i].kind == OP_UPDATE ? patch.ops[i].n_hunks
             : patch.ops[i].kind == OP_ADD ? 1 : 0;

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  write_list (&obj, "changed_files", &patch.changed);
  write_list (&obj, "added_files", &patch.added);
  write_list (&obj, "deleted_files", &patch.deleted);
  if (patch.moved_from.n > 0)
    {
      OwTbObj arr, item;

      ow_tb_obj_key (&obj, "moved_files");
      ow_tb_arr_begin (&arr, out);
      for (size_t i = 0; i < patch.moved_from.n; i++)
        {
          ow_tb_obj_key (&arr, NULL);
          ow_tb_obj_begin (&item, out);
          ow_tb_obj_str (&item, "from", patch.moved_from.items[i]);
          ow_tb_obj_str (&item, "to", patch.moved_to.items[i]);
          ow_tb_obj_end (&item);
        }
      ow_tb_obj_end (&arr);
    }
  ow_tb_obj_int (&obj, "file_count", (long long) patch.n_ops);
  ow_tb_obj_int (&obj, "hunk_count", (long long) hunks);
  ow_tb_obj_end (&obj);
  patch_clear (&patch);
  return OW_TB_OK;
}

int
ow_tb_patch_writable (const OwTbRoot *roots, size_t n_roots, const char *text, char **refused)
{
  Patch patch;
  char *error;
  int ok = 1;

  *refused = NULL;
  if (text == NULL)
    return 1;
  memset (&patch, 0, sizeof patch);
  error = parse_patch (text, strlen (text), &patch);
  if (error != NULL)
    {
      /* The tool reports what is wrong with the patch itself. */
      free (error);
      patch_clear (&patch);
      return 1;
    }
  for (size_t i = 0; i < patch.n_ops && ok; i++)
    {
      const Op *op = &patch.ops[i];

      if (!ow_tb_path_writable (roots, n_roots, op->path))
        {
          *refused = ow_tb_strdup_printf ("%s", op->path);
          ok = 0;
        }
      else if (op->move_to != NULL && !ow_tb_path_writable (roots, n_roots, op->move_to))
        {
          *refused = ow_tb_strdup_printf ("%s", op->move_to);
          ok = 0;
        }
    }
  patch_clear (&patch);
  return ok;
}
