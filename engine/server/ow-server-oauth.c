/* ow-server-oauth.c: the browser's way back from a sign-in.
 *
 * An authorization server redirects the person's browser to
 * http://127.0.0.1:PORT/v1/oauth/callback?code=…&state=…[&iss=…]. That is a
 * top-level navigation: it carries no OpenWorker token, so the route is
 * public, and what stands in for the token is the state: only a state
 * OwOAuth is waiting for gets as far as a token request, every other one
 * is refused at once. The answer is a small HTML page the person reads.
 */
#define G_LOG_DOMAIN "ow-server"

#include <string.h>

#include "server/ow-server-private.h"

static const char PAGE[] =
  "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>OpenWorker</title></head>"
  "<body style=\"font-family: sans-serif; margin: 3em\"><h1>%s</h1><p>%s</p></body></html>\n";

/* @title and @text are escaped here: an error message can carry what a
 * server sent. */
static void
reply_page (OwRequest *req, guint status, const char *title, const char *text)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (req->msg);
  g_autofree char *t = g_markup_escape_text (title, -1);
  g_autofree char *x = g_markup_escape_text (text, -1);
  char *body = g_strdup_printf (PAGE, t, x);

  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_message_headers_replace (h, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace (h, "Content-Security-Policy", "default-src 'none'");
  soup_message_headers_replace (h, "Referrer-Policy", "no-referrer");
  soup_server_message_set_status (req->msg, status, NULL);
  soup_server_message_set_response (req->msg, "text/html; charset=utf-8", SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
on_complete_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwRequest *req = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *resource = ow_oauth_complete_finish (OW_OAUTH (source), result, &error);

  if (ow_request_alive (req))
    {
      if (resource != NULL)
        {
          g_autofree char *text = g_strdup_printf ("OpenWorker is signed in to %s. You can close this tab.",
                                                   resource);
          reply_page (req, SOUP_STATUS_OK, "Signed in", text);
        }
      else
        reply_page (req, SOUP_STATUS_BAD_REQUEST, "Sign-in failed", error->message);
    }
  ow_request_done (req);
}

static void
oauth_callback (OwServer *self, OwRequest *req)
{
  const char *state = ow_request_query (req, "state");

  if (self->oauth == NULL || !ow_oauth_is_pending (self->oauth, state))
    {
      reply_page (req, SOUP_STATUS_BAD_REQUEST, "Sign-in failed",
                  "OpenWorker is not waiting for this sign-in: it was already completed, or it was not "
                  "started here. Start the sign-in again from OpenWorker.");
      return;
    }
  ow_request_pause (req);
  ow_oauth_complete_async (self->oauth, state, ow_request_query (req, "code"), ow_request_query (req, "iss"), ow_request_query (req, "error"),
                           self->cancellable, on_complete_cb, req);
}

static const OwRoute routes[] = {
  { "GET", "/v1/oauth/callback", oauth_callback, OW_ROUTE_PUBLIC },
};

const OwRoute *
ow_server_oauth_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}

void
ow_server_oauth_listening (OwServer *self)
{
  g_autofree char *uri = g_strdup_printf ("http://127.0.0.1:%u/v1/oauth/callback", self->port);

  ow_oauth_set_redirect_uri (self->oauth, uri);
}

void
ow_server_set_oauth (OwServer *self, OwOAuth *oauth)
{
  g_return_if_fail (OW_IS_SERVER (self));
  g_return_if_fail (oauth == NULL || OW_IS_OAUTH (oauth));
  g_set_object (&self->oauth, oauth);
  if (self->oauth != NULL && self->port != 0)
    ow_server_oauth_listening (self);
}
