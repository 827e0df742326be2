/* ow-session-host.c: live sessions in a long-running process (see
 * ow-session-host.h).
 *
 * Each loaded session is a Live: the OwSession, and — built when the first
 * turn needs them — its agent and its sandbox. The agent is dropped and
 * rebuilt when the model changes; the sandbox lives as long as the Live.
 * Asks go to the host's inbox through one inbox attendant, so answering
 * from any surface is ow_inbox_resolve() on the item, wherever it came from;
 * a session set to attendance "auto" (ow_session_host_set_attendance())
 * has its asks answered by rule instead, while the sessions beside it park
 * theirs.
 *
 * A turn: (start the sandbox if it is not running) → ow_agent_run_message_async
 * → "turn_done". A session found with a turn that never finished (the
 * process died) gets "interrupted" and "turn_done" when it is loaded, and
 * its history is repaired (tool calls without results are answered
 * "interrupted") so that a retry can continue it — unless the turn was
 * waiting on an inbox ask (stopped or killed while it waited): then it is
 * parked, its calls stay unanswered, and a turn started without a message
 * takes them up with the inbox's answers.
 */
#define G_LOG_DOMAIN "ow-session-host"

#include "core/ow-session-host.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "core/ow-agent.h"
#include "core/ow-coworker.h"
#include "core/ow-message.h"
#include "core/ow-session-recipe.h"
#include "core/ow-session-title.h"
#include "mcp/ow-mcp-auth.h"
#include "mcp/ow-mcp-provider.h"
#include "ow-error.h"
#include "ow-json.h"
#include "providers/ow-provider-catalog.h"
#include "policy/ow-policy.h"
#include "policy/ow-reviewer.h"
#include "policy/ow-safety.h"
#include "sandbox/ow-session-sandbox.h"
#include "store/ow-model-config.h"
#include "tools/ow-tool-registry.h"

G_DEFINE_QUARK (ow-host-error-quark, ow_host_error)

typedef struct {
  OwSessionHost    *host;        /* borrowed: the host owns the Live */
  OwSession        *session;
  OwAgent          *agent;       /* NULL until the first turn, or after a model change */
  OwSessionSandbox *sandbox;     /* NULL until the first turn */
  gboolean          sandbox_up;  /* started and proved */
  GCancellable     *turn;        /* the running turn's, or NULL when idle */
  JsonObject       *pending;     /* the user message waiting for the sandbox to start */
  char             *request;     /* its text */
  gboolean          parked;      /* its last turn stopped while an ask waited: it resumes */
  OwAttendant      *attendant;   /* attendance "auto": answers by rule; NULL: the host's inbox attendant */
  JsonObject       *unsent;      /* the last user message whose turn could not start (no model, no key):
                                    never in the history, so Retry sends it again */
  char             *unsent_request;
  gulong            event_id;
  guint             title_attempts; /* model calls for a title made in this process */
  gboolean          titling;        /* one is in flight */
} Live;

struct _OwSessionHost
{
  GObject      parent_instance;

  OwContext   *ctx;
  char        *origin;
  OwInbox     *inbox;
  OwAttendant *attendant;
  OwPolicy    *policy;
  GHashTable  *live;     /* session id → Live* */
  GPtrArray   *mcp;      /* OwMcpProvider*: the machine's MCP servers, shared by its sessions */
  GPtrArray   *mcp_list; /* the same, NULL-terminated (borrowed), for recipes */
  GPtrArray   *mcp_configs; /* OwMcpServerConfig*: what each of mcp was started with, same order */
};

enum {
  SIGNAL_SESSION_EVENT,
  SIGNAL_SESSIONS_CHANGED,
  SIGNAL_MCP_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void settle (Live *live);
static gboolean start_turn (Live *live, JsonObject *user, const char *request, GError **error);

G_DEFINE_FINAL_TYPE (OwSessionHost, ow_session_host, G_TYPE_OBJECT)

static void
live_free (Live *live)
{
  if (live->turn != NULL)
    g_cancellable_cancel (live->turn);
  if (live->event_id != 0)
    g_signal_handler_disconnect (live->session, live->event_id);
  if (live->sandbox != NULL)
    ow_session_sandbox_stop (live->sandbox);
  g_clear_object (&live->agent);
  g_clear_object (&live->attendant);
  g_clear_object (&live->sandbox);
  g_clear_object (&live->turn);
  g_clear_pointer (&live->pending, json_object_unref);
  g_free (live->request);
  g_clear_pointer (&live->unsent, json_object_unref);
  g_free (live->unsent_request);
  g_clear_object (&live->session);
  g_free (live);
}

static void
emit_event (Live *live, const char *type, JsonObject *data)
{
  g_autoptr(GError) error = NULL;

  if (!ow_session_emit (live->session, type, data != NULL ? data : json_object_new (), &error))
    g_warning ("Could not record %s for session %s: %s", type, ow_session_get_id (live->session), error->message);
}

/* Events after which a session list row reads differently: liveness
 * (working / idle) and attention (asks waiting on a person). */
static gboolean
changes_list_row (const char *type)
{
  static const char *const types[] = { "turn_start", "turn_done", "turn_parked", "permission_required", "question",
                                       "directory_requested", "site_requested", "approval_resolved", NULL };

  return g_strv_contains (types, type);
}

static void
on_session_event_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  Live *live = user_data;

  g_signal_emit (live->host, signals[SIGNAL_SESSION_EVENT], 0, ow_session_get_id (session), event);
  if (changes_list_row (event->type))
    g_signal_emit (live->host, signals[SIGNAL_SESSIONS_CHANGED], 0);
}

/* ---- Recovery after a crash -------------------------------------------- */

typedef struct {
  char *type;
} LastEvent;

static void
last_event_cb (gint64 seq, gint64 ts_ms, const char *type, const char *data, gpointer user_data)
{
  LastEvent *last = user_data;

  g_free (last->type);
  last->type = g_strdup (type);
}

/* Answers, as interrupted, every tool call of the last assistant message
 * that has no result, so the history is valid for any provider again. */
static void
repair_history (Live *live)
{
  g_autoptr(GPtrArray) calls = ow_session_dup_unanswered_calls (live->session);

  for (guint i = 0; i < calls->len; i++)
    {
      OwToolCall *call = g_ptr_array_index (calls, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonObject) result = ow_message_json_tool (
        call->id, "{\"error\":\"interrupted: OpenWorker stopped before this tool call finished; it may or may not "
                  "have run. Check before repeating it.\"}");

      if (!ow_session_append_message (live->session, result, &error))
        g_warning ("Could not repair session %s: %s", ow_session_get_id (live->session), error->message);
    }
}

/* Whether the history ends with a call whose ask is in the inbox and not
 * settled: waiting for its answer, or answered and not acted on yet. Such
 * a turn was parked (a stop, or a crash while it waited) and resumes. */
static gboolean
waits_on_inbox (Live *live)
{
  g_autoptr(GPtrArray) calls = ow_session_dup_unanswered_calls (live->session);

  for (guint i = 0; i < calls->len; i++)
    {
      OwToolCall *call = g_ptr_array_index (calls, i);
      g_autoptr(OwInboxItem) item = ow_inbox_find (live->host->inbox, ow_session_get_id (live->session), call->id,
                                                   NULL);
      if (item != NULL && item->execution == NULL)
        return TRUE;
    }
  return FALSE;
}

