/* ow-model-server-gemini.c: Google Gemini generateContent / streamGenerateContent.
 *
 * A streamed reply with alt=sse is a series of "data:" blocks (CRLF framed,
 * as Google's front end sends them), each a complete GenerateContentResponse:
 * thought parts ({"text", "thought": true}), text parts, and each function
 * call whole in one part. Function calls carry no id. The last chunk holds
 * the finishReason (STOP, also for function calls, or MAX_TOKENS), and there
 * is no [DONE]: the stream just ends. Without alt=sse the same chunks come as
 * one JSON array written piece by piece. Every chunk has a cumulative
 * usageMetadata, exact on the last one; promptTokenCount includes
 * cachedContentTokenCount, and thoughtsTokenCount is reported beside
 * candidatesTokenCount.
 *
 * A thoughtSignature rides on the first function call part, or, in a reply
 * with thinking but no calls, on the last text part.
 *
 * Errors are {"error":{code,message,status,details}}; a retry delay is a
 * google.rpc.RetryInfo in details, not a header.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

static const char *
status_name (guint status)
{
  switch (status)
    {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 500: return "INTERNAL";
    case 501: return "NOT_IMPLEMENTED";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default:  return "UNKNOWN";
    }
}

static JsonObject *
detail (const char *type)
{
  JsonObject *object = json_object_new ();
  g_autofree char *full = g_strconcat ("type.googleapis.com/google.rpc.", type, NULL);

  json_object_set_string_member (object, "@type", full);
  return object;
}

static JsonObject *
error_body (OwMsReply *reply,
            guint     *status_out)
{
  const OwMsError *e = reply->turn->error;
  g_autofree char *usual = NULL;
  guint status = 400;
  JsonObject *outer = json_object_new ();
  JsonObject *inner = json_object_new ();
  JsonArray *details = json_array_new ();
  JsonObject *info;

  switch (e->kind)
    {
    case OW_MS_ERROR_RATE_LIMIT:
      status = 429;
      usual = g_strdup ("Resource has been exhausted (e.g. check quota).");
      break;
    case OW_MS_ERROR_QUOTA:
      {
        JsonObject *violation = json_object_new ();
        JsonArray *violations = json_array_new ();

        status = 429;
        usual = g_strdup ("You exceeded your current quota, please check your plan and billing "
                          "details. For more information on this error, head to: "
                          "https://ai.google.dev/gemini-api/docs/rate-limits.");
        info = detail ("QuotaFailure");
        json_object_set_string_member (violation, "quotaMetric",
                                       "generativelanguage.googleapis.com/generate_content_free_tier_requests");
        json_object_set_string_member (violation, "quotaId",
                                       "GenerateRequestsPerDayPerProjectPerModel-FreeTier");
        json_array_add_object_element (violations, violation);
        json_object_set_array_member (info, "violations", violations);
        json_array_add_object_element (details, info);
      }
      break;
    case OW_MS_ERROR_OVERLOADED:
      status = 503;
      usual = g_strdup ("The model is overloaded. Please try again later.");
      break;
    case OW_MS_ERROR_SERVER:
      status = 500;
      usual = g_strdup ("An internal error has occurred. Please retry or report in "
                        "https://developers.generativeai.google/guide/troubleshooting");
      break;
    case OW_MS_ERROR_BAD_KEY:
      {
        JsonObject *metadata = json_object_new ();

        /* Gemini answers a bad key with 400, not 401. */
        usual = g_strdup ("API key not valid. Please pass a valid API key.");
        info = detail ("ErrorInfo");
        json_object_set_string_member (info, "reason", "API_KEY_INVALID");
        json_object_set_string_member (info, "domain", "googleapis.com");
        json_object_set_string_member (metadata, "service", "generativelanguage.googleapis.com");
        json_object_set_object_member (info, "metadata", metadata);
        json_array_add_object_element (details, info);
      }
      break;
    case OW_MS_ERROR_UNKNOWN_MODEL:
      status = 404;
      usual = g_strdup_printf ("models/%s is not found for API version v1beta, or is not "
                               "supported for generateContent. Call ListModels to see the list "
                               "of available models and their supported methods.", reply->model);
      break;
    case OW_MS_ERROR_CONTEXT_OVERFLOW:
      usual = g_strdup ("The input token count (1196265) exceeds the maximum number of tokens "
                        "allowed (1048575).");
      break;
    case OW_MS_ERROR_BAD_REQUEST:
      usual = g_strdup ("Request contains an invalid argument.");
      break;
    case OW_MS_ERROR_PERMISSION:
      status = 403;
      usual = g_strdup ("The caller does not have permission");
      break;
    case OW_MS_N_ERROR_KINDS:
    default:
      g_assert_not_reached ();
    }

  if (e->retry_after >= 0)
    {
      g_autofree char *delay = g_strdup_printf ("%ds", e->retry_after);

      info = detail ("RetryInfo");
      json_object_set_string_member (info, "retryDelay", delay);
      json_array_add_object_element (details, info);
    }

  status = ow_ms_error_status (e, status);
  json_object_set_int_member (inner, "code", status);
  json_object_set_string_member (inner, "message", ow_ms_error_message (e, usual));
  json_object_set_string_member (inner, "status", status_name (status));
  if (json_array_get_length (details) > 0)
    json_object_set_array_member (inner, "details", details);
  else
    json_array_unref (details);
  json_object_set_object_member (outer, "error", inner);
  *status_out = status;
  return outer;
}

