/* ow-provider.c: the model-provider base class.
 *
 * providers/ turns the engine's provider-neutral history into one model
 * call and the reply back into an OwTurn. Five wire styles derive from
 * OwProvider (OpenAI Chat Completions, OpenAI Responses, Anthropic
 * Messages, Gemini, Ollama's native /api/chat); every service the product
 * lists is one of them plus a base URL, a key variable and quirks, read
 * from the catalog (ow-provider-catalog.c). Errors of every style are
 * classified in ow-provider-errors.c.
 *
 * One call is an OwProviderCall: it copies the request, asks the subclass
 * for the HTTP request, sends it through OwHttpClient, frames a streamed
 * 2xx body as SSE events or NDJSON lines and hands each to the subclass,
 * which fills the OwTurn and reports deltas. At the end the call decides
 * between the turn and an error: a stream without its terminal event is
 * CUT_OFF (what arrived is kept as the partial turn), a complete reply with
 * nothing in it is EMPTY_REPLY, a non-2xx status is classified, and a 400
 * naming a parameter the server does not take is retried without it (at
 * most three times). Whatever the outcome, the call's facts go to
 * OwCallInfo with credentials redacted.
 *
 * The base is split by concern over ow-provider-private.h:
 *  - ow-provider.c (this file): the wire-style names, the GObject (its
 *    configuration, quirks, and which call is running);
 *  - ow-provider-call.c: OwProviderCall, the per-call driver the unit tests
 *    run by hand, so request building, stream assembly and error
 *    classification are tested from recorded wire text without a socket;
 *  - ow-provider-subclass.c: what a wire style calls inside its vfuncs;
 *  - ow-provider-async.c: ow_provider_complete_async(), the driver over
 *    OwHttpClient, and the cause line of OwCallInfo;
 *  - ow-provider-history.c: the one walk over the canonical history every
 *    style builds its messages from, and the JSON helpers they share.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider.h"
#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-redact.h"

/* ---- Wire styles ------------------------------------------------------ */

static const char *const wire_style_names[] = {
  [OW_WIRE_OPENAI_CHAT] = "openai-chat",
  [OW_WIRE_OPENAI_RESPONSES] = "openai-responses",
  [OW_WIRE_ANTHROPIC] = "anthropic",
  [OW_WIRE_GEMINI] = "gemini",
  [OW_WIRE_OLLAMA] = "ollama",
};

const char *
ow_wire_style_to_string (OwWireStyle style)
{
  if ((guint) style >= G_N_ELEMENTS (wire_style_names))
    return NULL;
  return wire_style_names[style];
}

gboolean
ow_wire_style_from_string (const char  *str,
                           OwWireStyle *out)
{
  if (str == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (wire_style_names); i++)
    if (g_ascii_strcasecmp (str, wire_style_names[i]) == 0)
      {
        if (out != NULL)
          *out = (OwWireStyle) i;
        return TRUE;
      }
  return FALSE;
}

/* ---- GObject ------------------------------------------------------------ */

typedef struct
{
  /* configuration (construct-only) */
  char         *id;            /* catalog id */
  char         *title;         /* shown in error messages */
  char         *base_url;      /* no trailing slash */
  char         *api_key;       /* NULL for keyless servers */
  char         *key_env;       /* the variable named in messages, or NULL */
  JsonObject   *quirks;        /* the catalog entry's quirks, or NULL */
  OwWireStyle   wire_style;    /* set by ow_provider_new() */
  OwHttpClient *http;          /* sends the requests; may be NULL in unit tests */

  /* behaviour a subclass registers at init */
  OwParamFixFunc param_fixer;  /* NULL = no parameter-fix retries */

  /* borrowed */
  OwProviderCall *current;     /* the call whose vfunc is running; calls nest */
} OwProviderPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (OwProvider, ow_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_KEY_ENV,
  PROP_QUIRKS,
  PROP_HTTP_CLIENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GError *
ow_provider_real_classify_error (OwProvider     *self,
                                 guint           status,
                                 OwHttpResponse *resp,
                                 const char     *body)
{
  const OwModelRequest *req = ow_provider_get_request (self);

  return ow_provider_classify_http_error (ow_provider_get_title (self),
                                          ow_provider_get_key_env (self),
                                          req != NULL ? req->model : NULL,
                                          status, body);
}

static gboolean
ow_provider_real_stream_is_ndjson (OwProvider *self)
{
  return FALSE;
}

static void
ow_provider_finalize (GObject *object)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_free (priv->id);
  g_free (priv->title);
  g_free (priv->base_url);
  g_free (priv->api_key);
  g_free (priv->key_env);
  g_clear_pointer (&priv->quirks, json_object_unref);
  g_clear_object (&priv->http);

  G_OBJECT_CLASS (ow_provider_parent_class)->finalize (object);
}