static void
recover (Live *live)
{
  OwStore *store = ow_context_get_store (live->host->ctx);
  const char *id = ow_session_get_id (live->session);
  gint64 last = ow_session_get_last_seq (live->session);
  LastEvent ev = { NULL };

  if (last <= 0)
    return;
  ow_store_event_foreach_since (store, id, last - 1, last_event_cb, &ev, NULL);
  live->parked = waits_on_inbox (live);
  if (live->parked)
    {
      /* Killed while it waited: closed like a clean stop closes it. The
       * calls stay unanswered for the resumed turn. */
      if (ev.type != NULL && !g_str_equal (ev.type, "turn_done"))
        {
          JsonObject *data = json_object_new ();
          json_object_set_string_member (data, "reason", "OpenWorker stopped while an ask waited in the inbox; "
                                         "the turn goes on once it is answered.");
          emit_event (live, "turn_parked", data);
          emit_event (live, "turn_done", NULL);
        }
    }
  else if (ev.type != NULL && !g_str_equal (ev.type, "turn_done"))
    {
      if (!g_str_equal (ev.type, "turn_end") && !g_str_equal (ev.type, "interrupted"))
        {
          JsonObject *data = json_object_new ();
          json_object_set_int_member (data, "iterations", 0);
          json_object_set_string_member (data, "reason", "OpenWorker stopped during this turn; retry to continue it.");
          json_object_set_boolean_member (data, "retryable", TRUE);
          emit_event (live, "interrupted", data);
        }
      repair_history (live);
      emit_event (live, "turn_done", NULL);
    }
  else
    repair_history (live);   /* a parked turn whose asks were settled elsewhere */
  g_free (ev.type);
}

/* A command-line run waits on its asks in its own process, which may
 * still be running; stopped, it says so in its record and is not taken up
 * (nor loaded, which repairs a history) by another process. */
static gboolean
may_take_up (OwSessionHost *self, const char *session_id)
{
  g_autoptr(OwSessionRow) row = ow_store_session_get (ow_context_get_store (self->ctx), session_id, NULL);

  return row != NULL && g_strcmp0 (row->origin, "cli") != 0;
}

/* Takes up a parked turn: its calls first, with the answers the inbox has
 * (or waiting for them there again). */
static void
resume (Live *live)
{
  g_autoptr(GError) error = NULL;

  if (!live->parked || live->turn != NULL)
    return;
  live->parked = FALSE;
  if (!start_turn (live, NULL, NULL, &error))
    g_message ("Could not resume session %s: %s", ow_session_get_id (live->session), error->message);
}

/* A person moved on (a new message, a stop): the parked asks are withdrawn
 * and the calls answered, so the history is whole again. */
static void
unpark (Live *live, const char *why)
{
  ow_inbox_withdraw (live->host->inbox, ow_session_get_id (live->session), why);
  if (live->parked)
    repair_history (live);
  live->parked = FALSE;
}

/* ---- Loading ------------------------------------------------------------ */

static Live *
adopt (OwSessionHost *self, OwSession *session)
{
  Live *live = g_new0 (Live, 1);

  live->host = self;
  live->session = session;
  live->event_id = g_signal_connect (session, "event", G_CALLBACK (on_session_event_cb), live);
  g_hash_table_insert (self->live, g_strdup (ow_session_get_id (session)), live);
  return live;
}

static Live *
lookup (OwSessionHost *self, const char *session_id, GError **error)
{
  Live *live = g_hash_table_lookup (self->live, session_id);
  g_autoptr(GError) local = NULL;
  OwSession *session;

  if (live != NULL)
    return live;
  session = ow_session_load (ow_context_get_store (self->ctx), session_id, &local);
  if (session == NULL)
    {
      if (g_error_matches (local, OW_STORE_ERROR, OW_STORE_ERROR_NOT_FOUND))
        g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NOT_FOUND, "There is no session %s.", session_id);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  live = adopt (self, session);
  recover (live);
  return live;
}

OwSession *
ow_session_host_get (OwSessionHost *self, const char *session_id, GError **error)
{
  Live *live;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  live = lookup (self, session_id, error);
  return live != NULL ? g_object_ref (live->session) : NULL;
}

static char *
new_id (void)
{
  return g_strdup_printf ("%08x%04x", g_random_int (), g_random_int () & 0xffff);
}

OwSession *
ow_session_host_create (OwSessionHost *self, const OwSessionSpec *spec, GError **error)
{
  OwSessionSpec s = *spec;
  g_autofree char *id = spec->session_id != NULL ? g_strdup (spec->session_id) : new_id ();
  g_autofree char *scratch = NULL;
  g_autofree char *default_model = NULL;
  OwSession *session;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), NULL);

  s.session_id = id;
  if (s.coworker == NULL)
    s.coworker = "cowork";
  if (ow_coworker_lookup (s.coworker) == NULL)
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "There is no coworker \"%s\".", s.coworker);
      return NULL;
    }
  {
    const char *asked = s.mode;

    s.mode = ow_approval_mode_effective (asked, ow_context_get_config (self->ctx));
    /* The config's value was checked when it was read: only a request's
     * can be wrong here. */
    if (s.mode == NULL)
      {
        g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "\"%s\" is not an approval mode.", asked);
        return NULL;
      }
  }
  if (s.model == NULL)
    s.model = default_model = ow_context_dup_default_model (self->ctx);
  if (s.origin == NULL)
    s.origin = self->origin;
  if (s.workspace == NULL)
    {
      /* A session without a folder works in a scratch folder of its own. */
      scratch = ow_context_dup_session_scratch (self->ctx, id);
      if (g_mkdir_with_parents (scratch, 0700) != 0)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Could not create %s: %s", scratch,
                       g_strerror (errno));
          return NULL;
        }
      s.workspace = scratch;
    }
  else if (!g_file_test (s.workspace, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "%s is not a folder.", s.workspace);
      return NULL;
    }
  session = ow_session_new (ow_context_get_store (self->ctx), &s, error);
  if (session == NULL)
    return NULL;
  if (spec->workspace != NULL)
    ow_store_touch_workspace (ow_context_get_store (self->ctx), ow_session_get_workspace (session), NULL);
  adopt (self, session);
  g_signal_emit (self, signals[SIGNAL_SESSIONS_CHANGED], 0);
  return g_object_ref (session);
}

void
ow_session_host_unload (OwSessionHost *self, const char *session_id)
{
  Live *live;

  g_return_if_fail (OW_IS_SESSION_HOST (self));
  live = g_hash_table_lookup (self->live, session_id);
  if (live == NULL)
    return;
  settle (live);
  g_hash_table_remove (self->live, session_id);
}

