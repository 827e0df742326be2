/* ow-transcript-renderer.c: a session's events as page updates (see
 * ow-transcript-renderer.h).
 *
 * The page is a flat list of turns; a turn holds, in order, the person's
 * message and then, per model round, an optional reasoning block, the
 * answer text and a group of tool steps, with notices (errors, retries,
 * interruptions) where they happened. Element ids are made here from a
 * counter ("e12"), never from outside values, so nothing a model sends can
 * collide with or address another element.
 */
#define G_LOG_DOMAIN "ow-transcript"

#include "config-ui.h"
#include "ow-transcript-renderer.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "ow-format.h"
#include "ow-html-escape.h"
#include "ow-json.h"
#include "ow-markdown.h"

/* A streamed block: reasoning or answer text, re-rendered when dirty. */
typedef struct {
  char    *id;         /* the element whose content is the text */
  GString *text;
  gboolean markdown;   /* answer text; reasoning is shown as plain text */
  gboolean dirty;
} Block;

/* One tool call as its step row shows it. */
typedef struct {
  char       *id;
  char       *name;
  JsonObject *args;
  char       *status;       /* proposed, waiting, running, ok, error, denied, interrupted */
  char       *note;         /* how the ask was answered, the reviewer's verdict */
  char       *provenance;
  char       *enforcement;
  char       *preview;
  char       *reason;
  char       *output;       /* a command's output (the end of it), or NULL */
  gboolean    has_exit;     /* the event carried an exit code */
  gboolean    exit_known;   /* … and it was a number, not null */
  gint64      exit_code;
  double      progress;     /* the tool's last progress report while running, or < 0 */
  double      total;        /* its total (< 0: none given) */
  char       *progress_message;
} Step;

struct _OwTranscriptRenderer
{
  JsonArray  *ops;
  gint64      last_seq;
  guint       next_id;

  char       *turn;         /* current turn's element id, or NULL before any */
  gboolean    working;
  Block      *text;         /* the answer being streamed in this round, or NULL */
  Block      *reasoning;    /* the reasoning being streamed in this round, or NULL */
  GPtrArray  *dirty;        /* Block*: blocks to re-render at the next take */
  GPtrArray  *blocks;       /* Block*: every block (owned) */
  char       *group;        /* the open step group's id, or NULL */
  char       *group_list;   /* its list element */
  char       *group_summary;
  guint       group_steps;
  Step       *group_last;   /* the open group's newest step (owned by steps) */
  char       *last_child;   /* what the turn ended with: "group" or another kind */
  GHashTable *steps;        /* call id → Step* */
};

static void
block_free (Block *b)
{
  g_free (b->id);
  g_string_free (b->text, TRUE);
  g_free (b);
}

static void
step_free (Step *s)
{
  g_free (s->id);
  g_free (s->name);
  g_clear_pointer (&s->args, json_object_unref);
  g_free (s->status);
  g_free (s->note);
  g_free (s->provenance);
  g_free (s->enforcement);
  g_free (s->preview);
  g_free (s->reason);
  g_free (s->output);
  g_free (s->progress_message);
  g_free (s);
}

OwTranscriptRenderer *
ow_transcript_renderer_new (void)
{
  OwTranscriptRenderer *self = g_new0 (OwTranscriptRenderer, 1);

  self->ops = json_array_new ();
  self->dirty = g_ptr_array_new ();
  self->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  self->steps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) step_free);
  return self;
}

void
ow_transcript_renderer_free (OwTranscriptRenderer *self)
{
  if (self == NULL)
    return;
  json_array_unref (self->ops);
  g_ptr_array_unref (self->dirty);
  g_ptr_array_unref (self->blocks);
  g_hash_table_unref (self->steps);
  g_free (self->turn);
  g_free (self->group);
  g_free (self->group_list);
  g_free (self->group_summary);
  g_free (self->last_child);
  g_free (self);
}

gint64
ow_transcript_renderer_get_last_seq (OwTranscriptRenderer *self)
{
  return self->last_seq;
}