typedef struct {
  OwMsReply *reply;
  char      *response_id;
  gint64     visible;     /* output tokens that are not thinking */
} Chunks;

/* usageMetadata after @done of @total chunks: counts grow with the chunks
 * and are exact on the last. */
static JsonObject *
usage_metadata (Chunks *chunks,
                guint   done,
                guint   total)
{
  const OwMsUsage *usage = &chunks->reply->turn->usage;
  JsonObject *object = json_object_new ();
  gint64 prompt = ow_ms_usage_prompt (usage);
  gint64 candidates = chunks->visible * done / total;
  gint64 thoughts = usage->reasoning * done / total;

  json_object_set_int_member (object, "promptTokenCount", prompt);
  json_object_set_int_member (object, "candidatesTokenCount", candidates);
  json_object_set_int_member (object, "totalTokenCount", prompt + candidates + thoughts);
  if (usage->cache_read > 0)
    json_object_set_int_member (object, "cachedContentTokenCount", usage->cache_read);
  if (thoughts > 0)
    json_object_set_int_member (object, "thoughtsTokenCount", thoughts);
  return object;
}

/* A GenerateContentResponse with one candidate holding @parts (taken). */
static JsonObject *
response (Chunks     *chunks,
          JsonArray  *parts,
          const char *finish_reason,
          JsonObject *usage)
{
  JsonObject *object = json_object_new ();
  JsonArray *candidates = json_array_new ();
  JsonObject *candidate = json_object_new ();
  JsonObject *content = json_object_new ();

  json_object_set_array_member (content, "parts", parts);
  json_object_set_string_member (content, "role", "model");
  json_object_set_object_member (candidate, "content", content);
  if (finish_reason != NULL)
    json_object_set_string_member (candidate, "finishReason", finish_reason);
  json_object_set_int_member (candidate, "index", 0);
  json_array_add_object_element (candidates, candidate);
  json_object_set_array_member (object, "candidates", candidates);
  json_object_set_object_member (object, "usageMetadata", usage);
  json_object_set_string_member (object, "modelVersion", chunks->reply->model);
  json_object_set_string_member (object, "responseId", chunks->response_id);
  return object;
}

static JsonObject *
text_part (const char *text,
           gboolean    thought)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "text", text);
  if (thought)
    json_object_set_boolean_member (part, "thought", TRUE);
  return part;
}

static JsonObject *
call_part (const OwMsToolCall *call)
{
  JsonObject *part = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_string_member (function, "name", call->name);
  /* Gemini's args are an object; "arguments_raw" goes out as a string so
   * a client meets the malformed value it would have to reject. */
  if (call->args != NULL)
    json_object_set_member (function, "args", json_node_copy (call->args));
  else
    json_object_set_string_member (function, "args", call->arguments);
  json_object_set_object_member (part, "functionCall", function);
  return part;
}

/* The parts of the reply, one per stream chunk: thought pieces, text
 * pieces, whole calls; the signature placed as the service places it. */
