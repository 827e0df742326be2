/* ow-provider-errors.c: what a failed model call means, and what to do.
 *
 * Every provider answers failures in its own shape: OpenAI's
 * {"error":{message,type,code}}, Anthropic's {"type":"error","error":{…}},
 * Gemini's {"error":{code,message,status,details}}, Ollama's
 * {"error":"…"}, vLLM's older {"object":"error",…}, llama.cpp's typed
 * errors, OpenRouter's numeric codes, or a bare HTML page from a proxy.
 * This file reads all of them into (type, message), then classifies by
 * status and by the markers the providers are known to use, in an order
 * that settles the ambiguous cases:
 *
 *  - quota before rate limit: a 429 with insufficient_quota, a spend limit
 *    or a billing message is permanent (retrying cannot add credits) — but
 *    a Gemini 429 that carries a RetryInfo delay is a per-minute limit even
 *    though its text says "exceeded your current quota";
 *  - context overflow before bad request, since the engine answers it by
 *    compacting the history and retrying;
 *  - model access before auth on a 403, so "no access to this model" sends
 *    the person to the model picker rather than to their key;
 *  - an unsupported country or region before everything: OpenAI answers it
 *    as a 403 (and Gemini as a 400 FAILED_PRECONDITION), which would
 *    otherwise read as a bad key, and inside a stream as a bare error
 *    event, which would otherwise read as a server failure and be retried.
 *    No key and no retry helps; only another network location or provider.
 *
 * The GError message is for a person (what failed, why, what to do); the
 * wire's own words are quoted in it, redacted. Retry-After in its three
 * spellings (retry-after-ms, Retry-After seconds or HTTP-date, Gemini's
 * RetryInfo) is read here too.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider.h"
#include "providers/ow-provider-private.h"

#include <stdio.h>
#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"

/* Longest piece of the server's message quoted in an error message. */
#define MAX_QUOTED_CHARS 300

/* ---- Reading error bodies ----------------------------------------------- */

/* One line, no runs of blanks, at most @max characters (UTF-8 safe). */
static char *
single_line (const char *text,
             gsize       max)
{
  GString *out = g_string_new (NULL);
  gboolean blank = FALSE;
  glong n_chars = 0;

  for (const char *p = text; *p != '\0' && n_chars < (glong) max; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        break;
      if (g_unichar_isspace (c))
        {
          blank = out->len > 0;
          continue;
        }
      if (blank)
        g_string_append_c (out, ' ');
      blank = FALSE;
      g_string_append_unichar (out, c);
      n_chars++;
    }
  if (n_chars >= (glong) max)
    g_string_append (out, "…");
  return g_string_free (out, FALSE);
}

static char *
member_as_text (JsonObject *obj,
                const char *name)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  return NULL;
}

static gint64
retry_info_delay (JsonObject *error)
{
  JsonArray *details = ow_json_get_array (error, "details");

  for (guint i = 0; details != NULL && i < json_array_get_length (details); i++)
    {
      JsonNode *node = json_array_get_element (details, i);
      JsonObject *detail;
      const char *type;
      JsonObject *delay_obj;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      detail = json_node_get_object (node);
      type = ow_json_get_string (detail, "@type");
      if (type == NULL || !g_str_has_suffix (type, "RetryInfo"))
        continue;
      if (ow_json_get_string (detail, "retryDelay") != NULL)
        return ow_duration_parse_ms (ow_json_get_string (detail, "retryDelay"));
      /* The non-JSON-mapped form of a Duration. */
      delay_obj = ow_json_get_object (detail, "retryDelay");
      if (delay_obj != NULL)
        return ow_json_get_int (delay_obj, "seconds", 0) * 1000
               + ow_json_get_int (delay_obj, "nanos", 0) / 1000000;
    }
  return -1;
}