gboolean
ow_transcript_renderer_is_working (OwTranscriptRenderer *self)
{
  return self->working;
}

gboolean
ow_transcript_renderer_has_ops (OwTranscriptRenderer *self)
{
  return json_array_get_length (self->ops) > 0 || self->dirty->len > 0;
}

static char *
new_id (OwTranscriptRenderer *self)
{
  return g_strdup_printf ("e%u", ++self->next_id);
}

/* ---- Operations ------------------------------------------------------------ */

static void
op_append (OwTranscriptRenderer *self, const char *parent, GString *html)
{
  JsonObject *op = json_object_new ();

  json_object_set_string_member (op, "op", "append");
  if (parent != NULL)
    json_object_set_string_member (op, "parent", parent);
  else
    json_object_set_null_member (op, "parent");
  json_object_set_string_member (op, "html", html->str);
  json_array_add_object_element (self->ops, op);
}

static void
op_html (OwTranscriptRenderer *self, const char *kind, const char *id, const char *html)
{
  JsonObject *op = json_object_new ();

  json_object_set_string_member (op, "op", kind);
  json_object_set_string_member (op, "id", id);
  json_object_set_string_member (op, "html", html);
  json_array_add_object_element (self->ops, op);
}

static void
op_class (OwTranscriptRenderer *self, const char *id, const char *add, const char *remove)
{
  JsonObject *op = json_object_new ();

  json_object_set_string_member (op, "op", "class");
  json_object_set_string_member (op, "id", id);
  if (add != NULL)
    json_object_set_string_member (op, "add", add);
  if (remove != NULL)
    json_object_set_string_member (op, "remove", remove);
  json_array_add_object_element (self->ops, op);
}

/* Appends @html to the current turn (or the root before the first one)
 * and remembers what kind of thing the turn now ends with. */
static void
append_to_turn (OwTranscriptRenderer *self, const char *kind, GString *html)
{
  op_append (self, self->turn, html);
  g_free (self->last_child);
  self->last_child = g_strdup (kind);
}

/* ---- Blocks ---------------------------------------------------------------- */

static void
close_round (OwTranscriptRenderer *self)
{
  self->text = NULL;
  self->reasoning = NULL;
}

static void
close_group (OwTranscriptRenderer *self)
{
  g_clear_pointer (&self->group, g_free);
  g_clear_pointer (&self->group_list, g_free);
  g_clear_pointer (&self->group_summary, g_free);
  self->group_steps = 0;
  self->group_last = NULL;
}

static void
mark_dirty (OwTranscriptRenderer *self, Block *b)
{
  if (!b->dirty)
    {
      b->dirty = TRUE;
      g_ptr_array_add (self->dirty, b);
    }
}

static Block *
new_block (OwTranscriptRenderer *self, gboolean markdown)
{
  Block *b = g_new0 (Block, 1);
  g_autoptr(GString) html = g_string_new (NULL);

  b->id = new_id (self);
  b->text = g_string_new (NULL);
  b->markdown = markdown;
  g_ptr_array_add (self->blocks, b);
  if (markdown)
    {
      ow_html_append (html, "<div class=\"answer md\" id=\"%s\"></div>", b->id);
      append_to_turn (self, "text", html);
    }
  else
    {
      g_autofree char *outer = new_id (self);
      ow_html_append (html,
                      "<details class=\"reasoning\" id=\"%s\"><summary>%s</summary>"
                      "<div class=\"reasoning-text\" id=\"%s\"></div></details>",
                      outer, _("Thinking"), b->id);
      append_to_turn (self, "reasoning", html);
    }
  /* New text after a step group ends that group: later steps start a new one. */
  close_group (self);
  return b;
}

static char *
render_block (Block *b)
{
  if (b->markdown)
    return ow_markdown_to_html (b->text->str);
  return ow_html_escape (b->text->str);
}

/* ---- Steps ----------------------------------------------------------------- */

