/* ow-headless-attendant.c: terminal prompts and rule answers for runs.
 *
 * Prompts are written to the terminal and the answer is read with an
 * asynchronous line read on it, so the main loop (and with it streaming,
 * signals and the wall-clock limit) keeps running while a person thinks.
 * A stop cancels the read.
 *
 * Everything in a prompt that a model, a tool or a repository wrote goes
 * through ow_terminal_escape first: a carriage return or an escape
 * sequence in a command must not make the terminal show another command
 * than the one being approved.
 */
#define G_LOG_DOMAIN "ow-headless"

#include "headless/ow-headless-attendant.h"

#include <gio/gunixinputstream.h>
#include <string.h>
#include <unistd.h>

#include "core/ow-event.h"
#include "ow-terminal.h"

struct _OwHeadlessAttendant
{
  GObject           parent_instance;
  int               tty_fd;        /* the terminal, or -1 */
  GDataInputStream *input;         /* line reader on tty_fd (owned), or NULL */
  gboolean          auto_answer;
  gboolean          dangerous;
  OwAnswerFunc      on_answer;
  gpointer          answer_data;
};

static void attendant_iface_init (OwAttendantInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwHeadlessAttendant, ow_headless_attendant, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ATTENDANT, attendant_iface_init))

typedef enum { ASK_APPROVAL, ASK_QUESTION, ASK_DIRECTORY } AskKind;

/* One pending terminal prompt. */
typedef struct {
  AskKind     kind;
  char       *prompt;     /* re-shown when the answer is not understood */
  JsonObject *args;       /* the tool's arguments (owned) */
  char       *tool;
  char       *command;    /* run_shell: the command, for the session grant */
  gboolean    once_only;  /* a safety check: only "yes once" may be given */
  gboolean    can_always; /* a standing rule may be offered */
  gboolean    readonly_ok; /* "all read-only commands" may be offered */
} Ask;

static void
ask_free (Ask *ask)
{
  g_free (ask->prompt);
  g_clear_pointer (&ask->args, json_object_unref);
  g_free (ask->tool);
  g_free (ask->command);
  g_free (ask);
}

static void
tty_write (OwHeadlessAttendant *self, const char *text)
{
  gsize len = strlen (text);

  while (len > 0)
    {
      ssize_t n = write (self->tty_fd, text, len);
      if (n <= 0)
        return;
      text += n;
      len -= (gsize) n;
    }
}

static void
record (OwHeadlessAttendant *self, const char *kind, const char *tool, JsonObject *detail, const char *answer)
{
  JsonObject *a = json_object_new ();
  g_autofree char *ts = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

  ts = g_date_time_format_iso8601 (now);
  json_object_set_string_member (a, "ts", ts);
  json_object_set_string_member (a, "kind", kind);
  if (tool != NULL)
    json_object_set_string_member (a, "tool", tool);
  if (detail != NULL)
    json_object_set_object_member (a, "request", json_object_ref (detail));
  json_object_set_string_member (a, "answer", answer);
  json_object_set_string_member (a, "answered_by", "rule");
  if (self->on_answer != NULL)
    self->on_answer (a, self->answer_data);
  json_object_unref (a);
}

/* @text escaped for the terminal; sets *@hidden when something was. */
static char *
shown (const char *text, gboolean *hidden)
{
  gboolean escaped = FALSE;
  char *s = ow_terminal_escape (text, NULL, &escaped);

  *hidden = *hidden || escaped;
  return s;
}

/* Said under a prompt that shows escapes, so the person knows the text
 * held characters a terminal would have hidden or acted on. */
#define HIDDEN_NOTE "  (It holds control or invisible characters, shown escaped as \\x1b, \\r, \\u202e and so on.)\n"