gboolean
ow_session_host_delete (OwSessionHost *self, const char *session_id, GError **error)
{
  Live *live;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), FALSE);

  live = lookup (self, session_id, error);

  if (live == NULL)
    return FALSE;
  settle (live);
  g_hash_table_remove (self->live, session_id);
  ow_inbox_withdraw (self->inbox, session_id, "session deleted");
  if (!ow_store_session_delete (ow_context_get_store (self->ctx), session_id, error))
    return FALSE;
  g_signal_emit (self, signals[SIGNAL_SESSIONS_CHANGED], 0);
  return TRUE;
}

/* ---- Building the agent ------------------------------------------------- */

static gboolean
ensure_sandbox (Live *live, GError **error)
{
  OwSessionHost *self = live->host;
  g_auto(GStrv) protected_names = ow_safety_protected_names ();
  g_auto(GStrv) credential_paths = ow_safety_credential_paths (g_get_home_dir ());
  OwSessionSandboxOptions options = {
    .protected_names = (const char *const *) protected_names,
    .credential_paths = (const char *const *) credential_paths,
    .config = ow_context_get_config (self->ctx),
    .paths = ow_context_get_paths (self->ctx),
    .session_id = ow_session_get_id (live->session),
    .roots = ow_session_get_roots (live->session),
    .cwd = ow_session_get_workspace (live->session),
    .isolated = ow_context_is_isolated (self->ctx),
  };

  if (live->sandbox != NULL)
    return TRUE;
  live->sandbox = ow_session_sandbox_new (&options, error);
  return live->sandbox != NULL;
}

/* The session's model, choosing the default when it has none yet. */
static const char *
turn_model (Live *live, GError **error)
{
  OwSessionHost *self = live->host;
  OwSession *session = live->session;
  const char *model = ow_session_get_model (session);

  if (model == NULL || *model == '\0')
    {
      /* Made before any model was set up: it takes the default chosen since
       * (saving the first key picks one), rather than failing for good. */
      g_autofree char *chosen = ow_context_dup_default_model (self->ctx);

      if (chosen != NULL && ow_session_set_model (session, chosen, NULL))
        {
          JsonObject *data = json_object_new ();
          json_object_set_string_member (data, "model", chosen);
          emit_event (live, "model_changed", data);
          model = ow_session_get_model (session);
        }
    }
  if (model == NULL || *model == '\0')
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                           "No model is chosen for this session. Add a key in Models & Keys and pick a model.");
      return NULL;
    }
  return model;
}

/* Builds the agent around @provider (made for the session's model; its
 * key was read off the main loop, see start_turn()). */
static gboolean
build_agent (Live *live, OwProvider *provider, const char *bare, GError **error)
{
  OwSessionHost *self = live->host;
  OwContext *ctx = self->ctx;
  OwSession *session = live->session;
  const char *model = ow_session_get_model (session);
  const OwCoworker *coworker = ow_coworker_lookup (ow_session_get_coworker (session));
  g_autoptr(OwModelConfig) model_config = NULL;
  g_auto(OwModelSettings) settings = { 0 };
  g_autofree char *spill = NULL;
  gint64 cap = 150, result_max = 10000;

  if (live->agent != NULL)
    return TRUE;
  if (coworker == NULL)
    coworker = ow_coworker_lookup ("cowork");
  if (!ensure_sandbox (live, error))
    return FALSE;

  ow_config_get_int (ow_context_get_config (ctx), "max_iterations", &cap);
  ow_config_get_int (ow_context_get_config (ctx), "tool_result_max_bytes", &result_max);
  if (!ow_context_is_isolated (ctx))
    {
      g_autofree char *path = g_build_filename (ow_context_get_paths (ctx)->config_dir, "model_config.json", NULL);
      model_config = ow_model_config_load (path, NULL);
    }
  spill = g_build_filename (ow_context_get_paths (ctx)->state_dir, "tool-output", ow_session_get_id (session), NULL);
  {
    OwSessionRecipe recipe = {
      .context = ctx,
      .session = session,
      .coworker = coworker,
      .provider = provider,
      .bare_model = bare,
      .sandbox = live->sandbox,
      .policy = self->policy,
      .attendant = live->attendant != NULL ? live->attendant : self->attendant,
      .web_search_provider = ow_config_get_string (ow_context_get_config (ctx), "web_search_provider"),
      .max_iterations = (guint) CLAMP (cap, 1, G_MAXUINT),
      .settings = model_config != NULL && ow_model_config_lookup (model_config, model, &settings) ? &settings : NULL,
      .result_max = (gsize) MAX (result_max, 0),
      .spill_dir = spill,
      .tool_providers = (OwToolProvider *const *) self->mcp_list->pdata,
    };

    live->agent = ow_session_recipe_build (&recipe, error);
  }
  return live->agent != NULL;
}

/* auto-approve needs its reviewer; the mode can change between turns. */
static gboolean
needs_reviewer (Live *live)
{
  return g_str_equal (ow_session_get_mode (live->session), "auto-approve")
         && (live->agent == NULL || ow_agent_get_reviewer (live->agent) == NULL);
}

/* The reviewer's model: config `reviewer_model`, else the session's. */
static const char *
reviewer_model (Live *live)
{
  const char *configured = ow_config_get_string (ow_context_get_config (live->host->ctx), "reviewer_model");

  return configured != NULL ? configured : ow_session_get_model (live->session);
}

/* Gives the agent its reviewer, made with @provider. */
static void
install_reviewer (Live *live, OwProvider *provider, const char *bare)
{
  ow_session_recipe_add_reviewer (live->agent, NULL, provider, bare);
}

/* ---- Turns ---------------------------------------------------------------- */

static void
turn_over (Live *live)
{
  g_clear_object (&live->turn);
  g_clear_pointer (&live->pending, json_object_unref);
  g_clear_pointer (&live->request, g_free);
  emit_event (live, "turn_done", NULL);
}

/* A turn that could not start: the reason as an "error" event, then turn_done. */
static void
turn_failed (Live *live, const GError *error)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "error", error->message);
  json_object_set_string_member (data, "error_type",
                                 error->domain == OW_SANDBOX_ERROR ? "SandboxError"
                                 : error->domain == OW_PROVIDER_ERROR ? "ProviderError" : "SetupError");
  emit_event (live, "error", data);
  turn_over (live);
}

/* ---- Titles ---------------------------------------------------------------- */

typedef struct {
  OwSessionHost *host;        /* owned reference */
  char          *session_id;
  OwProvider    *provider;    /* owned reference, once made */
  JsonArray     *messages;    /* what the title is asked from (owned) */
  char          *bare;        /* the model as the wire wants it */
} TitleCall;

static void
title_call_free (TitleCall *t)
{
  g_object_unref (t->host);
  g_free (t->session_id);
  g_clear_object (&t->provider);
  g_clear_pointer (&t->messages, json_array_unref);
  g_free (t->bare);
  g_free (t);
}