static const char *
status_glyph (const char *status)
{
  if (g_strcmp0 (status, "ok") == 0)
    return "✓";
  if (g_strcmp0 (status, "error") == 0)
    return "✗";
  if (g_strcmp0 (status, "denied") == 0)
    return "⊘";
  if (g_strcmp0 (status, "interrupted") == 0)
    return "■";
  if (g_strcmp0 (status, "waiting") == 0)
    return "?";
  return "…";
}

/* A file step's change, as the card showed it: a compact diff (or the
 * new content), folded away once the step is done. Copy takes the lines
 * the file ends with (transcript.js skips the removed ones). */
#define STEP_CHANGE_LINES 40

static void
append_change (GString *html, Step *s, GPtrArray *change)
{
  static const char *const classes[] = {
    [OW_DIFF_CONTEXT] = "context", [OW_DIFF_ADDED] = "added", [OW_DIFF_REMOVED] = "removed",
    [OW_DIFF_HEADER] = "header",
  };
  gboolean open = g_strcmp0 (s->status, "ok") != 0 && g_strcmp0 (s->status, "error") != 0
                  && g_strcmp0 (s->status, "denied") != 0 && g_strcmp0 (s->status, "interrupted") != 0;

  ow_html_append (html, "<details class=\"step-change\"%H><summary>%s</summary><pre class=\"diff\"><code>",
                  open ? " open" : "",
                  g_strcmp0 (s->name, "write_file") == 0 ? _("Content") : _("Changes"));
  for (guint i = 0; i < change->len; i++)
    {
      OwDiffLine *line = g_ptr_array_index (change, i);

      ow_html_append (html, "<span class=\"line %H\">%s</span>", classes[line->kind], line->text);
    }
  g_string_append (html, "</code></pre></details>");
}

