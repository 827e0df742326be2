/* ow-model-server-reply.c: the pieces every wire style builds its answer from.
 *
 * A style fills an OwMsReply: a status, headers and either a whole body or a
 * list of stream events, each already framed as its wire frames it (an SSE
 * block, an NDJSON line, a piece of a JSON array). Keeping events whole lets
 * the sender pace them, count them for "drop_after", and cut them off at an
 * event boundary, without knowing any wire.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

#include <string.h>

/* The default stream delta: small enough that every reply arrives in several
 * pieces, which is what exercises a client's reassembly. */
#define DEFAULT_PIECE_BYTES 16

void
ow_ms_reply_init (OwMsReply *reply)
{
  memset (reply, 0, sizeof *reply);
  reply->status = SOUP_STATUS_OK;
  reply->content_type = "application/json";
  reply->headers = g_ptr_array_new_with_free_func (g_free);
  reply->body = g_string_new (NULL);
  reply->events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
}

void
ow_ms_reply_clear (OwMsReply *reply)
{
  g_clear_pointer (&reply->headers, g_ptr_array_unref);
  if (reply->body != NULL)
    g_string_free (g_steal_pointer (&reply->body), TRUE);
  g_clear_pointer (&reply->events, g_ptr_array_unref);
}

void
ow_ms_reply_add_header (OwMsReply  *reply,
                        const char *name,
                        const char *value)
{
  g_ptr_array_add (reply->headers, g_strdup (name));
  g_ptr_array_add (reply->headers, g_strdup (value));
}

void
ow_ms_reply_set_json (OwMsReply  *reply,
                      guint       status,
                      JsonObject *body)
{
  g_autofree char *text = ow_ms_json_to_string (body);

  reply->status = status;
  reply->content_type = "application/json";
  g_string_assign (reply->body, text);
}

/* Takes @framed. */
void
ow_ms_reply_add_bytes (OwMsReply *reply,
                       char      *framed)
{
  gsize len = strlen (framed);

  g_ptr_array_add (reply->events, g_bytes_new_take (framed, len));
}

/* One SSE block: an optional "event:" line, one "data:" line, a blank line.
 * JSON without pretty-printing never contains a newline, so one data line
 * always holds the whole payload, as the real services send it. */
void
ow_ms_reply_add_sse (OwMsReply  *reply,
                     const char *event,
                     JsonObject *data)
{
  g_autofree char *json = ow_ms_json_to_string (data);

  if (event != NULL)
    ow_ms_reply_add_bytes (reply, g_strdup_printf ("event: %s\ndata: %s\n\n", event, json));
  else
    ow_ms_reply_add_bytes (reply, g_strdup_printf ("data: %s\n\n", json));
}

void
ow_ms_reply_truncate (OwMsReply *reply,
                      guint      n_events)
{
  if (reply->events->len > n_events)
    g_ptr_array_set_size (reply->events, n_events);
}

/* An id shaped like the service's: a prefix and @length random characters
 * (hex, or letters and digits). */
char *
ow_ms_reply_make_id (OwMsReply  *reply,
                     const char *prefix,
                     guint       length,
                     gboolean    hex)
{
  static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static const char hex_digits[] = "0123456789abcdef";
  GString *id = g_string_new (prefix);

  for (guint i = 0; i < length; i++)
    {
      if (hex)
        g_string_append_c (id, hex_digits[g_rand_int_range (reply->rand, 0, 16)]);
      else
        g_string_append_c (id, alnum[g_rand_int_range (reply->rand, 0, sizeof alnum - 1)]);
    }
  return g_string_free (id, FALSE);
}

/* Every service names the wait in a retry-after header of seconds, except
 * Gemini, which puts a RetryInfo in the body (its builder does that). */
void
ow_ms_reply_add_retry_after (OwMsReply *reply)
{
  const OwMsError *error = reply->turn->error;

  if (error != NULL && error->retry_after >= 0)
    {
      g_autofree char *seconds = g_strdup_printf ("%d", error->retry_after);
      ow_ms_reply_add_header (reply, "retry-after", seconds);
    }
}

/* ---- Text ---------------------------------------------------------------- */

/* Splits @text into stream deltas: @n_chunks pieces of about equal length,
 * or pieces of at most DEFAULT_PIECE_BYTES bytes when @n_chunks is 0. Cuts
 * fall between characters, never inside a UTF-8 sequence. Returns an array
 * of strings, empty for empty text. */
GPtrArray *
ow_ms_split_text (const char *text,
                  guint       n_chunks)
{
  GPtrArray *pieces = g_ptr_array_new_with_free_func (g_free);
  glong n_chars;

  if (text == NULL || text[0] == '\0')
    return pieces;

  if (n_chunks == 0)
    {
      const char *start = text;
      const char *p = text;

      while (*p != '\0')
        {
          const char *next = g_utf8_next_char (p);

          if (next - start > DEFAULT_PIECE_BYTES && p > start)
            {
              g_ptr_array_add (pieces, g_strndup (start, (gsize) (p - start)));
              start = p;
            }
          p = next;
        }
      g_ptr_array_add (pieces, g_strndup (start, (gsize) (p - start)));
      return pieces;
    }

  n_chars = g_utf8_strlen (text, -1);
  if ((glong) n_chunks > n_chars)
    n_chunks = (guint) n_chars;
  for (guint k = 0; k < n_chunks; k++)
    {
      const char *from = g_utf8_offset_to_pointer (text, n_chars * k / n_chunks);
      const char *to = g_utf8_offset_to_pointer (text, n_chars * (k + 1) / n_chunks);

      g_ptr_array_add (pieces, g_strndup (from, (gsize) (to - from)));
    }
  return pieces;
}

/* ---- JSON ---------------------------------------------------------------- */

char *
ow_ms_json_to_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

/* A string member, or null for NULL (the wires spell "no value" as null). */
void
ow_ms_set_string (JsonObject *object,
                  const char *name,
                  const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

/* Takes @object. */
JsonNode *
ow_ms_object_node (JsonObject *object)
{
  JsonNode *node = json_node_init_object (json_node_alloc (), object);

  json_object_unref (object);
  return node;
}

/* Takes @array. */
JsonNode *
ow_ms_array_node (JsonArray *array)
{
  JsonNode *node = json_node_init_array (json_node_alloc (), array);

  json_array_unref (array);
  return node;
}

/* ---- Scripted values ----------------------------------------------------- */

guint
ow_ms_error_status (const OwMsError *error,
                    guint            usual)
{
  return error->status != 0 ? error->status : usual;
}

const char *
ow_ms_error_message (const OwMsError *error,
                     const char      *usual)
{
  return error->message != NULL ? error->message : usual;
}

/* The reason phrase for @status. libsoup knows no phrase for some codes the
 * services use (it would say "Unknown Error" for 429). */
const char *
ow_ms_status_phrase (guint status)
{
  switch (status)
    {
    case 425: return "Too Early";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 529: return "Overloaded";
    default:  return soup_status_get_phrase (status);
    }
}

gint64
ow_ms_usage_prompt (const OwMsUsage *usage)
{
  return usage->input + usage->cache_read + usage->cache_write;
}
