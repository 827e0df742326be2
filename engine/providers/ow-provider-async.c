/* ow-provider-async.c: ow_provider_complete_async(), a call over OwHttpClient.
 *
 * Sends each attempt, feeds streamed bytes to the call as they arrive (or
 * keeps a whole JSON body a server sent instead of a stream), resends
 * after a parameter fix, classifies error statuses and transport failures,
 * and writes OwCallInfo: status, host, request id, timings and one cause
 * line with credentials removed.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"

static void call_start_attempt (GTask *task);

static char *
url_host (const char *url)
{
  const char *start = url != NULL ? strstr (url, "://") : NULL;
  const char *end;

  if (start == NULL)
    return g_strdup (url != NULL ? url : "the server");
  start += 3;
  end = start + strcspn (start, "/?#");
  return g_strndup (start, end - start);
}

/* Writes the cause line: where the answer came from, then what went wrong,
 * on one line with credentials removed. */
static void
call_set_cause (OwProviderCall *call,
                const char     *peer,
                const char     *fallback_detail)
{
  const char *detail = call->detail != NULL ? call->detail : fallback_detail;
  g_autofree char *line = NULL;
  g_autofree char *host = NULL;

  if (call->info->status > 0)
    {
      host = peer != NULL && peer[0] != '\0' ? g_strdup (peer) : url_host (call->url);
      if (g_str_has_prefix (detail, "then "))
        line = g_strdup_printf ("HTTP %u from %s, %s", call->info->status, host, detail);
      else if (detail[0] == '(' || detail[0] == ':')
        line = g_strdup_printf ("HTTP %u from %s %s", call->info->status, host, detail);
      else
        line = g_strdup_printf ("HTTP %u from %s: %s", call->info->status, host, detail);
    }
  else
    line = g_strdup_printf ("POST %s: %s", call->url != NULL ? call->url : "(no URL)", detail);

  g_strdelimit (line, "\r\n\t", ' ');
  g_free (call->info->cause);
  call->info->cause = ow_redact (line);
}

static void
call_record_response (OwProviderCall *call,
                      OwHttpResponse *resp)
{
  const char *request_id;
  const char *peer;

  if (resp == NULL)
    return;
  call->info->status = ow_http_response_get_status (resp);
  peer = ow_http_response_get_peer (resp);
  if (peer != NULL && peer[0] != '\0')
    {
      g_free (call->info->host);
      call->info->host = g_strdup (peer);
    }
  request_id = ow_http_response_get_header (resp, "x-request-id");
  if (request_id == NULL)
    request_id = ow_http_response_get_header (resp, "request-id");
  if (request_id != NULL)
    {
      g_free (call->info->request_id);
      call->info->request_id = g_strdup (request_id);
    }
  call->info->ttfb = ow_http_response_get_ttfb (resp);
}