static GString *
step_html (Step *s)
{
  GString *html = g_string_new (NULL);
  g_autofree char *verb = NULL, *detail = NULL, *status_class = NULL;
  g_autofree char *provenance = ow_format_provenance (s->provenance);
  g_autofree char *guarded = ow_format_enforcement (s->enforcement, g_strcmp0 (s->name, "run_shell") == 0);
  g_autoptr(GPtrArray) change = ow_format_step_change (s->name, s->args, STEP_CHANGE_LINES);
  const char *note = s->note;
  const char *reason = s->reason;

  ow_format_tool_step (s->name, s->args, s->status, &verb, &detail);
  status_class = ow_html_token (s->status);
  ow_html_append (html, "<li class=\"step status-%s\" id=\"%s\">", status_class, s->id);
  ow_html_append (html, "<div class=\"step-head\"><span class=\"step-status\" title=\"%s\">%s</span> "
                        "<span class=\"step-verb\">%s</span>",
                  ow_format_tool_status (s->status), status_glyph (s->status), verb);
  if (detail != NULL && *detail != '\0')
    ow_html_append (html, " <code class=\"step-detail\">%s</code>", detail);
  g_string_append (html, "</div>");

  /* A running tool that reports progress (an MCP server's long call): a
   * bar when it gives a total, else the count, with its message. */
  if (g_strcmp0 (s->status, "running") == 0 && s->progress >= 0)
    {
      char value[G_ASCII_DTOSTR_BUF_SIZE], max[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_dtostr (value, sizeof value, s->total > 0 ? MIN (s->progress, s->total) : s->progress);
      g_ascii_dtostr (max, sizeof max, s->total);
      if (s->total > 0)
        ow_html_append (html, "<div class=\"step-progress\"><progress max=\"%H\" value=\"%H\"></progress>", max, value);
      else
        ow_html_append (html, "<div class=\"step-progress\"><span class=\"progress-count\">%H</span>", value);
      if (s->progress_message != NULL)
        ow_html_append (html, " <span class=\"progress-message\">%s</span>", s->progress_message);
      g_string_append (html, "</div>");
    }

  /* An answer is said once, by the provenance ("You allowed it once",
   * "You denied it", with the person's reason when they gave one), not
   * also by the card's note and the engine's reason. */
  if (*provenance != '\0'
      && (g_strcmp0 (note, _("allowed once")) == 0 || g_strcmp0 (note, _("allowed for this session")) == 0
          || g_strcmp0 (note, _("always allowed")) == 0 || g_strcmp0 (note, _("denied")) == 0))
    note = NULL;
  if (g_strcmp0 (s->status, "denied") == 0 && *provenance != '\0')
    {
      if (g_strcmp0 (reason, "denied by the person") == 0)
        reason = NULL;
      else if (reason != NULL && g_str_has_prefix (reason, "denied by the person: "))
        reason += strlen ("denied by the person: ");
    }
  if (note != NULL || *provenance != '\0' || guarded != NULL || reason != NULL)
    {
      gboolean sep = FALSE;
      g_string_append (html, "<div class=\"step-meta\">");
      if (note != NULL)
        ow_html_append (html, "<span class=\"step-note\">%s</span>", note), sep = TRUE;
      if (*provenance != '\0')
        ow_html_append (html, "%H<span class=\"step-provenance\">%s</span>", sep ? " · " : "", provenance), sep = TRUE;
      if (guarded != NULL)
        {
          ow_html_append (html, "%H<span class=\"step-sandbox\">%s</span>", sep ? " · " : "", guarded);
          sep = TRUE;
        }
      if (reason != NULL && *reason != '\0' && g_strcmp0 (s->status, "ok") != 0)
        ow_html_append (html, "%H<span class=\"step-reason\">%s</span>", sep ? " · " : "", reason);
      g_string_append (html, "</div>");
    }
  if (s->has_exit)
    {
      /* A command: its output as a terminal shows it, and how it ended. */
      g_autofree char *code = ow_format_exit_code (s->exit_known, s->exit_code);
      const char *ended = s->exit_known && s->exit_code == 0 ? "exit-ok" : "exit-fail";

      ow_html_append (html, "<div class=\"terminal\"><div class=\"terminal-head\">"
                            "<span class=\"exit %s\">%s</span></div>", ended, code);
      if (s->output != NULL && *s->output != '\0')
        ow_html_append (html, "<pre class=\"terminal-out\"><code>%s</code></pre>", s->output);
      g_string_append (html, "</div>");
    }
  if (change != NULL && change->len > 0)
    append_change (html, s, change);
  if (!s->has_exit && s->preview != NULL && *s->preview != '\0')
    ow_html_append (html, "<details class=\"step-result\"><summary>%s</summary><pre>%s</pre></details>",
                    _("Result"), s->preview);
  g_string_append (html, "</li>");
  return html;
}

static void update_group_summary (OwTranscriptRenderer *self, Step *last);

static void
update_step (OwTranscriptRenderer *self, Step *s)
{
  g_autoptr(GString) html = step_html (s);

  op_html (self, "replace", s->id, html->str);
  /* The group's summary names its newest step: its verb follows too. */
  if (s == self->group_last)
    update_group_summary (self, s);
}

static void
update_group_summary (OwTranscriptRenderer *self, Step *last)
{
  g_autoptr(GString) html = g_string_new (NULL);
  g_autofree char *verb = NULL, *detail = NULL;
  g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step", "%u steps", self->group_steps),
                                            self->group_steps);

  ow_format_tool_step (last->name, last->args, last->status, &verb, &detail);
  ow_html_append (html, "<span class=\"steps-count\">%s</span> <span class=\"steps-last\">%s %s</span>", count,
                  verb, detail);
  op_html (self, "set", self->group_summary, html->str);
}