static void
on_title_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TitleCall *t = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwCallInfo) info = NULL;
  g_autoptr(OwTurn) turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &info, NULL, &error);
  Live *live = g_hash_table_lookup (t->host->live, t->session_id);
  g_autofree char *title = turn != NULL ? ow_session_title_from_reply (turn->text->str) : NULL;

  if (live != NULL)
    live->titling = FALSE;
  /* A failed call or a greeting leaves the title to the first line; the
   * next turn may try again. */
  if (title != NULL && live != NULL)
    {
      g_autoptr(GError) local = NULL;
      if (ow_store_session_set_auto_title (ow_context_get_store (t->host->ctx), t->session_id, title, &local))
        {
          JsonObject *data = json_object_new ();
          json_object_set_string_member (data, "session_id", t->session_id);
          json_object_set_string_member (data, "title", title);
          emit_event (live, "session_title", data);
          g_signal_emit (t->host, signals[SIGNAL_SESSIONS_CHANGED], 0);
        }
      else
        g_message ("Could not save the title of session %s: %s", t->session_id, local->message);
    }
  else if (error != NULL)
    g_debug ("No title for session %s: %s", t->session_id, error->message);
  title_call_free (t);
}

static void
on_title_provider_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TitleCall *t = user_data;
  g_autoptr(GError) error = NULL;
  OwModelRequest req;

  t->provider = ow_context_create_provider_finish (OW_CONTEXT (source), result, &t->bare, NULL, &error);
  if (t->provider == NULL)
    {
      Live *live = g_hash_table_lookup (t->host->live, t->session_id);

      if (live != NULL)
        live->titling = FALSE;
      g_debug ("No title for session %s: %s", t->session_id, error->message);
      title_call_free (t);
      return;
    }
  ow_model_request_init (&req);
  req.model = t->bare;
  req.messages = t->messages;
  req.stream = FALSE;
  req.max_output_tokens = OW_SESSION_TITLE_MAX_TOKENS;
  req.temperature = 0.2;
  ow_provider_complete_async (t->provider, &req, NULL, NULL, NULL, on_title_cb, t);
}

/* The first user texts (at most two), each bounded: what the title is
 * made from. */
static GStrv
openers_of (OwSession *session)
{
  GPtrArray *out = g_ptr_array_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (session));

  for (guint i = 0; i < n && out->len < 2; i++)
    {
      JsonObject *m = ow_session_get_message_json (session, i);
      g_autoptr(OwMessage) msg = NULL;
      char *text;

      if (g_strcmp0 (ow_json_get_string (m, "role"), "user") != 0)
        continue;
      msg = ow_message_new (m);
      text = ow_message_dup_text (msg);
      if (*g_strstrip (text) == '\0')
        {
          g_free (text);
          continue;
        }
      if (g_utf8_strlen (text, -1) > 2000)
        *g_utf8_offset_to_pointer (text, 2000) = '\0';
      g_ptr_array_add (out, text);
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

/* After a turn: a session no person renamed and no model titled yet asks
 * its model for a title (ow-session-title.h). OPENWORKER_AUTO_TITLE=0
 * turns this off (it costs a model call; scripted tests count calls). */
static void
maybe_title (Live *live)
{
  OwSessionHost *self = live->host;
  const char *off = g_getenv ("OPENWORKER_AUTO_TITLE");
  const char *model = ow_session_get_model (live->session);
  g_autoptr(GPtrArray) rows = NULL;
  g_auto(GStrv) openers = NULL;
  OwSessionListRow *row;
  TitleCall *t;

  if ((off != NULL && (g_str_equal (off, "0") || g_ascii_strcasecmp (off, "off") == 0
                       || g_ascii_strcasecmp (off, "false") == 0))
      || live->titling || live->title_attempts >= OW_SESSION_TITLE_ATTEMPTS || model == NULL || *model == '\0')
    return;
  rows = ow_store_session_list (ow_context_get_store (self->ctx), NULL, ow_session_get_id (live->session), NULL);
  row = rows != NULL && rows->len > 0 ? g_ptr_array_index (rows, 0) : NULL;
  if (row == NULL || row->renamed || (row->auto_title != NULL && *row->auto_title != '\0'))
    return;
  openers = openers_of (live->session);
  if (openers[0] == NULL)
    return;
  live->title_attempts++;
  live->titling = TRUE;
  t = g_new0 (TitleCall, 1);
  t->host = g_object_ref (self);
  t->session_id = g_strdup (ow_session_get_id (live->session));
  t->messages = ow_session_title_messages ((const char *const *) openers);
  /* The key may be in the keyring: read off the main loop (usually kept
   * from the turn just made). */
  ow_context_create_provider_async (self->ctx, model, NULL, on_title_provider_cb, t);
}

static void
on_turn_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *id = user_data;
  OwSessionHost *self = g_object_get_data (source, "ow-host");
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurnResult) turn = ow_agent_run_finish (OW_AGENT (source), result, &error);
  Live *live = self != NULL ? g_hash_table_lookup (self->live, id) : NULL;

  if (live == NULL || live->agent != OW_AGENT (source))
    return;  /* unloaded or rebuilt meanwhile */
  if (turn == NULL)
    {
      turn_failed (live, error);
      return;
    }
  turn_over (live);
  if (turn->outcome == OW_OUTCOME_COMPLETED)
    maybe_title (live);
}

static void
run_turn (Live *live)
{
  g_object_set_data (G_OBJECT (live->agent), "ow-host", live->host);
  ow_agent_run_message_async (live->agent, live->pending, live->request, live->turn, on_turn_done_cb,
                              g_strdup (ow_session_get_id (live->session)));
}

static void
on_sandbox_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *id = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = ow_session_sandbox_start_finish (OW_SESSION_SANDBOX (source), result, &error);
  OwSessionHost *self = g_object_get_data (source, "ow-host");
  Live *live = self != NULL ? g_hash_table_lookup (self->live, id) : NULL;

  if (live == NULL || live->sandbox != OW_SESSION_SANDBOX (source) || live->turn == NULL)
    return;
  if (!ok)
    {
      /* Never run without the wall: the turn is refused with the reason. */
      g_prefix_error (&error, "The %s sandbox could not be started, so nothing was run: ",
                      ow_session_sandbox_get_provider (live->sandbox));
      g_clear_object (&live->agent);
      ow_session_sandbox_stop (live->sandbox);
      g_clear_object (&live->sandbox);
      turn_failed (live, error);
      return;
    }
  live->sandbox_up = TRUE;
  run_turn (live);
}

/* ---- Starting a turn: providers first, off the main loop ---------------------
 *
 * A turn needs the model's provider (for a new agent) and, in auto-approve,
 * the reviewer's. Their keys may be in the keyring, which can block on
 * D-Bus for as long as a locked keyring waits on a person, so they are made
 * with ow_context_create_provider_async(); the turn goes on in
 * begin_turn() once both are there, and the main loop keeps serving the
 * other sessions and surfaces meanwhile.
 */

typedef struct {
  OwSessionHost *host;             /* owned reference */
  char          *session_id;
  GCancellable  *turn;             /* owned reference: the turn this is for */
  OwProvider    *provider;         /* the model's, or NULL when the agent exists already */
  char          *bare;
  gboolean       want_reviewer;
  OwProvider    *reviewer;         /* the reviewer's, or NULL */
  char          *reviewer_bare;
  GError        *reviewer_error;   /* why there is no reviewer */
} TurnSetup;

