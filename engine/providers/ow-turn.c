/* ow-turn.c: the values one model call takes and gives back.
 *
 * OwModelRequest, OwTurn, OwToolCall and OwCallInfo are plain structs so
 * the agent loop, the run record and the tests can read them without
 * accessors. This file only gives them constructors and destructors; the
 * providers fill them (see ow-provider.c).
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-turn.h"

#include "providers/ow-provider-private.h"

OwToolCall *
ow_tool_call_new (const char *id,
                  const char *name,
                  const char *arguments)
{
  OwToolCall *call = g_new0 (OwToolCall, 1);

  /* A reply may leave out the id or the name (or send another type); the
   * engine and the record always have strings: the call is then answered
   * as an unknown tool, under an id of its own. */
  call->id = id != NULL ? g_strdup (id) : ow_provider_synthesize_call_id ();
  call->name = g_strdup (name != NULL ? name : "");
  /* An absent argument text means "no arguments", which every wire spells
   * as an empty object; the engine then never sees NULL. */
  call->arguments = g_strdup (arguments != NULL ? arguments : "{}");
  return call;
}

void
ow_tool_call_free (OwToolCall *call)
{
  if (call == NULL)
    return;
  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call);
}

OwTurn *
ow_turn_new (void)
{
  OwTurn *turn = g_new0 (OwTurn, 1);

  turn->text = g_string_new (NULL);
  turn->reasoning = g_string_new (NULL);
  turn->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_tool_call_free);
  return turn;
}

void
ow_turn_free (OwTurn *turn)
{
  if (turn == NULL)
    return;
  g_string_free (turn->text, TRUE);
  g_string_free (turn->reasoning, TRUE);
  g_ptr_array_unref (turn->tool_calls);
  g_free (turn->finish_reason);
  g_free (turn->sidecar_key);
  g_clear_pointer (&turn->sidecar, json_node_unref);
  g_free (turn->response_id);
  g_free (turn->served_model);
  g_free (turn);
}

void
ow_model_request_init (OwModelRequest *req)
{
  g_return_if_fail (req != NULL);

  *req = (OwModelRequest) {
    .model = NULL,
    .messages = NULL,
    .tools = NULL,
    .stream = TRUE,
    .max_output_tokens = 0,
    .reasoning_effort = NULL,
    .thinking = -1,
    .temperature = -1.0,
    .top_p = -1.0,
    .context_size = 0,
    .provider_order = NULL,
    .cache_key = NULL,
  };
}

OwCallInfo *
ow_call_info_new (void)
{
  OwCallInfo *info = g_new0 (OwCallInfo, 1);

  info->retry_after_ms = -1;
  return info;
}

void
ow_call_info_free (OwCallInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->url);
  g_free (info->host);
  g_free (info->request_id);
  g_free (info->cause);
  g_free (info);
}
