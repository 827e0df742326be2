/* ow-usage.h: token counts summed over a session, and estimated cost.
 *
 * Counts reported by the provider are the truth; the cost is an estimate
 * from the prices table compiled into the engine (resources/prices.json),
 * kept beside the counts as a cross-check. A model the table does not list
 * has no cost (never a guessed one).
 */
#pragma once

#include "providers/ow-turn.h"

G_BEGIN_DECLS

/* Estimated cost of @usage for @bare_model in US dollars. FALSE when the
 * model is not in the table. */
gboolean ow_prices_estimate (const char *bare_model, const OwUsage *usage, double *cost_usd);

G_END_DECLS
