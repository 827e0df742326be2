/* ow-usage.c: cost estimates from the prices table (see ow-usage.h). */
#define G_LOG_DOMAIN "ow-usage"

#include "core/ow-usage.h"

#include "ow-json.h"
#include "ow-resources.h"

static JsonArray *
prices_entries (void)
{
  static JsonArray *entries;

  if (g_once_init_enter (&entries))
    {
      g_autoptr(GBytes) bytes = ow_resources_lookup ("prices.json", NULL);
      g_autoptr(JsonObject) root = NULL;
      JsonArray *arr = NULL;

      if (bytes != NULL)
        root = ow_json_object_from_string (g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes), NULL);
      arr = ow_json_get_array (root, "entries");
      g_once_init_leave (&entries, arr != NULL ? json_array_ref (arr) : json_array_new ());
    }
  return entries;
}

gboolean
ow_prices_estimate (const char *bare_model, const OwUsage *usage, double *cost_usd)
{
  JsonArray *entries = prices_entries ();

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *e = json_array_get_object_element (entries, i);
      JsonArray *match = json_object_get_array_member (e, "match");

      for (guint m = 0; match != NULL && m < json_array_get_length (match); m++)
        if (g_pattern_match_simple (json_array_get_string_element (match, m), bare_model))
          {
            double input = json_object_get_double_member_with_default (e, "input", 0);
            double output = json_object_get_double_member_with_default (e, "output", 0);
            double read = json_object_get_double_member_with_default (e, "cache_read", input);
            double write = json_object_get_double_member_with_default (e, "cache_write", input);

            *cost_usd = ((double) usage->input * input + (double) usage->output * output
                         + (double) usage->cache_read * read + (double) usage->cache_write * write) / 1e6;
            return TRUE;
          }
    }
  return FALSE;
}