static char *
summarize_args (const char *tool, JsonObject *args, gboolean *hidden)
{
  g_autoptr(GString) s = g_string_new (NULL);
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (g_str_equal (tool, "run_shell") && json_object_has_member (args, "command"))
    {
      gboolean escaped = FALSE;
      /* Continuation lines line up under the command, past "    $ ". */
      g_autofree char *command = ow_terminal_escape (json_object_get_string_member (args, "command"),
                                                     "      ", &escaped);

      *hidden = *hidden || escaped;
      return g_strdup_printf ("    $ %s\n", command);
    }
  json_object_iter_init (&iter, args);
  while (json_object_iter_next (&iter, &key, &value))
    {
      g_autofree char *v = NULL;
      g_autofree char *shown_key = NULL, *shown_value = NULL;
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        v = g_strdup (json_node_get_string (value));
      else
        v = json_to_string (value, FALSE);
      if (g_utf8_strlen (v, -1) > 200)
        {
          glong total = g_utf8_strlen (v, -1);
          g_autofree char *head = g_utf8_substring (v, 0, 200);
          g_free (v);
          v = g_strdup_printf ("%s… (%ld characters)", head, total);
        }
      shown_key = shown (key, hidden);
      shown_value = shown (v, hidden);
      g_string_append_printf (s, "    %s: %s\n", shown_key, shown_value);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void read_answer (GTask *task);

static void
on_line_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  OwHeadlessAttendant *self = g_task_get_source_object (task);
  Ask *ask = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL, &error);
  g_autofree char *answer = NULL;

  if (line == NULL)
    {
      if (error == NULL)
        g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CLOSED, "the terminal was closed");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  answer = g_strstrip (g_strdup (line));

  switch (ask->kind)
    {
    case ASK_APPROVAL:
      {
        OwApprovalReply *reply = g_new0 (OwApprovalReply, 1);
        g_autofree char *lower = g_ascii_strdown (answer, -1);
        if (g_str_equal (lower, "y") || g_str_equal (lower, "yes"))
          reply->answer = OW_APPROVAL_ONCE;
        else if (!ask->once_only && (g_str_equal (lower, "s") || g_str_equal (lower, "session")))
          reply->answer = OW_APPROVAL_SESSION;
        else if (ask->can_always && (g_str_equal (lower, "a") || g_str_equal (lower, "always")))
          reply->answer = OW_APPROVAL_ALWAYS;
        else if (ask->readonly_ok && (g_str_equal (lower, "r") || g_str_equal (lower, "read-only")))
          reply->answer = OW_APPROVAL_READONLY_SESSION;
        else if (g_str_equal (lower, "n") || g_str_equal (lower, "no"))
          reply->answer = OW_APPROVAL_DENY;
        else if (g_str_has_prefix (lower, "n ") || g_str_has_prefix (lower, "no "))
          {
            reply->answer = OW_APPROVAL_DENY;
            reply->note = g_strdup (strchr (answer, ' ') + 1);
          }
        else
          {
            g_free (reply);
            tty_write (self, ask->once_only ? "  Please answer y or n (n followed by a reason to tell the coworker why): "
                                            : ask->readonly_ok ? "  Please answer y, s, r, a or n (n followed by a reason): "
                                            : ask->can_always ? "  Please answer y, s, a or n (n followed by a reason): "
                                                              : "  Please answer y, s or n (n followed by a reason to tell the coworker why): ");
            read_answer (g_steal_pointer (&task));
            return;
          }
        g_task_return_pointer (task, reply, (GDestroyNotify) ow_approval_reply_free);
      }
      break;

    case ASK_QUESTION:
      {
        JsonObject *r = json_object_new ();
        JsonArray *options = json_object_has_member (ask->args, "options")
                               && JSON_NODE_HOLDS_ARRAY (json_object_get_member (ask->args, "options"))
                               ? json_object_get_array_member (ask->args, "options") : NULL;
        char *end = NULL;
        long pick = strtol (answer, &end, 10);
        const char *chosen = answer;

        if (options != NULL && end != answer && *end == '\0' && pick >= 1 && pick <= (long) json_array_get_length (options))
          {
            JsonNode *o = json_array_get_element (options, (guint) pick - 1);
            if (JSON_NODE_HOLDS_VALUE (o))
              chosen = json_node_get_string (o);
            else if (JSON_NODE_HOLDS_OBJECT (o))
              chosen = json_object_get_string_member_with_default (json_node_get_object (o), "label", answer);
          }
        json_object_set_string_member (r, "answer", chosen);
        g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
      }
      break;

    case ASK_DIRECTORY:
    default:
      {
        JsonObject *r = json_object_new ();
        g_autofree char *lower = g_ascii_strdown (answer, -1);
        const char *path = json_object_get_string_member_with_default (ask->args, "path", NULL);
        gboolean writable = json_object_get_boolean_member_with_default (ask->args, "writable", FALSE);

        if (g_str_equal (lower, "n") || g_str_equal (lower, "no"))
          {
            json_object_set_boolean_member (r, "granted", FALSE);
            json_object_set_string_member (r, "reason", "the user declined the request");
          }
        else if ((g_str_equal (lower, "y") || g_str_equal (lower, "yes") || g_str_equal (lower, "r")) && path != NULL)
          {
            json_object_set_boolean_member (r, "granted", TRUE);
            json_object_set_string_member (r, "path", path);
            json_object_set_boolean_member (r, "writable", g_str_equal (lower, "r") ? FALSE : writable);
          }
        else if (*answer == '/' || *answer == '~')
          {
            g_autofree char *expanded = *answer == '~' ? g_build_filename (g_get_home_dir (), answer + 1, NULL)
                                                       : g_strdup (answer);
            json_object_set_boolean_member (r, "granted", TRUE);
            json_object_set_string_member (r, "path", expanded);
            json_object_set_boolean_member (r, "writable", writable);
          }
        else
          {
            json_object_unref (r);
            tty_write (self, path != NULL ? "  Please answer y, r, n, or type a folder path: "
                                          : "  Type a folder path, or n: ");
            read_answer (g_steal_pointer (&task));
            return;
          }
        g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
      }
      break;
    }
}