static void
turn_setup_free (TurnSetup *t)
{
  g_object_unref (t->host);
  g_free (t->session_id);
  g_object_unref (t->turn);
  g_clear_object (&t->provider);
  g_free (t->bare);
  g_clear_object (&t->reviewer);
  g_free (t->reviewer_bare);
  g_clear_error (&t->reviewer_error);
  g_free (t);
}

/* The Live @t is still for: not unloaded, and the same turn. */
static Live *
turn_setup_live (TurnSetup *t)
{
  Live *live = g_hash_table_lookup (t->host->live, t->session_id);

  return live != NULL && live->turn == t->turn ? live : NULL;
}

/* A turn that ends before it began: its message never reached the
 * history, so it is kept for Retry; the surfaces see a turn start. */
static void
keep_unsent (Live *live)
{
  JsonObject *data = json_object_new ();

  if (live->pending != NULL)
    {
      /* Referenced before the old one goes: Retry passes that one. */
      JsonObject *keep = json_object_ref (live->pending);
      char *keep_request = g_strdup (live->request);

      g_clear_pointer (&live->unsent, json_object_unref);
      g_free (live->unsent_request);
      live->unsent = keep;
      live->unsent_request = keep_request;
    }
  json_object_set_string_member (data, "input", live->request != NULL ? live->request : "");
  emit_event (live, "turn_start", data);
}

/* The turn could not start: said on the session, where every surface sees
 * it, and the message kept for Retry. */
static void
turn_refused (Live *live, const GError *error)
{
  keep_unsent (live);
  turn_failed (live, error);
}

static void
begin_turn (Live *live, TurnSetup *t)
{
  g_autoptr(GError) local = NULL;

  if (!build_agent (live, t->provider, t->bare, &local))
    {
      turn_refused (live, local);
      return;
    }
  if (t->want_reviewer && ow_agent_get_reviewer (live->agent) == NULL)
    {
      if (t->reviewer == NULL)
        {
          g_autoptr(GError) why = g_error_copy (t->reviewer_error);

          g_prefix_error (&why, "auto-approve needs a reviewer model: ");
          turn_refused (live, why);
          return;
        }
      install_reviewer (live, t->reviewer, t->reviewer_bare);
    }
  if (live->pending != NULL)
    {
      /* live->pending holds the message now. */
      g_clear_pointer (&live->unsent, json_object_unref);
      g_clear_pointer (&live->unsent_request, g_free);
    }
  if (!live->sandbox_up && !g_str_equal (ow_session_sandbox_get_provider (live->sandbox), "direct"))
    {
      g_object_set_data (G_OBJECT (live->sandbox), "ow-host", live->host);
      ow_session_sandbox_start_async (live->sandbox, NULL, on_sandbox_started_cb,
                                      g_strdup (ow_session_get_id (live->session)));
      return;
    }
  live->sandbox_up = TRUE;
  run_turn (live);
}

/* Stopped while a key was being read: the turn ends before it began, and
 * a message that never reached the history stays for Retry. */
static void
turn_stopped_early (Live *live)
{
  JsonObject *stopped = json_object_new ();

  keep_unsent (live);
  json_object_set_int_member (stopped, "iterations", 0);
  emit_event (live, "interrupted", stopped);
  turn_over (live);
}

static void
on_reviewer_provider_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TurnSetup *t = user_data;
  Live *live;

  t->reviewer = ow_context_create_provider_finish (OW_CONTEXT (source), result, &t->reviewer_bare, NULL,
                                                   &t->reviewer_error);
  live = turn_setup_live (t);
  if (live != NULL && g_error_matches (t->reviewer_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    turn_stopped_early (live);
  else if (live != NULL)
    begin_turn (live, t);
  turn_setup_free (t);
}

static void
setup_reviewer (TurnSetup *t)
{
  Live *live = turn_setup_live (t);

  if (live == NULL)
    {
      turn_setup_free (t);
      return;
    }
  if (!t->want_reviewer)
    {
      begin_turn (live, t);
      turn_setup_free (t);
      return;
    }
  ow_context_create_provider_async (t->host->ctx, reviewer_model (live), t->turn, on_reviewer_provider_cb, t);
}

static void
on_turn_provider_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  TurnSetup *t = user_data;
  g_autoptr(GError) error = NULL;
  Live *live;

  t->provider = ow_context_create_provider_finish (OW_CONTEXT (source), result, &t->bare, NULL, &error);
  live = turn_setup_live (t);
  if (live == NULL)
    turn_setup_free (t);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      turn_stopped_early (live);
      turn_setup_free (t);
    }
  else if (t->provider == NULL)
    {
      turn_refused (live, error);
      turn_setup_free (t);
    }
  else
    setup_reviewer (t);
}

static gboolean
start_turn (Live *live, JsonObject *user, const char *request, GError **error)
{
  g_autoptr(GError) local = NULL;
  TurnSetup *t;

  if (live->turn != NULL)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY,
                           "This session is already running a turn. Wait for it to finish or stop it.");
      return FALSE;
    }
  live->turn = g_cancellable_new ();
  live->pending = user != NULL ? json_object_ref (user) : NULL;
  live->request = g_strdup (request);

  t = g_new0 (TurnSetup, 1);
  t->host = g_object_ref (live->host);
  t->session_id = g_strdup (ow_session_get_id (live->session));
  t->turn = g_object_ref (live->turn);
  t->want_reviewer = needs_reviewer (live);
  if (live->agent == NULL)
    {
      const char *model = turn_model (live, &local);

      if (model == NULL)
        {
          turn_setup_free (t);
          turn_refused (live, local);
          return TRUE;
        }
      ow_context_create_provider_async (live->host->ctx, model, live->turn, on_turn_provider_cb, t);
      return TRUE;
    }
  setup_reviewer (t);
  return TRUE;
}

/* Stops @live's turn and waits (at most 5 s) for the agent to wind down,
 * so nothing it still writes lands after the session or the store is gone.
 * The process (or the session) goes, not the person's wish: a turn waiting
 * on an ask is parked, the ask stays in the inbox, and the turn resumes
 * after a restart (ow_session_host_resume_parked) or once it is answered. */
static void
settle (Live *live)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  if (live->turn == NULL)
    return;
  if (live->agent != NULL)
    ow_agent_park (live->agent);
  g_cancellable_cancel (live->turn);
  while (live->turn != NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (live->turn != NULL)
    g_warning ("The turn of session %s did not stop within 5 s.", ow_session_get_id (live->session));
}

gboolean
ow_session_host_send (OwSessionHost *self,
                      const char    *session_id,
                      const char    *text,
                      JsonArray     *attachments,
                      GError       **error)
{
  Live *live;
  g_autoptr(JsonObject) user = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), FALSE);

  live = lookup (self, session_id, error);
  if (live == NULL)
    return FALSE;
  if (live->turn != NULL)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY,
                           "This session is already running a turn. Wait for it to finish or stop it.");
      return FALSE;
    }
  user = ow_message_json_user_parts (text, attachments, &local);
  if (user == NULL)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, local->message);
      return FALSE;
    }
  if (live->parked)
    unpark (live, "superseded by a new message");
  return start_turn (live, user, text != NULL ? text : "", error);
}