static GPtrArray *
reply_parts (Chunks     *chunks,
             const char *signature,
             gboolean    stream)
{
  const OwMsTurn *turn = chunks->reply->turn;
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonObject *last_text = NULL;
  guint n_chunks = stream ? turn->text_chunks : 1;

  if (turn->reasoning != NULL)
    {
      g_autoptr(GPtrArray) pieces = stream ? ow_ms_split_text (turn->reasoning, n_chunks) : NULL;

      if (pieces == NULL)
        g_ptr_array_add (parts, text_part (turn->reasoning, TRUE));
      for (guint i = 0; pieces != NULL && i < pieces->len; i++)
        g_ptr_array_add (parts, text_part (pieces->pdata[i], TRUE));
    }
  if (turn->text != NULL && turn->text[0] != '\0')
    {
      g_autoptr(GPtrArray) pieces = stream ? ow_ms_split_text (turn->text, n_chunks) : NULL;

      if (pieces == NULL)
        g_ptr_array_add (parts, last_text = text_part (turn->text, FALSE));
      for (guint i = 0; pieces != NULL && i < pieces->len; i++)
        g_ptr_array_add (parts, last_text = text_part (pieces->pdata[i], FALSE));
    }
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      JsonObject *part = call_part (turn->tool_calls->pdata[i]);

      if (i == 0)
        json_object_set_string_member (part, "thoughtSignature", signature);
      g_ptr_array_add (parts, part);
    }
  if (turn->tool_calls->len == 0 && turn->reasoning != NULL)
    {
      if (last_text == NULL)
        g_ptr_array_add (parts, last_text = text_part ("", FALSE));
      json_object_set_string_member (last_text, "thoughtSignature", signature);
    }
  if (parts->len == 0)
    g_ptr_array_add (parts, text_part ("", FALSE));
  return parts;
}

/* Frames one chunk: an SSE block, or an element of the streamed array. */
static void
add_chunk (OwMsReply  *reply,
           JsonObject *chunk,
           gboolean    first,
           gboolean    last)
{
  g_autofree char *json = ow_ms_json_to_string (chunk);

  if (reply->gemini_sse)
    ow_ms_reply_add_bytes (reply, g_strdup_printf ("data: %s\r\n\r\n", json));
  else
    ow_ms_reply_add_bytes (reply, g_strconcat (first ? "[" : ",\r\n", json, last ? "]" : "", NULL));
}

void
ow_ms_build_gemini (OwMsReply *reply)
{
  const OwMsTurn *turn = reply->turn;
  Chunks chunks = { reply, NULL, turn->usage.output - turn->usage.reasoning };
  const char *finish = turn->finish == OW_MS_FINISH_LENGTH ? "MAX_TOKENS" : "STOP";
  g_autofree char *signature = NULL;
  g_autoptr(GPtrArray) parts = NULL;

  if (turn->error != NULL && !(turn->error->in_stream && reply->stream))
    {
      g_autoptr(JsonObject) body = NULL;
      guint status;

      body = error_body (reply, &status);
      ow_ms_reply_set_json (reply, status, body);
      reply->content_type = "application/json; charset=UTF-8";
      return;
    }

  chunks.response_id = ow_ms_reply_make_id (reply, "", 22, FALSE);
  signature = ow_ms_reply_make_id (reply, "CiQB", 60, FALSE);
  parts = reply_parts (&chunks, signature, reply->stream);

  if (!reply->stream)
    {
      JsonArray *all = json_array_sized_new (parts->len);
      g_autoptr(JsonObject) body = NULL;

      for (guint i = 0; i < parts->len; i++)
        json_array_add_object_element (all, json_object_ref (parts->pdata[i]));
      body = response (&chunks, all, finish, usage_metadata (&chunks, 1, 1));
      ow_ms_reply_set_json (reply, SOUP_STATUS_OK, body);
      reply->content_type = "application/json; charset=UTF-8";
      g_free (chunks.response_id);
      return;
    }

  reply->content_type = reply->gemini_sse ? "text/event-stream" : "application/json; charset=UTF-8";
  for (guint i = 0; i < parts->len; i++)
    {
      gboolean last = i + 1 == parts->len;
      JsonArray *one = json_array_new ();
      g_autoptr(JsonObject) chunk = NULL;

      if (last && turn->error != NULL)
        {
          /* Mid-stream failure: an error object in place of the last
           * chunk, the one that would carry the finishReason. */
          guint status;

          json_array_unref (one);
          chunk = error_body (reply, &status);
          add_chunk (reply, chunk, i == 0, TRUE);
          break;
        }
      json_array_add_object_element (one, json_object_ref (parts->pdata[i]));
      chunk = response (&chunks, one, last ? finish : NULL, usage_metadata (&chunks, i + 1, parts->len));
      add_chunk (reply, chunk, i == 0, last);
    }
  g_free (chunks.response_id);
}