static void
ow_provider_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, priv->id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, priv->title);
      break;
    case PROP_BASE_URL:
      g_value_set_string (value, priv->base_url);
      break;
    case PROP_API_KEY:
      g_value_set_string (value, priv->api_key);
      break;
    case PROP_KEY_ENV:
      g_value_set_string (value, priv->key_env);
      break;
    case PROP_QUIRKS:
      g_value_set_boxed (value, priv->quirks);
      break;
    case PROP_HTTP_CLIENT:
      g_value_set_object (value, priv->http);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_ID:
      priv->id = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      priv->title = g_value_dup_string (value);
      break;
    case PROP_BASE_URL:
      {
        const char *url = g_value_get_string (value);
        gsize len = url != NULL ? strlen (url) : 0;

        while (len > 0 && url[len - 1] == '/')
          len--;
        priv->base_url = g_strndup (url != NULL ? url : "", len);
      }
      break;
    case PROP_API_KEY:
      priv->api_key = g_value_dup_string (value);
      if (priv->api_key != NULL && priv->api_key[0] == '\0')
        g_clear_pointer (&priv->api_key, g_free);
      /* The key must never reach a log or a record file. */
      ow_redact_register_secret (priv->api_key);
      break;
    case PROP_KEY_ENV:
      priv->key_env = g_value_dup_string (value);
      break;
    case PROP_QUIRKS:
      priv->quirks = g_value_dup_boxed (value);
      break;
    case PROP_HTTP_CLIENT:
      priv->http = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_class_init (OwProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ow_provider_finalize;
  object_class->get_property = ow_provider_get_property;
  object_class->set_property = ow_provider_set_property;

  klass->classify_error = ow_provider_real_classify_error;
  klass->stream_is_ndjson = ow_provider_real_stream_is_ndjson;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  properties[PROP_BASE_URL] = g_param_spec_string ("base-url", NULL, NULL, NULL, flags);
  properties[PROP_API_KEY] = g_param_spec_string ("api-key", NULL, NULL, NULL, flags);
  properties[PROP_KEY_ENV] = g_param_spec_string ("key-env", NULL, NULL, NULL, flags);
  properties[PROP_QUIRKS] = g_param_spec_boxed ("quirks", NULL, NULL, JSON_TYPE_OBJECT, flags);
  properties[PROP_HTTP_CLIENT] = g_param_spec_object ("http-client", NULL, NULL,
                                                      OW_TYPE_HTTP_CLIENT, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_provider_init (OwProvider *self)
{
}

OwProvider *
ow_provider_new (OwWireStyle             style,
                 const OwProviderConfig *config,
                 OwHttpClient           *http)
{
  OwProvider *self;
  OwProviderPrivate *priv;
  GType type;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (http == NULL || OW_IS_HTTP_CLIENT (http), NULL);

  switch (style)
    {
    case OW_WIRE_OPENAI_CHAT:
      type = OW_TYPE_PROVIDER_OPENAI_CHAT;
      break;
    case OW_WIRE_OPENAI_RESPONSES:
      type = OW_TYPE_PROVIDER_OPENAI_RESPONSES;
      break;
    case OW_WIRE_ANTHROPIC:
      type = OW_TYPE_PROVIDER_ANTHROPIC;
      break;
    case OW_WIRE_GEMINI:
      type = OW_TYPE_PROVIDER_GEMINI;
      break;
    case OW_WIRE_OLLAMA:
      type = OW_TYPE_PROVIDER_OLLAMA;
      break;
    default:
      g_return_val_if_reached (NULL);
    }

  self = g_object_new (type,
                       "id", config->id,
                       "title", config->title != NULL ? config->title : config->id,
                       "base-url", config->base_url,
                       "api-key", config->api_key,
                       "key-env", config->key_env,
                       "quirks", config->quirks,
                       "http-client", http,
                       NULL);
  priv = ow_provider_get_instance_private (self);
  priv->wire_style = style;
  return self;
}

const char *
ow_provider_get_id (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->id;
}

const char *
ow_provider_get_title (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  if (priv->title != NULL)
    return priv->title;
  return priv->id != NULL ? priv->id : "The model provider";
}

const char *
ow_provider_get_base_url (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->base_url;
}

const char *
ow_provider_get_api_key (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->api_key;
}

const char *
ow_provider_get_key_env (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->key_env;
}

OwWireStyle
ow_provider_get_wire_style (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), OW_WIRE_OPENAI_CHAT);
  return priv->wire_style;
}

const char *
ow_provider_get_quirk_string (OwProvider *self,
                              const char *name)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return ow_json_get_string (priv->quirks, name);
}

gboolean
ow_provider_get_quirk_bool (OwProvider *self,
                            const char *name,
                            gboolean    fallback)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), fallback);
  return ow_json_get_bool (priv->quirks, name, fallback);
}

gint64
ow_provider_get_quirk_int (OwProvider *self,
                           const char *name,
                           gint64      fallback)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), fallback);
  return ow_json_get_int (priv->quirks, name, fallback);
}

JsonNode *
ow_provider_get_quirk (OwProvider *self,
                       const char *name)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  if (priv->quirks == NULL || !json_object_has_member (priv->quirks, name))
    return NULL;
  return json_object_get_member (priv->quirks, name);
}

/* ---- The running call --------------------------------------------------- */

void
ow_provider_call_enter (OwProviderCall *call)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);

  /* Vfuncs run synchronously, so "the current call" is a stack: a second
   * call on the same provider (say, a reviewer running from a delta
   * callback) restores the first one when it leaves. */
  call->outer = priv->current;
  priv->current = call;
}

void
ow_provider_call_leave (OwProviderCall *call)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);

  priv->current = call->outer;
  call->outer = NULL;
}

OwProviderCall *
ow_provider_get_current_call (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  return priv->current;
}

OwParamFixFunc
ow_provider_get_param_fixer (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  return priv->param_fixer;
}

void
ow_provider_set_param_fixer (OwProvider     *self,
                             OwParamFixFunc  func)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  priv->param_fixer = func;
}

OwHttpClient *
ow_provider_get_http_client (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  return priv->http;
}