gboolean
ow_session_host_retry (OwSessionHost *self, const char *session_id, GError **error)
{
  Live *live = lookup (self, session_id, error);
  guint n;
  JsonObject *tail;

  if (live == NULL)
    return FALSE;
  if (live->parked && live->turn == NULL)
    {
      /* Retrying a parked turn is taking it up: its asks still count. */
      live->parked = FALSE;
      return start_turn (live, NULL, NULL, error);
    }
  /* A first turn that could not start (no model yet, no key) left the
   * person's message outside the history: Retry sends it now. */
  if (live->unsent != NULL)
    {
      g_autoptr(JsonObject) user = json_object_ref (live->unsent);
      g_autofree char *request = g_strdup (live->unsent_request);

      return start_turn (live, user, request, error);
    }
  n = g_list_model_get_n_items (G_LIST_MODEL (live->session));
  tail = n > 0 ? ow_session_get_message_json (live->session, n - 1) : NULL;
  if (tail == NULL || g_strcmp0 (ow_json_get_string (tail, "role"), "system") == 0)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "There is nothing to retry yet.");
      return FALSE;
    }
  if (g_strcmp0 (ow_json_get_string (tail, "role"), "assistant") == 0 && ow_json_get_array (tail, "tool_calls") == NULL)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                           "The last turn finished with an answer; send a new message instead.");
      return FALSE;
    }
  repair_history (live);
  return start_turn (live, NULL, NULL, error);
}

gboolean
ow_session_host_is_running (OwSessionHost *self, const char *session_id)
{
  Live *live = g_hash_table_lookup (self->live, session_id);

  return live != NULL && live->turn != NULL;
}

void
ow_session_host_interrupt (OwSessionHost *self, const char *session_id)
{
  Live *live = g_hash_table_lookup (self->live, session_id);

  if (live == NULL)
    return;
  /* The person's stop withdraws the cards (a process's stop parks them).
   * Cancelled first, so the withdrawn answer reads as the stop it is. */
  if (live->turn != NULL)
    g_cancellable_cancel (live->turn);
  unpark (live, "interrupted");
}

GPtrArray *
ow_session_host_dup_running (OwSessionHost *self)
{
  GPtrArray *ids = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->live);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (((Live *) value)->turn != NULL)
      g_ptr_array_add (ids, key);
  return ids;
}

/* ---- Live changes ------------------------------------------------------------- */

gboolean
ow_session_host_set_mode (OwSessionHost *self, const char *session_id, const char *mode, gboolean allow_dangerous,
                          GError **error)
{
  Live *live = lookup (self, session_id, error);
  const char *canonical = mode != NULL ? ow_approval_mode_canonical (mode) : NULL;
  JsonObject *data;

  if (live == NULL)
    return FALSE;
  if (canonical == NULL)
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "\"%s\" is not an approval mode.", mode != NULL ? mode : "");
      return FALSE;
    }
  if (g_str_equal (canonical, "dangerously-bypass-approvals") && !allow_dangerous)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                           "dangerously-bypass-approvals switches the safety checks off; it can only be chosen "
                           "for a headless run on a disposable machine, not from here.");
      return FALSE;
    }
  if (!ow_session_set_mode (live->session, canonical, error))
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "mode", canonical);
  emit_event (live, "mode_changed", data);
  return TRUE;
}

/* Whether any user message of @history holds an image or a PDF part. */
static gboolean
history_has_media (JsonArray *history)
{
  for (guint i = 0; i < json_array_get_length (history); i++)
    {
      JsonArray *parts = ow_json_get_array (json_array_get_object_element (history, i), "content");

      for (guint j = 0; parts != NULL && j < json_array_get_length (parts); j++)
        {
          JsonNode *part = json_array_get_element (parts, j);
          const char *type = JSON_NODE_HOLDS_OBJECT (part) ? ow_json_get_string (json_node_get_object (part), "type")
                                                           : NULL;
          if (g_strcmp0 (type, "image_url") == 0 || g_strcmp0 (type, "file") == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* A switch in the middle of a conversation leaves a model_switch notice:
 * a line in the transcript, an event for the surfaces, and (through
 * core/ow-outbound.c) a line the new model reads before the next message.
 * When the new model cannot read the images already sent, it says so. */
static gboolean
note_model_switch (Live *live, const char *model, GError **error)
{
  g_autoptr(JsonArray) history = ow_session_dup_history (live->session);
  g_autoptr(GError) local = NULL;
  const OwProviderEntry *entry = NULL;
  g_autofree char *bare = NULL;
  g_autoptr(GString) text = NULL;
  gboolean conversation = FALSE;
  JsonObject *notice, *data;
  gboolean ok;

  for (guint i = 0; i < json_array_get_length (history) && !conversation; i++)
    {
      const char *role = ow_json_get_string (json_array_get_object_element (history, i), "role");
      conversation = g_strcmp0 (role, "user") == 0 || g_strcmp0 (role, "assistant") == 0;
    }
  if (!conversation)
    return TRUE;

  text = g_string_new (NULL);
  g_string_printf (text, "Model switched to %s", model);
  if (ow_model_id_split (model, &entry, &bare, &local)
      && !ow_provider_entry_model_has_vision (entry, bare)
      && history_has_media (history))
    g_string_append (text, " — earlier images can't be read by this model");

  notice = ow_message_json_notice ("model_switch", text->str);
  json_object_set_string_member (notice, "model", model);
  ok = ow_session_append_message (live->session, notice, error);
  json_object_unref (notice);
  if (!ok)
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "model", model);
  json_object_set_string_member (data, "text", text->str);
  emit_event (live, "model_switch", data);
  return TRUE;
}

gboolean
ow_session_host_set_model (OwSessionHost *self, const char *session_id, const char *model, GError **error)
{
  Live *live = lookup (self, session_id, error);
  g_autofree char *text = NULL;
  JsonObject *data;

  if (live == NULL)
    return FALSE;
  if (live->turn != NULL)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY,
                           "The model can change between turns only; stop the turn or wait for it.");
      return FALSE;
    }
  /* The id must name a known provider; its key is checked when a turn starts. */
  {
    g_autoptr(GError) local = NULL;
    if (model == NULL || !ow_model_id_split (model, NULL, NULL, &local))
      {
        g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                             local != NULL ? local->message : "No model was given.");
        return FALSE;
      }
  }
  if (g_strcmp0 (ow_session_get_model (live->session), model) == 0)
    return TRUE;
  if (!ow_session_set_model (live->session, model, error))
    return FALSE;
  g_clear_object (&live->agent);
  if (!note_model_switch (live, model, error))
    return FALSE;
  data = json_object_new ();
  text = g_strdup_printf ("Switched to %s.", model);
  json_object_set_string_member (data, "model", model);
  json_object_set_string_member (data, "text", text);
  emit_event (live, "model_changed", data);
  return TRUE;
}