void
ow_error_body_parse (const char  *body,
                     OwErrorBody *out)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *obj = NULL;

  out->type = NULL;
  out->message = NULL;
  out->retry_delay_ms = -1;
  if (body == NULL || body[0] == '\0')
    return;

  root = ow_json_parse (body, -1, NULL);
  /* Gemini sometimes wraps its error object in an array. */
  if (root != NULL && JSON_NODE_HOLDS_ARRAY (root)
      && json_array_get_length (json_node_get_array (root)) > 0)
    {
      JsonNode *first = json_array_get_element (json_node_get_array (root), 0);
      if (JSON_NODE_HOLDS_OBJECT (first))
        obj = json_node_get_object (first);
    }
  else if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    obj = json_node_get_object (root);

  if (obj != NULL)
    {
      JsonNode *error = json_object_get_member (obj, "error");

      if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
        {
          JsonObject *e = json_node_get_object (error);
          const char *code = ow_json_get_string (e, "code");

          out->message = member_as_text (e, "message");
          /* A string code says most (OpenAI: "context_length_exceeded"
           * under type "invalid_request_error"); then the type
           * (Anthropic, llama.cpp, vLLM); then Gemini's status. */
          if (code != NULL)
            out->type = g_strdup (code);
          else if (ow_json_get_string (e, "type") != NULL)
            out->type = g_strdup (ow_json_get_string (e, "type"));
          else if (ow_json_get_string (e, "status") != NULL)
            out->type = g_strdup (ow_json_get_string (e, "status"));
          out->retry_delay_ms = retry_info_delay (e);
        }
      else if (error != NULL && JSON_NODE_HOLDS_VALUE (error))
        out->message = member_as_text (obj, "error");              /* Ollama */
      else if (g_strcmp0 (ow_json_get_string (obj, "object"), "error") == 0)
        {
          out->message = member_as_text (obj, "message");           /* older vLLM */
          out->type = member_as_text (obj, "type");
        }
      else
        {
          out->message = member_as_text (obj, "message");
          if (out->message == NULL)
            out->message = member_as_text (obj, "detail");          /* FastAPI proxies */
          out->type = member_as_text (obj, "type");
        }
    }

  if (out->message == NULL)
    out->message = single_line (body, 200);
  else
    {
      char *flat = single_line (out->message, 2000);
      g_free (out->message);
      out->message = flat;
    }
}

void
ow_error_body_clear (OwErrorBody *err)
{
  g_clear_pointer (&err->type, g_free);
  g_clear_pointer (&err->message, g_free);
  err->retry_delay_ms = -1;
}

/* ---- Classification ----------------------------------------------------- */

static const char *const quota_markers[] = {
  "insufficient_quota", "exceeded your current quota", "credit balance is too low",
  "billing", "enforced_spend_limit_reached", "spend limit", "spending limit",
  "insufficient balance", "insufficient_balance", "insufficient credits",
  "requires more credits", "out of credits", "payment required",
};

static const char *const overflow_markers[] = {
  "context_length_exceeded", "maximum context length", "context window", "context length",
  "prompt is too long", "input is too long", "too many tokens",
  "input length and `max_tokens` exceed", "exceeds the maximum number of tokens",
  "exceed_context_size_error", "available context size", "reduce the length of the messages",
};

static const char *const auth_markers[] = {
  "invalid_api_key", "invalid api key", "incorrect api key", "api key not valid",
  "api_key_invalid", "authentication_error", "invalid x-api-key", "invalid authentication",
  "unauthorized", "unauthenticated",
};

static const char *const model_markers[] = {
  "model_not_found", "does not exist or you do not have access", "does not have access to model",
  "model not found", "no such model", "unknown model", "invalid model", "model not exist",
  "is not a valid model",
};

static const char *const region_markers[] = {
  "unsupported_country_region_territory", "country, region, or territory not supported",
  "user location is not supported", "not available in your country",
  "not supported in your region", "unsupported_region",
};

static const char *const refusal_markers[] = {
  "content_policy_violation", "content management policy", "invalid_prompt", "usage policy",
};

static gboolean
has_marker (const char         *lower,
            const char *const  *markers,
            gsize               n)
{
  for (gsize i = 0; i < n; i++)
    if (strstr (lower, markers[i]) != NULL)
      return TRUE;
  return FALSE;
}

#define HAS(lower, list) has_marker ((lower), (list), G_N_ELEMENTS (list))

static gboolean
mentions_model (const char *lower,
                const char *model)
{
  g_autofree char *model_lower = model != NULL ? g_ascii_strdown (model, -1) : NULL;

  if (model_lower != NULL && model_lower[0] != '\0' && strstr (lower, model_lower) != NULL)
    return TRUE;
  return strstr (lower, "model") != NULL;
}