static void
read_answer (GTask *task)
{
  OwHeadlessAttendant *self = g_task_get_source_object (task);

  g_data_input_stream_read_line_async (self->input, G_PRIORITY_DEFAULT, g_task_get_cancellable (task),
                                       on_line_cb, task);
}

static gboolean
at_terminal (OwHeadlessAttendant *self)
{
  return self->tty_fd >= 0 && self->input != NULL;
}

/* The session grant for commands that only read (ow-readonly.h). */
#define READONLY_CHOICE "[r] all read-only commands this session  "

static void
approval_async (OwAttendant *attendant, const OwApprovalRequest *req, GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  OwHeadlessAttendant *self = OW_HEADLESS_ATTENDANT (attendant);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Ask *ask;
  g_autofree char *summary = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *tool = NULL, *reason = NULL;
  gboolean hidden = FALSE;

  if (!at_terminal (self))
    {
      OwApprovalReply *reply = g_new0 (OwApprovalReply, 1);
      g_autoptr(JsonObject) detail = json_object_new ();
      reply->answer = OW_APPROVAL_DENY;
      reply->by_rule = TRUE;
      reply->note = g_strdup ("no one is at a terminal to approve it, so it was refused "
                              "(run with --approval-mode auto-approve or bypass-approvals for unattended work)");
      json_object_set_string_member (detail, "call_id", req->call_id);
      json_object_set_string_member (detail, "reason", req->reason);
      json_object_set_object_member (detail, "arguments", json_object_ref (req->arguments));
      record (self, "approval", req->tool, detail, "refused");
      g_task_return_pointer (task, reply, (GDestroyNotify) ow_approval_reply_free);
      g_object_unref (task);
      return;
    }
  ask = g_new0 (Ask, 1);
  ask->kind = ASK_APPROVAL;
  ask->tool = g_strdup (req->tool);
  ask->args = json_object_ref (req->arguments);
  ask->once_only = req->safety_check;
  ask->can_always = !req->safety_check && req->suggested_rule != NULL;
  ask->readonly_ok = !req->safety_check && req->readonly_ok;
  g_task_set_task_data (task, ask, (GDestroyNotify) ask_free);
  summary = summarize_args (req->tool, req->arguments, &hidden);
  tool = shown (req->tool, &hidden);
  reason = shown (req->reason, &hidden);
  if (req->site != NULL)
    {
      g_autofree char *site = shown (req->site, &hidden);

      ask->can_always = TRUE;
      prompt = g_strdup_printf ("\n● %s wants to reach %s, which is not on the sites this session may reach — %s\n%s"
                                "  Allow? [y] this once  [s] for this session  [a] always (adds it to the machine's "
                                "list)  [n] no: ",
                                tool, site, reason, hidden ? HIDDEN_NOTE : "");
    }
  else if (ask->once_only)
    prompt = g_strdup_printf ("\n● %s needs your approval — %s\n%s%s"
                              "  This is asked every time. Allow? [y] yes, this once  [n] no: ",
                              tool, reason, summary, hidden ? HIDDEN_NOTE : "");
  else if (ask->can_always)
    {
      g_autofree char *reviewer = req->reviewer_reasoning != NULL ? shown (req->reviewer_reasoning, &hidden) : NULL;
      g_autofree char *rule = shown (req->suggested_rule, &hidden);

      prompt = g_strdup_printf ("\n● %s needs your approval (%s%s%s):\n%s%s"
                                "  Allow? [y] yes once  [s] yes for this session  %s[a] always (saves the standing rule "
                                "\"%s\")  [n] no: ",
                                tool, reason, reviewer != NULL ? "; reviewer: " : "",
                                reviewer != NULL ? reviewer : "", summary, hidden ? HIDDEN_NOTE : "",
                                ask->readonly_ok ? READONLY_CHOICE : "", rule);
    }
  else
    prompt = g_strdup_printf ("\n● %s needs your approval (%s):\n%s%s"
                              "  Allow? [y] yes once  [s] yes for this session  %s[n] no: ",
                              tool, reason, summary, hidden ? HIDDEN_NOTE : "", ask->readonly_ok ? READONLY_CHOICE : "");
  tty_write (self, prompt);
  read_answer (task);
}