static void
call_complete_error (GTask          *task,
                     OwProviderCall *call,
                     GError         *error,
                     const char     *fallback_detail)
{
  call->info->duration = (g_get_monotonic_time () - call->started_us) / (double) G_USEC_PER_SEC;
  call_set_cause (call, call->info->host, fallback_detail);
  if (call->partial == NULL && call->turn != NULL
      && (call->turn->text->len > 0 || call->turn->reasoning->len > 0
          || call->turn->tool_calls->len > 0))
    call->partial = g_steal_pointer (&call->turn);
  g_debug ("%s: call failed: %s", ow_provider_get_id (call->provider), call->info->cause);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static gboolean
on_chunk_cb (OwHttpResponse *resp,
             const char     *data,
             gsize           len,
             gpointer        user_data)
{
  OwProviderCall *call = user_data;

  if (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable))
    return FALSE;
  if (call->info->status == 0)
    {
      OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
      const char *type = ow_http_response_get_header (resp, "content-type");

      call_record_response (call, resp);
      /* Some compatible servers ignore "stream" and answer with the whole
       * reply as one JSON document; it is read as such at the end. */
      if (type != NULL && g_ascii_strncasecmp (type, "application/json", 16) == 0
          && (klass->stream_is_ndjson == NULL || !klass->stream_is_ndjson (call->provider)))
        call->whole_body = g_byte_array_new ();
    }
  if (call->whole_body != NULL)
    {
      g_byte_array_append (call->whole_body, (const guint8 *) data, (guint) len);
      call->n_bytes += len;
      return TRUE;
    }
  return ow_provider_call_feed (call, data, len, NULL);
}

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  OwProviderCall *call = g_task_get_task_data (task);
  OwProvider *self = call->provider;
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (self);
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;
  GError *result_error = NULL;
  OwTurn *turn;
  guint status;

  resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  call_record_response (call, resp);
  call->info->duration = (g_get_monotonic_time () - call->started_us) / (double) G_USEC_PER_SEC;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
      || (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable)))
    {
      ow_provider_call_set_detail (call, "cancelled by the caller");
      call_complete_error (task, call,
                           g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                "The model call was cancelled."),
                           "cancelled");
      return;
    }

  /* A connection dropped after the terminal event lost nothing. */
  if (error != NULL && call->stream_error == NULL && call->req.stream && call->turn->complete)
    g_clear_error (&error);

  if (error != NULL)
    {
      /* Our own chunk function stopped the transfer: the reason is the
       * stream error it recorded, not the transport. */
      if (call->stream_error != NULL)
        {
          call_complete_error (task, call, g_error_copy (call->stream_error), "stream error");
          return;
        }
      if (g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_CUT_OFF))
        {
          call_complete_error (task, call, ow_provider_call_cut_off_error (call), "cut off");
          return;
        }
      if (call->info->status > 0)
        ow_provider_call_set_detail (call, "then the transfer failed: %s", error->message);
      else
        ow_provider_call_set_detail (call, "%s", error->message);
      if (g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_TOO_LARGE))
        {
          /* Not the network's fault: the reply is not something a model
           * sends. */
          call_complete_error (task, call,
                               g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                                            "%s sent a reply too large to read (%s).",
                                            ow_provider_get_title (self), error->message),
                               error->message);
          return;
        }
      {
        /* Shown without a password the base URL may carry. */
        g_autofree char *shown = ow_redact (ow_provider_get_base_url (self));

        result_error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONNECTION,
                                    "Couldn't reach %s at %s (%s). Check the network connection, "
                                    "and that the server is running at that address.",
                                    ow_provider_get_title (self), shown, error->message);
      }
      call_complete_error (task, call, result_error, error->message);
      return;
    }

  status = resp != NULL ? ow_http_response_get_status (resp) : call->info->status;
  if (status < 200 || status >= 300)
    {
      GBytes *bytes = ow_http_response_get_body (resp);
      gsize size = 0;
      const char *data = g_bytes_get_data (bytes, &size);
      /* Error bodies come from proxies too: never trust their encoding. */
      g_autofree char *body = g_utf8_make_valid (data != NULL ? data : "", (gssize) size);
      OwErrorBody err = { NULL, NULL, -1 };

      if (ow_provider_call_fix_params (call, status, body))
        {
          call_start_attempt (task);
          return;
        }

      ow_provider_call_enter (call);
      result_error = klass->classify_error (self, status, resp, body);
      ow_provider_call_leave (call);
      if (result_error == NULL)
        result_error = ow_provider_classify_http_error (ow_provider_get_title (self),
                                                        ow_provider_get_key_env (self),
                                                        call->req.model, status, body);
      call->info->retry_after_ms =
        ow_provider_parse_retry_after (ow_http_response_get_header (resp, "retry-after-ms"),
                                       ow_http_response_get_header (resp, "retry-after"),
                                       body, g_get_real_time ());

      ow_error_body_parse (body, &err);
      if (err.type != NULL)
        ow_provider_call_set_detail (call, "(%s): %s", err.type,
                                     err.message != NULL ? err.message : "");
      else
        ow_provider_call_set_detail (call, "%s",
                                     err.message != NULL ? err.message : "(empty body)");
      ow_error_body_clear (&err);
      call_complete_error (task, call, result_error, "error status");
      return;
    }

  if (call->req.stream && call->whole_body != NULL)
    turn = ow_provider_call_parse_body (call, (const char *) call->whole_body->data,
                                        call->whole_body->len, &call->partial, &result_error);
  else if (call->req.stream)
    turn = ow_provider_call_finish_stream (call, &call->partial, &result_error);
  else
    {
      GBytes *bytes = ow_http_response_get_body (resp);
      gsize size = 0;
      const char *data = g_bytes_get_data (bytes, &size);

      turn = ow_provider_call_parse_body (call, data != NULL ? data : "", size,
                                          &call->partial, &result_error);
    }

  if (turn == NULL)
    {
      call_complete_error (task, call, result_error, "unreadable reply");
      return;
    }
  g_task_return_pointer (task, turn, (GDestroyNotify) ow_turn_free);
  g_object_unref (task);
}