gboolean
ow_session_host_set_attendance (OwSessionHost *self, const char *session_id, const char *attendance, GError **error)
{
  Live *live = lookup (self, session_id, error);
  gboolean by_rule;

  if (live == NULL)
    return FALSE;
  if (g_strcmp0 (attendance, "attended") != 0 && g_strcmp0 (attendance, "inbox") != 0
      && g_strcmp0 (attendance, "auto") != 0)
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                   "Attendance \"%s\" is not one of attended, inbox or auto.", attendance != NULL ? attendance : "");
      return FALSE;
    }
  if (live->turn != NULL || live->parked)
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY,
                           "Attendance can change between turns only, and not while an ask waits in the inbox.");
      return FALSE;
    }
  by_rule = g_str_equal (attendance, "auto");
  if (by_rule == (live->attendant != NULL))
    return TRUE;
  g_clear_object (&live->attendant);
  if (by_rule)
    live->attendant = ow_rule_attendant_new (g_str_equal (ow_session_get_mode (live->session),
                                                          "dangerously-bypass-approvals"));
  /* The agent holds its attendant: the next turn builds one with this. */
  g_clear_object (&live->agent);
  return TRUE;
}

gboolean
ow_session_host_add_root (OwSessionHost *self, const char *session_id, const char *path, gboolean writable,
                          GError **error)
{
  Live *live = lookup (self, session_id, error);

  if (live == NULL)
    return FALSE;
  if (!ow_session_add_root (live->session, path, writable, "added", error))
    return FALSE;
  if (live->sandbox != NULL)
    ow_executor_set_roots (OW_EXECUTOR (live->sandbox), ow_session_get_roots (live->session));
  return TRUE;
}

/* ---- Answers ----------------------------------------------------------------- */

gboolean
ow_session_host_answer (OwSessionHost *self,
                        const char    *session_id,
                        const char    *call_id,
                        JsonObject    *answer,
                        const char    *answered_by,
                        GError       **error)
{
  g_autoptr(GPtrArray) items = NULL;
  OwInboxItem *item = NULL;
  g_autofree char *resolution = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), FALSE);
  g_return_val_if_fail (answer != NULL, FALSE);

  items = ow_inbox_list (self->inbox, TRUE, error);
  if (items == NULL)
    return FALSE;
  for (guint i = 0; i < items->len; i++)
    {
      OwInboxItem *it = g_ptr_array_index (items, i);
      if (g_strcmp0 (it->session_id, session_id) == 0 && (call_id == NULL || g_strcmp0 (it->call_id, call_id) == 0))
        {
          item = it;
          break;
        }
    }
  if (item == NULL)
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NO_ASK, "Nothing in session %s is waiting for that answer "
                   "(it may have been answered elsewhere).", session_id);
      return FALSE;
    }

  if (g_str_equal (item->kind, "approval"))
    {
      const char *decision = ow_json_get_string (answer, "decision");
      g_autoptr(JsonObject) r = json_object_new ();

      if (decision == NULL)
        {
          g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "An approval needs a decision.");
          return FALSE;
        }
      /* readonly_session is "Allow read-only commands": the agent runs
       * this command when it is read-only and the others like it after. */
      static const char *const known[] = { "once", "allow", "always_tool", "always_command", "session",
                                           "always_task", "always", "deny", "readonly_session", NULL };
      if (!g_strv_contains (known, decision))
        {
          g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID, "\"%s\" is not an approval decision.", decision);
          return FALSE;
        }
      json_object_set_string_member (r, "decision", decision);
      if (ow_json_get_string (answer, "reason") != NULL)
        json_object_set_string_member (r, "reason", ow_json_get_string (answer, "reason"));
      resolution = ow_json_object_to_string (r);
    }
  else
    resolution = ow_json_object_to_string (answer);

  if (!ow_inbox_resolve (self->inbox, item->id, resolution, answered_by != NULL ? answered_by : "person", &local))
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_ANSWERED, "%s", local->message);
      return FALSE;
    }
  /* A turn parked across a restart that could not be resumed then goes
   * on now; a live one hears the answer through the inbox. */
  {
    Live *live = may_take_up (self, session_id) ? lookup (self, session_id, NULL) : NULL;
    if (live != NULL)
      resume (live);
  }
  return TRUE;
}

void
ow_session_host_resume_parked (OwSessionHost *self)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  g_return_if_fail (OW_IS_SESSION_HOST (self));

  ids = ow_inbox_dup_unsettled_sessions (self->inbox, &error);
  if (ids == NULL)
    {
      g_message ("Could not look for parked turns: %s", error->message);
      return;
    }
  for (guint i = 0; ids[i] != NULL; i++)
    {
      Live *live = may_take_up (self, ids[i]) ? lookup (self, ids[i], NULL) : NULL;
      if (live != NULL)
        resume (live);
    }
}

/* ---- Object ------------------------------------------------------------------ */

/* ---- The machine's MCP servers ------------------------------------------ */

static void
on_mcp_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;

  if (!ow_mcp_start_finish (OW_MCP_CLIENT (source), result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("MCP server \"%s\" did not start: %s", ow_mcp_client_get_name (OW_MCP_CLIENT (source)),
               error->message);
}

/* Every loaded session's agent offers the host's servers: a server that
 * comes or goes joins or leaves their registries at once (from the next
 * model call on); agents built later take self->mcp_list. */
static void
agents_foreach_registry (OwSessionHost *self, OwToolProvider *provider, gboolean add)
{
  GHashTableIter iter;
  gpointer value;

  if (self->live == NULL)
    return;
  g_hash_table_iter_init (&iter, self->live);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Live *live = value;
      OwToolRegistry *tools = live->agent != NULL ? ow_agent_get_tools (live->agent) : NULL;

      if (tools == NULL)
        continue;
      if (add)
        ow_tool_registry_add_provider (tools, provider);
      else
        ow_tool_registry_remove_provider (tools, provider);
    }
}

static void
rebuild_mcp_list (OwSessionHost *self)
{
  g_ptr_array_set_size (self->mcp_list, 0);
  for (guint i = 0; i < self->mcp->len; i++)
    g_ptr_array_add (self->mcp_list, g_ptr_array_index (self->mcp, i));
  g_ptr_array_add (self->mcp_list, NULL);
}

/* Stops server @i and takes it out of every registry. */
static void
drop_mcp (OwSessionHost *self, guint i)
{
  OwMcpProvider *p = g_ptr_array_index (self->mcp, i);

  agents_foreach_registry (self, OW_TOOL_PROVIDER (p), FALSE);
  ow_mcp_client_stop (ow_mcp_provider_get_client (p));
  g_ptr_array_remove_index (self->mcp, i);
  g_ptr_array_remove_index (self->mcp_configs, i);
}

static gint
find_mcp (OwSessionHost *self, const char *name)
{
  for (guint i = 0; i < self->mcp_configs->len; i++)
    if (g_str_equal (((OwMcpServerConfig *) g_ptr_array_index (self->mcp_configs, i))->name, name))
      return (gint) i;
  return -1;
}

/* The servers of the machine's mcp.json start with the host, in the
 * background; each provider brings its tools to every session's next model
 * call once its server is ready (and takes them away if it fails). A
 * workspace's own mcp.json is for `openworker run` in a trusted folder;
 * the host's servers are the machine's. None for an isolated context.
 * Reloading compares each entry with what its server was started with:
 * an unchanged server keeps running (and its sessions keep their calls in
 * flight), a changed one is stopped and started anew, a removed or
 * disabled one is stopped. */