static OwApprovalReply *
approval_finish (OwAttendant *attendant, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ask_async (OwAttendant *attendant, const char *session_id, const char *call_id, JsonObject *args,
           GCancellable *cancellable,
           GAsyncReadyCallback callback, gpointer user_data)
{
  OwHeadlessAttendant *self = OW_HEADLESS_ATTENDANT (attendant);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_autofree char *question = NULL;
  gboolean hidden = FALSE;
  Ask *ask;
  JsonArray *options;

  if (!at_terminal (self) || self->auto_answer)
    {
      JsonObject *r = ow_attendant_rule_answer (args);
      record (self, "question", "ask_user", args, OW_AUTO_ANSWER);
      g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  ask = g_new0 (Ask, 1);
  ask->kind = ASK_QUESTION;
  ask->args = json_object_ref (args);
  g_task_set_task_data (task, ask, (GDestroyNotify) ask_free);
  question = shown (json_object_get_string_member_with_default (args, "question", ""), &hidden);
  g_string_append_printf (prompt, "\n? %s\n", question);
  options = json_object_has_member (args, "options") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (args, "options"))
              ? json_object_get_array_member (args, "options") : NULL;
  for (guint i = 0; options != NULL && i < json_array_get_length (options); i++)
    {
      JsonNode *o = json_array_get_element (options, i);
      const char *label = JSON_NODE_HOLDS_VALUE (o) ? json_node_get_string (o)
                          : JSON_NODE_HOLDS_OBJECT (o) ? json_object_get_string_member_with_default (json_node_get_object (o), "label", "")
                          : "";
      g_autofree char *shown_label = shown (label != NULL ? label : "", &hidden);

      g_string_append_printf (prompt, "  [%u] %s\n", i + 1, shown_label);
    }
  if (hidden)
    g_string_append (prompt, HIDDEN_NOTE);
  g_string_append (prompt, options != NULL ? "  Your answer (a number or text): " : "  Your answer: ");
  tty_write (self, prompt->str);
  read_answer (task);
}

static JsonObject *
finish_object (OwAttendant *attendant, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
directory_async (OwAttendant *attendant, const char *session_id, const char *call_id, JsonObject *args,
                 GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  OwHeadlessAttendant *self = OW_HEADLESS_ATTENDANT (attendant);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *prompt = NULL;
  g_autofree char *shown_path = NULL, *reason = NULL;
  gboolean hidden = FALSE;
  const char *path;
  Ask *ask;

  if (!at_terminal (self) || self->auto_answer)
    {
      JsonObject *r = ow_attendant_rule_directory_decline (self->dangerous);
      record (self, "directory", "request_directory", args, "declined");
      g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  ask = g_new0 (Ask, 1);
  ask->kind = ASK_DIRECTORY;
  ask->args = json_object_ref (args);
  g_task_set_task_data (task, ask, (GDestroyNotify) ask_free);
  path = json_object_get_string_member_with_default (args, "path", NULL);
  shown_path = path != NULL ? shown (path, &hidden) : NULL;
  reason = shown (json_object_get_string_member_with_default (args, "reason", ""), &hidden);
  prompt = g_strdup_printf ("\n● The coworker asks for a folder%s%s (%s): %s\n%s%s",
                            path != NULL ? " " : "", path != NULL ? shown_path : "",
                            json_object_get_boolean_member_with_default (args, "writable", FALSE) ? "read-write" : "read-only",
                            reason, hidden ? HIDDEN_NOTE : "",
                            path != NULL ? "  [y] yes  [r] yes, but read-only  [n] no  — or type another folder: "
                                         : "  Type a folder path, or [n] no: ");
  tty_write (self, prompt);
  read_answer (task);
}

static void
attendant_iface_init (OwAttendantInterface *iface)
{
  iface->request_approval_async = approval_async;
  iface->request_approval_finish = approval_finish;
  iface->ask_async = ask_async;
  iface->ask_finish = finish_object;
  iface->request_directory_async = directory_async;
  iface->request_directory_finish = finish_object;
}

static void
ow_headless_attendant_finalize (GObject *object)
{
  OwHeadlessAttendant *self = OW_HEADLESS_ATTENDANT (object);

  g_clear_object (&self->input);
  G_OBJECT_CLASS (ow_headless_attendant_parent_class)->finalize (object);
}

static void
ow_headless_attendant_class_init (OwHeadlessAttendantClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_headless_attendant_finalize;
}

static void
ow_headless_attendant_init (OwHeadlessAttendant *self)
{
  self->tty_fd = -1;
}

OwAttendant *
ow_headless_attendant_new (int tty_fd, gboolean auto_answer, gboolean dangerous, OwAnswerFunc on_answer,
                           gpointer answer_data)
{
  OwHeadlessAttendant *self = g_object_new (OW_TYPE_HEADLESS_ATTENDANT, NULL);

  self->tty_fd = tty_fd;
  self->auto_answer = auto_answer;
  self->dangerous = dangerous;
  self->on_answer = on_answer;
  self->answer_data = answer_data;
  if (tty_fd >= 0)
    {
      g_autoptr(GInputStream) raw = g_unix_input_stream_new (tty_fd, FALSE);
      self->input = g_data_input_stream_new (raw);
    }
  return OW_ATTENDANT (self);
}