static Step *
ensure_step (OwTranscriptRenderer *self, const char *call_id, const char *name, JsonObject *args)
{
  Step *s;
  g_autoptr(GString) html = NULL;

  if (call_id == NULL)
    return NULL;
  s = g_hash_table_lookup (self->steps, call_id);
  if (s != NULL)
    {
      if (args != NULL && s->args == NULL)
        s->args = json_object_ref (args);
      return s;
    }
  if (self->turn == NULL)
    return NULL;
  if (self->group == NULL || g_strcmp0 (self->last_child, "group") != 0)
    {
      g_autoptr(GString) group = g_string_new (NULL);
      close_group (self);
      self->group = new_id (self);
      self->group_summary = new_id (self);
      self->group_list = new_id (self);
      ow_html_append (group, "<details class=\"steps\" id=\"%s\"><summary id=\"%s\"></summary>"
                             "<ol class=\"step-list\" id=\"%s\"></ol></details>",
                      self->group, self->group_summary, self->group_list);
      append_to_turn (self, "group", group);
      /* Steps follow the text of their round; later text starts a new block. */
      close_round (self);
    }
  s = g_new0 (Step, 1);
  s->id = new_id (self);
  s->name = g_strdup (name != NULL ? name : "tool");
  s->args = args != NULL ? json_object_ref (args) : NULL;
  s->status = g_strdup ("proposed");
  s->progress = -1;
  s->total = -1;
  g_hash_table_insert (self->steps, g_strdup (call_id), s);
  self->group_steps++;
  self->group_last = s;
  html = step_html (s);
  op_append (self, self->group_list, html);
  update_group_summary (self, s);
  return s;
}

