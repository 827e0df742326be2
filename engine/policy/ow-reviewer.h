/* ow-reviewer.h: the reviewer model of auto-approve mode.
 *
 * In auto-approve, routine tool calls go to a reviewer model (any
 * configured provider) instead of a person. It sees the coworker's role and
 * approval guidance, the working folders, the mode, the person's saved
 * rules, the person's own request and the exact call — never tool output,
 * which is data and may carry injected instructions. It answers allow, deny
 * or uncertain with its reasoning; uncertain goes to a person.
 *
 * It fails closed: a reply that is not exactly a verdict, an error, a
 * timeout, or a request whose serialized context exceeds 64,000 characters
 * (nothing is ever truncated) is uncertain. Repeated denials trip a circuit
 * breaker: the reviewer pauses and every call goes to a person until a
 * person resets it.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "providers/ow-provider.h"

G_BEGIN_DECLS

#define OW_REVIEW_MAX_CONTEXT 64000
#define OW_REVIEW_BREAKER_DENIALS 3

typedef enum {
  OW_REVIEW_ALLOW,
  OW_REVIEW_DENY,
  OW_REVIEW_UNCERTAIN,
} OwReviewVerdict;

const char *ow_review_verdict_to_string (OwReviewVerdict verdict);

typedef struct {
  OwReviewVerdict verdict;
  char           *reasoning;   /* the reviewer's words, or why there is no verdict */
  gboolean        failed;      /* no verdict was obtained (error, timeout, garbage, too large, paused) */
} OwReview;

void ow_review_free (OwReview *review);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwReview, ow_review_free)

/* Everything the reviewer sees. Borrowed. */
typedef struct {
  const char        *coworker;          /* the coworker's title and role */
  const char        *role;              /* its system prompt, as its definition */
  const char        *approval_guidance; /* ≤ 2,400 characters */
  const char *const *folders;           /* "path (read-write)" … */
  const char        *mode;
  const char *const *user_rules;        /* the person's standing rules, as text */
  const char        *request;           /* the person's own request, verbatim */
  const char        *tool;
  JsonObject        *arguments;
  const char        *risk;
} OwReviewRequest;

/* The serialized context a request would send (exposed for tests). */
char *ow_review_request_serialize (const OwReviewRequest *req);

#define OW_TYPE_REVIEWER (ow_reviewer_get_type ())
G_DECLARE_FINAL_TYPE (OwReviewer, ow_reviewer, OW, REVIEWER, GObject)

/* @provider and @model: the reviewer model; @timeout_ms: how long to wait
 * for a verdict (0 = 60 s). */
OwReviewer *ow_reviewer_new          (OwProvider *provider, const char *model, guint timeout_ms);
void        ow_reviewer_review_async (OwReviewer            *self,
                                      const OwReviewRequest *req,
                                      GCancellable          *cancellable,
                                      GAsyncReadyCallback    callback,
                                      gpointer               user_data);
/* Never fails: a failure is an uncertain review with failed set. */
OwReview   *ow_reviewer_review_finish (OwReviewer *self, GAsyncResult *result);

/* The circuit breaker. */
gboolean    ow_reviewer_is_paused    (OwReviewer *self);
guint       ow_reviewer_get_denials  (OwReviewer *self);
/* A person resets the breaker (the count starts over). */
void        ow_reviewer_reset        (OwReviewer *self);

G_END_DECLS