GError *
ow_provider_classify (const char *title,
                      const char *key_env,
                      const char *model,
                      guint       status,
                      const char *type,
                      const char *message,
                      const char *body)
{
  g_autofree char *all = NULL;
  g_autofree char *lower = NULL;
  g_autofree char *redacted = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *said = NULL;
  g_autofree char *model_name = NULL;
  OwErrorBody parsed = { NULL, NULL, -1 };
  gint64 retry_delay = -1;
  GError *error;

  if (title == NULL)
    title = "The model provider";
  model_name = g_strdup (model != NULL && model[0] != '\0' ? model : "this model");

  if (body != NULL)
    {
      ow_error_body_parse (body, &parsed);
      retry_delay = parsed.retry_delay_ms;
      if (type == NULL)
        type = parsed.type;
      if (message == NULL)
        message = parsed.message;
    }

  all = g_strconcat (type != NULL ? type : "", " ", message != NULL ? message : "", " ",
                     body != NULL ? body : "", NULL);
  {
    g_autofree char *valid = g_utf8_make_valid (all, -1);
    lower = g_utf8_strdown (valid, -1);
  }

  {
    g_autofree char *valid = g_utf8_make_valid (message != NULL && message[0] != '\0' ? message
                                                : type != NULL ? type : "no details", -1);
    redacted = ow_redact (valid);
  }
  quoted = single_line (redacted, MAX_QUOTED_CHARS);
  if (status > 0)
    said = g_strdup_printf ("HTTP %u: %s", status, quoted);
  else
    said = g_strdup (quoted);

  /* Region first: it comes as a 403 that is no key problem, or as an
   * in-stream error that is no server failure (see the overview). */
  if (HAS (lower, region_markers))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REGION,
                         "%s does not serve requests from this country or region (%s). Your "
                         "key is fine; retrying will not help. Use the service from a "
                         "supported location, or pick a model from a different provider.",
                         title, said);
  /* Quota next: permanent even when it arrives as a 429. A Gemini 429
   * with a RetryInfo delay is the exception: it names when to come back. */
  else if ((status == 402 || HAS (lower, quota_markers))
      && !(status == 429 && retry_delay >= 0) && status != 401)
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_QUOTA,
                         "Your %s account is out of quota for %s (%s). Add credits or raise the "
                         "limit in the provider's billing console, or pick a different model.",
                         title, model_name, said);
  else if (status != 429 && status != 401 && status != 403 && HAS (lower, overflow_markers))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONTEXT_OVERFLOW,
                         "The conversation is too long for %s's context window (%s). Compact the "
                         "history, or pick a model with a larger context window.",
                         model_name, said);
  else if (status != 401
           && (HAS (lower, model_markers)
               || ((status == 404 || strstr (lower, "not_found_error") != NULL
                    || strstr (lower, "not found") != NULL)
                   && mentions_model (lower, model))
               || (status == 403 && (strstr (lower, "permission_error") != NULL
                                     || strstr (lower, "permission denied") != NULL)
                   && mentions_model (lower, model))))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_MODEL_NOT_FOUND,
                         "Your %s account doesn't have access to %s, or %s has no such model (%s). "
                         "Pick a different model, or check the provider's console for "
                         "availability.",
                         title, model_name, title, said);
  else if (status == 401 || status == 403 || HAS (lower, auth_markers))
    {
      if (key_env != NULL)
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_AUTH,
                             "The %s API key was rejected (%s). Set a valid key in %s.",
                             title, said, key_env);
      else
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_AUTH,
                             "%s refused the request as unauthorized (%s). Check the server's "
                             "access settings.", title, said);
    }
  else if ((status == 400 || status == 0) && HAS (lower, refusal_markers))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED,
                         "%s declined the request on safety grounds (%s). Rephrase it, or pick a "
                         "different model.", title, said);
  else if (status == 429
           || (status == 0 && (strstr (lower, "rate_limit") != NULL
                               || strstr (lower, "rate limit") != NULL
                               || strstr (lower, "resource_exhausted") != NULL)))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_RATE_LIMITED,
                         "%s is rate-limiting requests (%s). Wait a moment and retry.",
                         title, said);
  else if (status == 529
           || ((status == 0 || status >= 500)
               && (strstr (lower, "overloaded") != NULL || strstr (lower, "server busy") != NULL)))
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED,
                         "%s is overloaded right now (%s). Retry in a moment, or pick a "
                         "different model.", title, said);
  else if (status >= 500 || status == 408 || status == 409 || status == 0)
    /* An error event inside a 2xx stream is the server failing mid-reply. */
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_SERVER,
                         "%s had a server error (%s). Retry in a moment.", title, said);
  else if (status == 404)
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_BAD_REQUEST,
                         "%s has no such endpoint (%s). Check the provider's base URL.",
                         title, said);
  else if (status >= 400)
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_BAD_REQUEST,
                         "%s rejected the request (%s).", title, said);
  else
    error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                         "%s answered with an unexpected status (%s).", title, said);

  ow_error_body_clear (&parsed);
  return error;
}

