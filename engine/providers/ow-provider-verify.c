/* ow-provider-verify.c: testing a provider key (see ow-provider-verify.h).
 *
 * The provider is built through the catalog exactly as a session would
 * build it, so the check uses the same base URL, key variable, wire style
 * and headers as the real calls; only the request differs (a model list
 * instead of a completion). The answer is classified here rather than by
 * ow_provider_classify_http_error() because a list call's failures mean
 * other things to a person holding a key ("refused", "wrong address")
 * than a completion's.
 */
#define G_LOG_DOMAIN "ow-provider-verify"

#include "providers/ow-provider-verify.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"
#include "providers/ow-provider-private.h"

#define DEFAULT_TIMEOUT_MS 10000

static guint timeout_ms = DEFAULT_TIMEOUT_MS;

void
ow_provider_verify_set_timeout_for_testing (guint ms)
{
  timeout_ms = ms > 0 ? ms : DEFAULT_TIMEOUT_MS;
}

void
ow_provider_verify_result_free (OwProviderVerifyResult *result)
{
  if (result == NULL)
    return;
  g_free (result->error);
  g_free (result);
}

const char *
ow_verify_status_to_string (OwVerifyStatus status)
{
  static const char *const names[] = {
    [OW_VERIFY_OK] = "ok",
    [OW_VERIFY_NO_KEY] = "no_key",
    [OW_VERIFY_REFUSED] = "refused",
    [OW_VERIFY_QUOTA] = "quota",
    [OW_VERIFY_RATE_LIMITED] = "rate_limited",
    [OW_VERIFY_NOT_FOUND] = "not_found",
    [OW_VERIFY_SERVER] = "server",
    [OW_VERIFY_UNREACHABLE] = "unreachable",
    [OW_VERIFY_TIMEOUT] = "timeout",
    [OW_VERIFY_CANCELLED] = "cancelled",
    [OW_VERIFY_BAD_CONFIG] = "bad_config",
  };

  return (guint) status < G_N_ELEMENTS (names) ? names[status] : "server";
}

typedef struct {
  char    *title;     /* "Claude (Anthropic)" */
  char    *where;     /* "host:port" of the base URL, for messages */
  char    *path;      /* the path probed, for messages */
  gboolean keyless;   /* no key was sent (a local server) */
  gboolean gemini;    /* Gemini reports a bad key as 400 */
} Verify;

static void
verify_free (Verify *v)
{
  g_free (v->title);
  g_free (v->where);
  g_free (v->path);
  g_free (v);
}

static void G_GNUC_PRINTF (4, 5)
finish (GTask *task, OwVerifyStatus status, guint http_status, const char *fmt, ...)
{
  OwProviderVerifyResult *result = g_new0 (OwProviderVerifyResult, 1);

  result->ok = status == OW_VERIFY_OK;
  result->status = status;
  result->http_status = http_status;
  if (fmt != NULL)
    {
      va_list ap;
      g_autofree char *text = NULL;

      va_start (ap, fmt);
      text = g_strdup_vprintf (fmt, ap);
      va_end (ap);
      /* Transport messages can carry a URL; nothing secret leaves here. */
      result->error = ow_redact (text);
    }
  g_task_return_pointer (task, result, (GDestroyNotify) ow_provider_verify_result_free);
}

static char *
authority_of (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup (url);
  if (g_uri_get_port (uri) > 0)
    return g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  return g_strdup (g_uri_get_host (uri));
}

static gboolean
body_says_bad_key (GBytes *body)
{
  gsize len;
  const char *data = g_bytes_get_data (body, &len);
  g_autofree char *text = g_strndup (data != NULL ? data : "", len);

  return strstr (text, "API key not valid") != NULL || strstr (text, "API_KEY_INVALID") != NULL;
}

static void
on_sent_cb (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Verify *v = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), res, &error);
  guint status;

  if (resp == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        finish (task, OW_VERIFY_CANCELLED, 0, "The check of the %s key was cancelled.", v->title);
      else if (g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_TIMEOUT))
        finish (task, OW_VERIFY_TIMEOUT, 0,
                "%s did not answer at %s within %u seconds. Check the address and your network, then try again.",
                v->title, v->where, timeout_ms / 1000);
      else
        finish (task, OW_VERIFY_UNREACHABLE, 0,
                "Couldn't reach %s at %s (%s). Check the address, that the server is running and your network, "
                "then try again.", v->title, v->where, error->message);
      return;
    }

  status = ow_http_response_get_status (resp);
  if (status >= 200 && status < 300)
    finish (task, OW_VERIFY_OK, status, NULL);
  else if ((status == 401 || status == 403) && v->keyless)
    finish (task, OW_VERIFY_REFUSED, status,
            "%s at %s rejected the request (HTTP %u). If this server needs a key, save one for it.", v->title,
            v->where, status);
  else if (status == 401 || status == 403 || (status == 400 && v->gemini && body_says_bad_key (ow_http_response_get_body (resp))))
    finish (task, OW_VERIFY_REFUSED, status,
            "The key was refused by %s (HTTP %u): it is mistyped, revoked, or for another service. Copy it "
            "again from the provider's console, or create a new one.", v->title, status);
  else if (status == 404)
    finish (task, OW_VERIFY_NOT_FOUND, status,
            "Reached %s, but there is no %s API there (HTTP 404 for %s). Check the base URL.", v->where,
            v->title, v->path);
  else if (status == 402 || status == 429)
    {
      gsize len;
      const char *data = g_bytes_get_data (ow_http_response_get_body (resp), &len);
      g_autofree char *body = g_strndup (data != NULL ? data : "", len);
      g_autoptr(GError) classified = ow_provider_classify_http_error (v->title, NULL, NULL, status, body);

      if (status == 402 || g_error_matches (classified, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_QUOTA))
        finish (task, OW_VERIFY_QUOTA, status,
                "%s accepted the key, but the account is out of credits or over its spending limit (HTTP %u). "
                "Add credits or raise the limit in the provider's billing console.", v->title, status);
      else
        finish (task, OW_VERIFY_RATE_LIMITED, status,
                "%s is limiting requests right now (HTTP %u), so the key could not be checked. Try again in a "
                "minute.", v->title, status);
    }
  else if (status >= 500)
    finish (task, OW_VERIFY_SERVER, status,
            "%s answered HTTP %u — a problem on its side. Try again shortly.", v->title, status);
  else
    finish (task, OW_VERIFY_SERVER, status, "%s answered HTTP %u to %s, so the key could not be checked.",
            v->title, status, v->path);
}

