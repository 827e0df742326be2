/* ow-agent-sites.c: site cards of the turn loop.
 *
 * A session behind the sandbox's allow list reaches a new site only when a
 * person allows it: web_fetch to a site not on the list, and the
 * request_network_access tool, show a site card; the answer is a grant
 * once, for the session, or always.
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

/* ---- Site cards ----------------------------------------------------------- */

/* "host:port" of a URL, or NULL when it has no usable host. */
char *
_ow_agent_site_of_url (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  g_autofree char *host = NULL;
  guint16 port = 0;
  int uri_port;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return NULL;
  if (!ow_site_parse (g_uri_get_host (uri), FALSE, &host, &port, NULL))
    return NULL;
  uri_port = g_uri_get_port (uri);
  if (uri_port > 0)
    port = (guint16) uri_port;
  else
    port = g_ascii_strcasecmp (g_uri_get_scheme (uri), "http") == 0 ? 80 : 443;
  return ow_site_format (host, port);
}

/* Whether the session may reach @site ("host:port") now, without asking. */
gboolean
_ow_agent_site_allowed (OwAgent *agent, const char *site)
{
  g_autofree char *host = NULL;
  guint16 port = 0;

  if (!ow_site_parse (site, TRUE, &host, &port, NULL))
    return FALSE;
  return ow_site_list_check (agent->sites, ow_session_get_id (agent->session), host, port, FALSE) != OW_SITE_DENIED;
}

static void
on_site_answer_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwApprovalReply) reply = ow_attendant_request_approval_finish (OW_ATTENDANT (source), result, &error);
  gboolean is_request = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_SITE;
  const char *site = run->site;
  const char *scope = NULL;
  g_autoptr(GError) grant_error = NULL;
  gboolean granted = FALSE;
  JsonObject *data;

  if (_ow_agent_finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  /* "Allow read-only commands" says nothing about a site: not a yes. */
  if (reply != NULL && !g_cancellable_is_cancelled (run->cancellable) && reply->answer != OW_APPROVAL_DENY
      && reply->answer != OW_APPROVAL_READONLY_SESSION)
    {
      OwSiteGrant grant = reply->answer == OW_APPROVAL_ALWAYS ? OW_SITE_GRANT_ALWAYS
                          : reply->answer == OW_APPROVAL_SESSION ? OW_SITE_GRANT_SESSION
                          : OW_SITE_GRANT_ONCE;
      /* A command's site is asked for the session: "once" has no meaning
       * for a sandbox that keeps running. */
      if (is_request && grant == OW_SITE_GRANT_ONCE)
        grant = OW_SITE_GRANT_SESSION;
      granted = ow_site_list_grant (agent->sites, ow_session_get_id (agent->session), site, grant, &grant_error);
      if (granted && grant == OW_SITE_GRANT_ALWAYS && agent->guard != NULL)
        {
          g_autofree char *host = NULL;
          guint16 port = 0;
          /* "Always" wrote this exact host:port into sandbox_network_hosts,
           * the one place that may lift the private-address guard; it
           * applies at once, as it will in every later session. */
          if (ow_site_parse (site, TRUE, &host, &port, NULL)
              && (ow_site_host_is_ip (host) || g_str_equal (host, "localhost")))
            ow_address_guard_add_exception (agent->guard, site, NULL);
        }
      scope = grant == OW_SITE_GRANT_ALWAYS ? "always" : grant == OW_SITE_GRANT_SESSION ? "session" : "once";
    }

  _ow_agent_emit_resolved (run, call, "site", granted ? scope : "deny", reply == NULL || reply->by_rule);
  data = json_object_new ();
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "site", site);
  json_object_set_boolean_member (data, "granted", granted);
  if (scope != NULL && granted)
    json_object_set_string_member (data, "scope", scope);
  _ow_agent_emit (run, "site_resolved", data);

  if (!granted)
    {
      const char *why = g_cancellable_is_cancelled (run->cancellable) ? "interrupted by user"
                        : grant_error != NULL ? grant_error->message
                        : reply != NULL && reply->note != NULL ? reply->note
                        : error != NULL ? error->message : "the person declined";
      g_autofree char *reason = g_strdup_printf ("%s was not allowed: %s", site, why);
      _ow_agent_audit (run, call, "approval_resolved", "denied", "deny", "site denied", reason, NULL);
      if (is_request)
        {
          g_autoptr(JsonObject) answer = json_object_new ();
          g_autofree char *text = NULL;
          json_object_set_boolean_member (answer, "granted", FALSE);
          json_object_set_string_member (answer, "site", site);
          json_object_set_string_member (answer, "reason", reason);
          text = ow_json_object_to_string (answer);
          g_clear_pointer (&run->cur_provenance, g_free);
          run->cur_provenance = g_strdup ("site denied");
          _ow_agent_complete_call (task, OW_TOOL_STATUS_DENIED, text, NULL);
        }
      else
        _ow_agent_refuse (task, "site denied", reason,
                g_cancellable_is_cancelled (run->cancellable) ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  {
    g_autofree char *provenance = g_strdup_printf ("site allowed by the person (%s)", scope);
    _ow_agent_audit (run, call, "approval_resolved", "approved", scope, provenance, site, NULL);
    if (is_request)
      {
        g_autoptr(JsonObject) answer = json_object_new ();
        g_autofree char *text = NULL;
        json_object_set_boolean_member (answer, "granted", TRUE);
        json_object_set_string_member (answer, "site", site);
        json_object_set_string_member (answer, "scope", scope);
        json_object_set_string_member (answer, "note", "The sandbox lets it through now; no restart is needed.");
        text = ow_json_object_to_string (answer);
        g_clear_pointer (&run->cur_provenance, g_free);
        run->cur_provenance = g_strdup (provenance);
        _ow_agent_complete_call (task, OW_TOOL_STATUS_OK, text, NULL);
      }
    else
      _ow_agent_decide_current (task);
  }
  g_object_unref (task);
}

/* Shows a site card for the current call: web_fetch to a site not on the
 * list, or request_network_access. */
void
_ow_agent_ask_site (GTask *task, const char *site, const char *reason)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  OwApprovalRequest req = {
    .session_id = ow_session_get_id (agent->session),
    .call_id = call->id,
    .tool = call->name,
    .arguments = run->cur_args,
    .reason = reason,
    .risk = "network",
    .site = site,
  };
  JsonObject *data = json_object_new ();

  g_free (run->site);
  run->site = g_strdup (site);
  req.site = run->site;
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "site", site);
  json_object_set_string_member (data, "reason", reason);
  _ow_agent_audit (run, call, "approval_requested", NULL, NULL, NULL, reason, NULL);
  /* Parked first, then announced (see ask_person). */
  ow_attendant_request_approval_async (agent->attendant, &req, run->cancellable, on_site_answer_cb,
                                       g_object_ref (task));
  _ow_agent_emit (run, "site_requested", data);
}