GError *
ow_provider_classify_http_error (const char *provider_title,
                                 const char *key_env,
                                 const char *model,
                                 guint       status,
                                 const char *body)
{
  return ow_provider_classify (provider_title, key_env, model, status, NULL, NULL,
                               body != NULL ? body : "");
}

/* ---- Retry-After -------------------------------------------------------- */

gint64
ow_duration_parse_ms (const char *text)
{
  char *end = NULL;
  double seconds;

  if (text == NULL)
    return -1;
  seconds = g_ascii_strtod (text, &end);
  if (end == text || seconds < 0 || g_strcmp0 (end, "s") != 0)
    return -1;
  return (gint64) (seconds * 1000.0 + 0.5);
}

static int
month_index (const char *name)
{
  static const char *const months[] = {
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  };

  for (int i = 0; i < 12; i++)
    if (g_ascii_strncasecmp (name, months[i], 3) == 0)
      return i + 1;
  return 0;
}

gint64
ow_http_date_parse (const char *text)
{
  char month[4] = { 0 };
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  g_autoptr(GDateTime) dt = NULL;
  gboolean parsed = FALSE;

  if (text == NULL)
    return -1;
  while (g_ascii_isspace (*text))
    text++;

  /* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
  if (sscanf (text, "%*[A-Za-z], %d %3s %d %d:%d:%d GMT", &day, month, &year, &hour, &minute,
              &second) == 6)
    parsed = TRUE;
  /* RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" */
  else if (sscanf (text, "%*[A-Za-z], %d-%3s-%d %d:%d:%d GMT", &day, month, &year, &hour,
                   &minute, &second) == 6)
    {
      if (year < 100)
        year += year < 70 ? 2000 : 1900;
      parsed = TRUE;
    }
  /* asctime: "Sun Nov  6 08:49:37 1994" */
  else if (sscanf (text, "%*3s %3s %d %d:%d:%d %d", month, &day, &hour, &minute, &second,
                   &year) == 6)
    parsed = TRUE;

  if (!parsed || month_index (month) == 0)
    return -1;
  dt = g_date_time_new_utc (year, month_index (month), day, hour, minute, second);
  if (dt == NULL)
    return -1;
  return g_date_time_to_unix (dt);
}

gint64
ow_provider_parse_retry_after (const char *retry_after_ms,
                               const char *retry_after,
                               const char *body,
                               gint64      now_unix_us)
{
  if (retry_after_ms != NULL)
    {
      char *end = NULL;
      double ms = g_ascii_strtod (retry_after_ms, &end);

      while (end != NULL && g_ascii_isspace (*end))
        end++;
      if (end != retry_after_ms && end != NULL && *end == '\0' && ms >= 0)
        return (gint64) (ms + 0.5);
    }

  if (retry_after != NULL)
    {
      char *end = NULL;
      double seconds = g_ascii_strtod (retry_after, &end);
      gint64 when;

      while (end != NULL && g_ascii_isspace (*end))
        end++;
      if (end != retry_after && end != NULL && *end == '\0' && seconds >= 0)
        return (gint64) (seconds * 1000.0 + 0.5);

      when = ow_http_date_parse (retry_after);
      if (when >= 0)
        {
          gint64 delta_ms = when * 1000 - now_unix_us / 1000;
          return MAX (delta_ms, 0);
        }
    }

  if (body != NULL && body[0] != '\0')
    {
      OwErrorBody err;
      gint64 delay;

      ow_error_body_parse (body, &err);
      delay = err.retry_delay_ms;
      ow_error_body_clear (&err);
      if (delay >= 0)
        return delay;
    }
  return -1;
}