static void
call_start_attempt (GTask *task)
{
  OwProviderCall *call = g_task_get_task_data (task);
  g_autoptr(OwHttpRequest) http = NULL;
  GError *error = NULL;

  ow_provider_call_reset_attempt (call);
  call->info->status = 0;
  http = ow_provider_call_build (call, &error);
  if (http == NULL)
    {
      if (error == NULL)
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                             "The request to %s could not be built.",
                             ow_provider_get_title (call->provider));
      ow_provider_call_set_detail (call, "the request could not be built: %s", error->message);
      call_complete_error (task, call, error, "build failed");
      return;
    }
  g_free (call->info->url);
  call->info->url = ow_redact (ow_http_request_get_url (http));

  ow_http_client_send_async (ow_provider_get_http_client (call->provider), http,
                             call->req.stream ? on_chunk_cb : NULL, call, NULL,
                             call->cancellable, on_sent_cb, task);
}

void
ow_provider_complete_async (OwProvider           *self,
                            const OwModelRequest *req,
                            OwDeltaFunc           on_delta,
                            gpointer              delta_data,
                            GCancellable         *cancellable,
                            GAsyncReadyCallback   callback,
                            gpointer              user_data)
{
  OwProviderCall *call;
  GTask *task;

  g_return_if_fail (OW_IS_PROVIDER (self));
  g_return_if_fail (req != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  call = ow_provider_call_new (self, req, on_delta, delta_data);
  call->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  call->info = ow_call_info_new ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_provider_complete_async);
  g_task_set_task_data (task, call, (GDestroyNotify) ow_provider_call_free);

  if (ow_provider_get_http_client (self) == NULL)
    {
      ow_provider_call_set_detail (call, "no HTTP client");
      call_complete_error (task, call,
                           g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                                        "%s has no HTTP client to send with.",
                                        ow_provider_get_title (self)),
                           "no HTTP client");
      return;
    }
  call_start_attempt (task);
}

OwTurn *
ow_provider_complete_finish (OwProvider    *self,
                             GAsyncResult  *result,
                             OwCallInfo   **info,
                             OwTurn       **partial,
                             GError       **error)
{
  OwProviderCall *call;

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  call = g_task_get_task_data (G_TASK (result));
  if (info != NULL)
    *info = g_steal_pointer (&call->info);
  if (partial != NULL)
    *partial = g_steal_pointer (&call->partial);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
ow_provider_error_is_transient (const GError *error)
{
  if (error == NULL || error->domain != OW_PROVIDER_ERROR)
    return FALSE;

  switch ((OwProviderError) error->code)
    {
    case OW_PROVIDER_ERROR_RATE_LIMITED:
    case OW_PROVIDER_ERROR_OVERLOADED:
    case OW_PROVIDER_ERROR_SERVER:
    case OW_PROVIDER_ERROR_CONNECTION:
    case OW_PROVIDER_ERROR_CUT_OFF:
    case OW_PROVIDER_ERROR_EMPTY_REPLY:
    case OW_PROVIDER_ERROR_PROTOCOL:
      return TRUE;
    case OW_PROVIDER_ERROR_FAILED:
    case OW_PROVIDER_ERROR_AUTH:
    case OW_PROVIDER_ERROR_MODEL_NOT_FOUND:
    case OW_PROVIDER_ERROR_CONTEXT_OVERFLOW:
    case OW_PROVIDER_ERROR_QUOTA:
    case OW_PROVIDER_ERROR_BAD_REQUEST:
    case OW_PROVIDER_ERROR_REFUSED:
    case OW_PROVIDER_ERROR_NO_KEY:
    case OW_PROVIDER_ERROR_UNKNOWN_PROVIDER:
    case OW_PROVIDER_ERROR_REGION:
    default:
      return FALSE;
    }
}