static void
set_str (char **field, const char *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

/* ---- Notices --------------------------------------------------------------- */

/* @kind: info | warn | error. @actions: trusted HTML (buttons), or NULL. */
static void
notice (OwTranscriptRenderer *self, const char *kind, const char *title, const char *text, const char *actions,
        const char *extra_attrs)
{
  g_autoptr(GString) html = g_string_new (NULL);
  g_autofree char *id = new_id (self);

  ow_html_append (html, "<div class=\"notice notice-%s\" id=\"%s\" role=\"status\"%H>", kind, id,
                  extra_attrs != NULL ? extra_attrs : "");
  if (title != NULL)
    ow_html_append (html, "<strong>%s</strong> ", title);
  ow_html_append (html, "<span class=\"notice-text\">%s</span>%H</div>", text != NULL ? text : "",
                  actions != NULL ? actions : "");
  append_to_turn (self, "notice", html);
}

static void
marker (OwTranscriptRenderer *self, const char *text)
{
  g_autoptr(GString) html = g_string_new (NULL);

  ow_html_append (html, "<div class=\"marker\">%s</div>", text);
  append_to_turn (self, "marker", html);
}

static char *
retry_button (void)
{
  GString *html = g_string_new (NULL);

  ow_html_append (html, " <button type=\"button\" class=\"action\" data-action=\"retry\">%s</button>", _("Retry"));
  return g_string_free (html, FALSE);
}

/* ---- Events ---------------------------------------------------------------- */

static void
on_turn_start (OwTranscriptRenderer *self, gint64 seq, JsonObject *data)
{
  g_autoptr(GString) html = g_string_new (NULL);
  const char *input = ow_json_get_string (data, "input");

  if (self->turn != NULL && self->working)
    op_class (self, self->turn, NULL, "working");
  g_free (self->turn);
  self->turn = new_id (self);
  close_round (self);
  close_group (self);
  g_clear_pointer (&self->last_child, g_free);
  self->working = TRUE;
  ow_html_append (html, "<section class=\"turn working\" id=\"%s\" data-seq=\"%l\">", self->turn, seq);
  if (input != NULL && *input != '\0')
    ow_html_append (html, "<div class=\"user\"><div class=\"bubble\">%s</div></div>", input);
  else
    ow_html_append (html, "<div class=\"marker\">%s</div>", _("Continuing the last turn"));
  g_string_append (html, "</section>");
  op_append (self, NULL, html);
}

static void
on_delta (OwTranscriptRenderer *self, gboolean reasoning, JsonObject *data)
{
  const char *piece = ow_json_get_string (data, "text");
  Block **slot = reasoning ? &self->reasoning : &self->text;

  if (piece == NULL || *piece == '\0')
    return;
  if (*slot == NULL)
    *slot = new_block (self, !reasoning);
  g_string_append (((Block *) *slot)->text, piece);
  mark_dirty (self, *slot);
}

static void
on_assistant_message (OwTranscriptRenderer *self, JsonObject *data)
{
  const char *text = ow_json_get_string (data, "text");
  const char *reasoning = ow_json_get_string (data, "reasoning");

  if (reasoning != NULL && *reasoning != '\0' && self->reasoning == NULL)
    {
      self->reasoning = new_block (self, FALSE);
      g_string_assign (self->reasoning->text, reasoning);
      mark_dirty (self, self->reasoning);
    }
  if (text != NULL && *text != '\0')
    {
      /* The message is what was kept: it wins over the streamed pieces. */
      if (self->text == NULL)
        self->text = new_block (self, TRUE);
      g_string_assign (self->text->text, text);
      mark_dirty (self, self->text);
    }
  close_round (self);
}

static void
on_tool_event (OwTranscriptRenderer *self, const char *type, JsonObject *data)
{
  const char *call_id = ow_json_get_string (data, "call_id");
  Step *s = ensure_step (self, call_id, ow_json_get_string (data, "name"), ow_json_get_object (data, "arguments"));

  if (s == NULL)
    return;
  if (g_str_equal (type, "tool_proposed"))
    return;
  if (g_str_equal (type, "permission_required") || g_str_equal (type, "site_requested")
      || g_str_equal (type, "question_requested") || g_str_equal (type, "directory_requested"))
    {
      set_str (&s->status, "waiting");
      if (g_str_equal (type, "site_requested"))
        {
          g_autofree char *note = g_strdup_printf (_("asks to reach %s"), ow_json_get_string (data, "site"));
          set_str (&s->note, note);
        }
    }
  else if (g_str_equal (type, "review_finished"))
    {
      g_autofree char *note = g_strdup_printf (_("reviewer: %s"), ow_json_get_string (data, "verdict"));
      set_str (&s->note, note);
    }
  else if (g_str_equal (type, "approval_resolved"))
    {
      const char *decision = ow_json_get_string (data, "decision");
      const char *kind = ow_json_get_string (data, "kind");
      const char *note = NULL;

      if (g_strcmp0 (kind, "question") == 0 || g_strcmp0 (kind, "directory") == 0)
        note = g_strcmp0 (decision, "interrupted") == 0 ? _("not answered") : _("answered");
      else if (g_strcmp0 (decision, "deny") == 0)
        note = _("denied");
      else if (g_strcmp0 (decision, "interrupted") == 0)
        note = _("not answered");
      else if (g_strcmp0 (decision, "once") == 0)
        note = _("allowed once");
      else if (g_strcmp0 (decision, "session") == 0 || g_strcmp0 (decision, "always_tool") == 0)
        note = _("allowed for this session");
      else if (g_strcmp0 (decision, "always") == 0 || g_strcmp0 (decision, "always_task") == 0)
        note = _("always allowed");
      if (note != NULL)
        set_str (&s->note, note);
      /* Allowed or answered, the call goes ahead at once. */
      set_str (&s->status, g_strcmp0 (decision, "deny") == 0 ? "denied"
                           : g_strcmp0 (decision, "interrupted") == 0 ? "interrupted" : "running");
    }
  else if (g_str_equal (type, "tool_started"))
    set_str (&s->status, "running");
  else if (g_str_equal (type, "tool_progress"))
    {
      JsonNode *p = json_object_get_member (data, "progress");
      JsonNode *t = json_object_get_member (data, "total");

      s->progress = p != NULL && JSON_NODE_HOLDS_VALUE (p) ? json_node_get_double (p) : 0;
      s->total = t != NULL && JSON_NODE_HOLDS_VALUE (t) ? json_node_get_double (t) : -1;
      set_str (&s->progress_message, ow_json_get_string (data, "message"));
    }
  else if (g_str_equal (type, "tool_finished"))
    {
      set_str (&s->status, ow_json_get_string (data, "status"));
      set_str (&s->preview, ow_json_get_string (data, "result_preview"));
      set_str (&s->reason, ow_json_get_string (data, "reason"));
      set_str (&s->provenance, ow_json_get_string (data, "provenance"));
      set_str (&s->enforcement, ow_json_get_string (data, "enforcement"));
      set_str (&s->output, ow_json_get_string (data, "output"));
      s->has_exit = json_object_has_member (data, "exit_code");
      s->exit_known = s->has_exit && JSON_NODE_HOLDS_VALUE (json_object_get_member (data, "exit_code"));
      s->exit_code = s->exit_known ? json_object_get_int_member (data, "exit_code") : 0;
    }
  update_step (self, s);
}

static void
on_error (OwTranscriptRenderer *self, JsonObject *data)
{
  const char *error = ow_json_get_string (data, "error");
  const char *type = ow_json_get_string (data, "error_type");
  g_autofree char *retry = retry_button ();
  g_autoptr(GString) actions = g_string_new (NULL);

  if (g_strcmp0 (type, "SetupError") == 0 || g_strcmp0 (type, "AuthError") == 0
      || (error != NULL && (strstr (error, "Models & Keys") != NULL || strstr (error, "API key") != NULL)))
    ow_html_append (actions, " <button type=\"button\" class=\"action\" data-action=\"settings\">%s</button>",
                    _("Open Models & Keys"));
  if (g_strcmp0 (type, "input_rejected") != 0)
    g_string_append (actions, retry);
  notice (self, "error", _("Error:"), error != NULL ? error : _("Something went wrong."), actions->str, NULL);
}

static void
on_provider_retry (OwTranscriptRenderer *self, gint64 ts, JsonObject *data)
{
  g_autofree char *text = NULL;
  g_autofree char *attrs = NULL;
  double delay = 0;
  JsonNode *n = json_object_get_member (data, "delay_seconds");

  if (n != NULL && JSON_NODE_HOLDS_VALUE (n))
    delay = json_node_get_double (n);
  text = g_strdup_printf (_("The model service failed (%s). Retrying, attempt %d of %d."),
                          ow_json_get_string (data, "error") != NULL ? ow_json_get_string (data, "error") : "?",
                          (int) ow_json_get_int (data, "attempt", 1), (int) ow_json_get_int (data, "max_attempts", 1));
  /* The page counts down to ts + delay itself; replayed, it is long past
   * and shows nothing. */
  attrs = g_strdup_printf (" data-until=\"%" G_GINT64_FORMAT "\"", ts + (gint64) (delay * 1000));
  notice (self, "warn", NULL, text, "<span class=\"countdown\"></span>", attrs);
}

void
ow_transcript_renderer_feed (OwTranscriptRenderer *self, gint64 seq, gint64 ts_ms, const char *type,
                             JsonObject *data)
{
  g_autoptr(JsonObject) empty = NULL;

  g_return_if_fail (self != NULL && type != NULL);

  if (seq > 0 && seq <= self->last_seq)
    return;
  if (seq > 0)
    self->last_seq = seq;
  if (data == NULL)
    data = empty = json_object_new ();

  if (g_str_equal (type, "turn_start"))
    on_turn_start (self, seq, data);
  else if (g_str_equal (type, "assistant_delta"))
    on_delta (self, FALSE, data);
  else if (g_str_equal (type, "reasoning_delta"))
    on_delta (self, TRUE, data);
  else if (g_str_equal (type, "assistant_message"))
    on_assistant_message (self, data);
  else if (g_str_equal (type, "tool_proposed") || g_str_equal (type, "permission_required")
           || g_str_equal (type, "site_requested") || g_str_equal (type, "question_requested")
           || g_str_equal (type, "directory_requested") || g_str_equal (type, "tool_started")
           || g_str_equal (type, "tool_finished") || g_str_equal (type, "approval_resolved")
           || g_str_equal (type, "review_finished") || g_str_equal (type, "tool_progress"))
    on_tool_event (self, type, data);
  else if (g_str_equal (type, "error"))
    on_error (self, data);
  else if (g_str_equal (type, "provider_retry"))
    on_provider_retry (self, ts_ms, data);
  else if (g_str_equal (type, "interrupted"))
    {
      g_autofree char *retry = ow_json_get_bool (data, "retryable", FALSE) ? retry_button () : NULL;
      notice (self, "info", NULL,
              ow_json_get_string (data, "reason") != NULL ? ow_json_get_string (data, "reason") : _("Interrupted."),
              retry, NULL);
    }
  else if (g_str_equal (type, "turn_end"))
    {
      if (g_strcmp0 (ow_json_get_string (data, "status"), "max_iterations_exceeded") == 0)
        {
          g_autofree char *retry = retry_button ();
          notice (self, "warn", NULL, _("Stopped: max iterations reached."), retry, NULL);
        }
    }
  else if (g_str_equal (type, "turn_done"))
    {
      if (self->turn != NULL)
        op_class (self, self->turn, NULL, "working");
      self->working = FALSE;
      close_round (self);
    }
  else if (g_str_equal (type, "iteration_end"))
    close_round (self);
  else if (g_str_equal (type, "mode_changed"))
    {
      g_autofree char *text = g_strdup_printf (_("Approval mode: %s"),
                                               ow_format_mode_label (ow_json_get_string (data, "mode")));
      marker (self, text);
    }
  else if (g_str_equal (type, "model_changed"))
    {
      g_autofree char *label = ow_format_model_label (ow_json_get_string (data, "model"));
      g_autofree char *text = g_strdup_printf (_("Model switched to %s."), label);
      marker (self, text);
    }
  else if (g_str_equal (type, "standing_rule_created"))
    {
      g_autofree char *text = g_strdup_printf (_("Always allowed from now on: “%s” (standing rule #%" PRId64
                                                 "). You can revoke it in Settings ▸ Approvals."),
                                               ow_json_get_string (data, "rule"), (int64_t) ow_json_get_int (data, "id", 0));
      notice (self, "info", NULL, text, NULL, NULL);
    }
  else if (g_str_equal (type, "safety_check_cleared"))
    {
      JsonArray *checks = ow_json_get_array (data, "checks");
      g_autoptr(GString) list = g_string_new (NULL);
      g_autofree char *text = NULL;
      for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
        {
          const char *c = json_array_get_string_element (checks, i);
          if (c != NULL)
            g_string_append_printf (list, "%s%s", list->len > 0 ? "; " : "", c);
        }
      text = g_strdup_printf (_("A safety check was cleared by the approval mode: %s"), list->str);
      notice (self, "warn", NULL, text, NULL, NULL);
    }
  else if (g_str_equal (type, "compacting"))
    notice (self, "info", NULL, _("Compacting the conversation…"), NULL, NULL);
  else if (g_str_equal (type, "compacted"))
    notice (self, ow_json_get_bool (data, "trimmed", FALSE) ? "warn" : "info", NULL,
            ow_json_get_bool (data, "trimmed", FALSE)
            ? _("The oldest turns were dropped to fit the model's context; no summary of them could be made.")
            : _("The conversation was compacted to fit the model's context."), NULL, NULL);
}

JsonArray *
ow_transcript_renderer_take_ops (OwTranscriptRenderer *self)
{
  JsonArray *ops;

  for (guint i = 0; i < self->dirty->len; i++)
    {
      Block *b = g_ptr_array_index (self->dirty, i);
      g_autofree char *html = render_block (b);
      op_html (self, "set", b->id, html);
      b->dirty = FALSE;
    }
  g_ptr_array_set_size (self->dirty, 0);
  if (json_array_get_length (self->ops) == 0)
    return NULL;
  ops = self->ops;
  self->ops = json_array_new ();
  return ops;
}