void
ow_provider_verify_key_async (OwHttpClient          *http,
                              const OwProviderEntry *entry,
                              const char            *api_key,
                              const char            *base_url,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(OwHttpRequest) req = NULL;
  g_autofree char *url = NULL;
  OwProviderOverrides overrides = { .api_key = api_key, .base_url = base_url };
  const char *key;
  Verify *v;

  g_return_if_fail (OW_IS_HTTP_CLIENT (http));
  g_return_if_fail (entry != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_provider_verify_key_async);
  /* The result is the answer even when cancelled: finish never fails. */
  g_task_set_check_cancellable (task, FALSE);
  v = g_new0 (Verify, 1);
  v->title = g_strdup (entry->title);
  g_task_set_task_data (task, v, (GDestroyNotify) verify_free);

  if (api_key != NULL)
    ow_redact_register_secret (api_key);
  provider = ow_provider_catalog_create (entry, &overrides, NULL, http, &error);
  if (provider == NULL)
    {
      if (g_error_matches (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY))
        finish (task, OW_VERIFY_NO_KEY, 0, "Enter an API key for %s to test it.", entry->title);
      else
        finish (task, OW_VERIFY_BAD_CONFIG, 0, "%s", error->message);
      return;
    }

  key = ow_provider_get_api_key (provider);
  v->keyless = key == NULL;
  v->where = authority_of (ow_provider_get_base_url (provider));
  switch (ow_provider_get_wire_style (provider))
    {
    case OW_WIRE_ANTHROPIC:
      /* Like the Messages call: the bare host by default, /v1 accepted. */
      url = ow_provider_build_url (provider, g_str_has_suffix (ow_provider_get_base_url (provider), "/v1")
                                               ? "models" : "v1/models");
      req = ow_http_request_new ("GET", url);
      if (key != NULL)
        ow_http_request_add_header (req, "x-api-key", key);
      ow_http_request_add_header (req, "anthropic-version",
                                  ow_provider_get_quirk_string (provider, "anthropic_version") != NULL
                                    ? ow_provider_get_quirk_string (provider, "anthropic_version")
                                    : "2023-06-01");
      break;
    case OW_WIRE_GEMINI:
      /* The key in a header, never in the URL (URLs get logged). */
      v->gemini = TRUE;
      url = ow_provider_build_url (provider, "models");
      req = ow_http_request_new ("GET", url);
      if (key != NULL)
        ow_http_request_add_header (req, "x-goog-api-key", key);
      break;
    case OW_WIRE_OLLAMA:
      url = ow_provider_build_url (provider, "api/tags");
      req = ow_http_request_new ("GET", url);
      /* Ollama itself takes no key; one behind an authenticating proxy does. */
      if (key != NULL)
        {
          g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);
          ow_http_request_add_header (req, "Authorization", bearer);
        }
      break;
    case OW_WIRE_OPENAI_RESPONSES:
    case OW_WIRE_OPENAI_CHAT:
    default:
      if (g_str_has_prefix (entry->id, "ark"))
        {
          /* Ark has no model list: the smallest real call instead. */
          g_autofree char *body = NULL;
          g_autoptr(JsonObject) o = json_object_new ();

          json_object_set_string_member (o, "model", entry->recommended_model != NULL ? entry->recommended_model : "");
          json_object_set_string_member (o, "input", "Reply with OK.");
          json_object_set_int_member (o, "max_output_tokens", 1);
          json_object_set_boolean_member (o, "store", FALSE);
          gsize body_len;

          body = ow_json_object_to_string (o);
          body_len = strlen (body);
          url = ow_provider_build_url (provider, "responses");
          req = ow_http_request_new ("POST", url);
          ow_http_request_set_body (req, g_bytes_new_take (g_steal_pointer (&body), body_len), "application/json");
        }
      else
        {
          url = ow_provider_build_url (provider, "models");
          req = ow_http_request_new ("GET", url);
        }
      if (key != NULL)
        {
          g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);
          ow_http_request_add_header (req, "Authorization", bearer);
        }
      break;
    }
  {
    g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
    v->path = g_strdup (uri != NULL ? g_uri_get_path (uri) : url);
  }
  ow_http_request_set_timeouts (req, timeout_ms, timeout_ms, timeout_ms);
  ow_http_request_set_max_body (req, 1024 * 1024);
  ow_http_client_send_async (http, req, NULL, NULL, NULL, cancellable, on_sent_cb, g_steal_pointer (&task));
}

OwProviderVerifyResult *
ow_provider_verify_key_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), NULL);
}