/* request_network_access: answered from the list when already allowed,
 * refused when nobody may be asked, else a site card. */
void
_ow_agent_request_site (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  const char *asked = ow_json_get_string (run->cur_args, "host");
  const char *why = ow_json_get_string (run->cur_args, "reason");
  g_autofree char *host = NULL, *site = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autofree char *text = NULL;
  guint16 port = 0;

  if (asked == NULL || !ow_site_parse (asked, FALSE, &host, &port, &error))
    {
      _ow_agent_complete_error (task, OW_TOOL_STATUS_ERROR, error != NULL ? error->message : "host is required", NULL);
      return;
    }
  site = ow_site_format (host, port != 0 ? port : 443);
  if (_ow_agent_site_allowed (agent, site))
    {
      json_object_set_boolean_member (answer, "granted", TRUE);
      json_object_set_string_member (answer, "site", site);
      json_object_set_string_member (answer, "note", "It is already on the list; if a command still fails, the "
                                     "problem is elsewhere.");
      text = ow_json_object_to_string (answer);
      _ow_agent_complete_call (task, OW_TOOL_STATUS_OK, text, NULL);
      return;
    }
  if (g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"))
    {
      json_object_set_boolean_member (answer, "granted", FALSE);
      json_object_set_string_member (answer, "site", site);
      json_object_set_string_member (answer, "reason", "With full access nobody is asked, so sites cannot be "
                                     "requested; the person adds them to sandbox_network_hosts themselves.");
      text = ow_json_object_to_string (answer);
      _ow_agent_complete_call (task, OW_TOOL_STATUS_DENIED, text, NULL);
      return;
    }
  {
    g_autofree char *reason = g_strdup_printf ("the coworker asks for %s: %s", site, why != NULL ? why : "no reason given");
    _ow_agent_ask_site (task, site, reason);
  }
}