gboolean
ow_session_host_reload_mcp (OwSessionHost *self, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) configs = NULL;
  gboolean changed = FALSE;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), FALSE);

  if (!ow_context_is_isolated (self->ctx))
    configs = ow_mcp_configs_for_session (ow_context_get_paths (self->ctx), NULL, NULL, NULL, &local);
  if (configs == NULL && local != NULL)
    {
      /* A file that cannot be read leaves the running servers alone. */
      g_message ("%s", local->message);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* Stop what is gone, disabled, unusable or changed. */
  for (guint i = self->mcp_configs->len; i > 0; i--)
    {
      const OwMcpServerConfig *old = g_ptr_array_index (self->mcp_configs, i - 1);
      const OwMcpServerConfig *now = NULL;

      for (guint j = 0; configs != NULL && j < configs->len && now == NULL; j++)
        if (g_str_equal (((OwMcpServerConfig *) g_ptr_array_index (configs, j))->name, old->name))
          now = g_ptr_array_index (configs, j);
      if (now != NULL && ow_mcp_server_config_equal (old, now))
        continue;
      g_debug ("MCP server \"%s\" stops (%s)", old->name, now == NULL ? "removed" : "changed");
      drop_mcp (self, i - 1);
      changed = TRUE;
    }
  /* Start what is new (or changed), in file order. */
  for (guint i = 0; configs != NULL && i < configs->len; i++)
    {
      const OwMcpServerConfig *c = g_ptr_array_index (configs, i);
      g_autoptr(OwMcpClient) client = NULL;
      OwMcpProvider *p;

      if (c->error != NULL)
        {
          g_message ("MCP server \"%s\" is not used: %s", c->name, c->error);
          continue;
        }
      if (!c->enabled || find_mcp (self, c->name) >= 0)
        continue;
      client = ow_mcp_client_new (c);
      /* An HTTP server signs in through the machine's OwOAuth; a sign-in
       * completed at /v1/oauth/callback connects it, live. */
      if (ow_context_get_oauth (self->ctx) != NULL)
        ow_mcp_auth_attach (client, ow_context_get_oauth (self->ctx));
      p = ow_mcp_provider_new (client);
      g_ptr_array_add (self->mcp, p);
      g_ptr_array_add (self->mcp_configs, ow_mcp_server_config_copy (c));
      agents_foreach_registry (self, OW_TOOL_PROVIDER (p), TRUE);
      ow_mcp_start_async (client, NULL, on_mcp_started_cb, NULL);
      changed = TRUE;
    }
  rebuild_mcp_list (self);
  if (changed)
    g_signal_emit (self, signals[SIGNAL_MCP_CHANGED], 0);
  return TRUE;
}

gboolean
ow_session_host_restart_mcp (OwSessionHost *self, const char *name, GError **error)
{
  gint i;
  OwMcpClient *client;

  g_return_val_if_fail (OW_IS_SESSION_HOST (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  i = find_mcp (self, name);
  if (i < 0)
    {
      g_set_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NOT_FOUND,
                   "There is no running MCP server named \"%s\": it may be disabled or not in mcp.json.", name);
      return FALSE;
    }
  client = ow_mcp_provider_get_client (g_ptr_array_index (self->mcp, i));
  ow_mcp_client_stop (client);
  ow_mcp_client_start_async (client, NULL, on_mcp_started_cb, NULL);
  return TRUE;
}

GPtrArray *
ow_session_host_get_mcp_providers (OwSessionHost *self)
{
  g_return_val_if_fail (OW_IS_SESSION_HOST (self), NULL);
  return self->mcp;
}

OwSessionHost *
ow_session_host_new (OwContext *ctx, const char *origin, GError **error)
{
  g_autoptr(OwSessionHost) self = NULL;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SESSION_HOST, NULL);
  self->ctx = g_object_ref (ctx);
  self->origin = g_strdup (origin != NULL ? origin : "desktop");
  self->inbox = ow_inbox_new (ow_context_get_store (ctx));
  self->attendant = ow_inbox_attendant_new (self->inbox);
  self->policy = ow_policy_new (ow_context_get_config (ctx), ow_context_get_store (ctx), error);
  if (self->policy == NULL)
    return NULL;
  ow_session_host_reload_mcp (self, NULL);
  return g_steal_pointer (&self);
}

OwContext *
ow_session_host_get_context (OwSessionHost *self)
{
  return self->ctx;
}

OwInbox *
ow_session_host_get_inbox (OwSessionHost *self)
{
  return self->inbox;
}

static void
ow_session_host_dispose (GObject *object)
{
  OwSessionHost *self = OW_SESSION_HOST (object);

  if (self->live != NULL)
    {
      GHashTableIter iter;
      gpointer value;
      g_hash_table_iter_init (&iter, self->live);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        settle (value);
    }
  g_clear_pointer (&self->live, g_hash_table_unref);
  /* Stopped turns finish on later main-loop turns, maybe after the store
   * is gone: the inbox must not write then. */
  if (self->inbox != NULL)
    ow_inbox_close (self->inbox);
  /* The servers end with the host, whoever still holds a provider. */
  for (guint i = 0; self->mcp != NULL && i < self->mcp->len; i++)
    ow_mcp_client_stop (ow_mcp_provider_get_client (g_ptr_array_index (self->mcp, i)));
  g_clear_pointer (&self->mcp_list, g_ptr_array_unref);
  g_clear_pointer (&self->mcp, g_ptr_array_unref);
  g_clear_pointer (&self->mcp_configs, g_ptr_array_unref);
  G_OBJECT_CLASS (ow_session_host_parent_class)->dispose (object);
}

static void
ow_session_host_finalize (GObject *object)
{
  OwSessionHost *self = OW_SESSION_HOST (object);

  g_clear_object (&self->policy);
  g_clear_object (&self->attendant);
  g_clear_object (&self->inbox);
  g_clear_object (&self->ctx);
  g_free (self->origin);
  G_OBJECT_CLASS (ow_session_host_parent_class)->finalize (object);
}

static void
ow_session_host_class_init (OwSessionHostClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_session_host_dispose;
  object_class->finalize = ow_session_host_finalize;

  /* Every event of every loaded session, after it is in the event log. */
  signals[SIGNAL_SESSION_EVENT] =
    g_signal_new ("session-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, OW_TYPE_EVENT | G_SIGNAL_TYPE_STATIC_SCOPE);
  /* A session was created or deleted. */
  signals[SIGNAL_SESSIONS_CHANGED] =
    g_signal_new ("sessions-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /* The set of running MCP servers changed (a reload started or stopped one). */
  signals[SIGNAL_MCP_CHANGED] =
    g_signal_new ("mcp-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
ow_session_host_init (OwSessionHost *self)
{
  self->live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) live_free);
  self->mcp = g_ptr_array_new_with_free_func (g_object_unref);
  self->mcp_list = g_ptr_array_new ();
  g_ptr_array_add (self->mcp_list, NULL);
  self->mcp_configs = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_server_config_free);
}
