/* bench-policy.c: how long the policy takes to decide one tool call.
 *
 * Loads 1,000 standing rules (shell argv prefixes, path globs, targets;
 * allow and deny) plus hard floors into a real openworker.db, then decides
 * a mix of calls — a routine command no rule matches, one a rule allows,
 * a chained command, a file write, a safety check — 20,000 times each,
 * and prints the median and 99th percentile per decision. Baseline, in the
 * same run: reading the same command line with the shell parser alone.
 *
 * Goal (issue #3): well under 50 µs per decision.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include "ow-json.h"
#include "policy/ow-policy.h"
#include "policy/ow-shell.h"
#include "store/ow-store.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
report (const char *name, double *v, int n, double baseline)
{
  qsort (v, n, sizeof *v, compare_double);
  printf ("  %-34s median %7.2f µs   p99 %7.2f µs   %5.1f× the parse alone   goal < 50 µs: %s\n", name,
          v[n / 2], v[n * 99 / 100], v[n / 2] / baseline, v[n * 99 / 100] < 50 ? "met" : "MISSED");
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 20000;
  g_autofree char *dir = g_dir_make_tmp ("ow-bench-policy-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "openworker.db", NULL);
  g_autofree char *cfg = g_build_filename (dir, "config.toml", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwStore) store = ow_store_open (db, &error);
  g_autoptr(OwConfig) config = NULL;
  g_autoptr(OwPolicy) policy = NULL;
  const char *roots[] = { dir, NULL };
  gboolean writable[] = { TRUE };
  const char *agent_dirs[] = { "/nonexistent/openworker", NULL };
  OwSafetyContext safety = { .roots = roots, .roots_writable = writable, .n_roots = 1, .cwd = dir,
                             .home = g_get_home_dir (), .agent_dirs = agent_dirs };
  const struct {
    const char *name;
    const char *tool;
    OwRisk      risk;
    const char *args;
  } calls[] = {
    { "routine command, no rule matches", "run_shell", OW_RISK_EXEC, "{\"command\":\"python3 -m pytest -q tests/test_parser.py\"}" },
    { "command a standing rule allows", "run_shell", OW_RISK_EXEC, "{\"command\":\"tool-500 build --release\"}" },
    { "chained command", "run_shell", OW_RISK_EXEC, "{\"command\":\"make && ./run.sh | tee out.log\"}" },
    { "file write", "write_file", OW_RISK_WRITE_LOCAL, "{\"path\":\"docs/report.md\",\"content\":\"hello\"}" },
    { "safety check (credential read)", "run_shell", OW_RISK_EXEC, "{\"command\":\"cat ~/.ssh/id_rsa\"}" },
  };
  g_autofree double *t = g_new (double, n);
  g_autofree double *base = g_new (double, n);
  double baseline;

  if (store == NULL)
    g_error ("%s", error->message);
  g_file_set_contents (cfg, "[policy]\ndeny = [\"run_shell:rm -rf /\", \"run_shell:mkfs\", \"write_file:/etc/**\"]\n", -1, NULL);
  for (int i = 0; i < 1000; i++)
    {
      g_autofree char *rule = NULL;
      const char *decision = i % 10 == 0 ? "deny" : "allow";
      switch (i % 4)
        {
        case 0: rule = g_strdup_printf ("run_shell:tool-%d build", i); break;
        case 1: rule = g_strdup_printf ("write_file:project-%d/**", i); break;
        case 2: rule = g_strdup_printf ("send_message:slack:C%05d", i); break;
        default: rule = g_strdup_printf ("run_shell:git-%d status", i); break;
        }
      if (ow_standing_rules_add (store, rule, decision, "bench", NULL, NULL, NULL, &error) == 0)
        g_error ("%s", error->message);
    }
  config = ow_config_load (cfg, NULL, &error);
  policy = ow_policy_new (config, store, &error);
  if (policy == NULL)
    g_error ("%s", error->message);

  /* Microsecond clock: time batches of 10 and divide, so short decisions register. */
  for (int i = 0; i < n / 10; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      for (int k = 0; k < 10; k++)
        {
          OwShellParse *p = ow_shell_parse ("python3 -m pytest -q tests/test_parser.py");
          ow_shell_parse_free (p);
        }
      base[i] = (g_get_monotonic_time () - t0) / 10.0;
    }
  qsort (base, n / 10, sizeof *base, compare_double);
  baseline = MAX (base[n / 20], 0.01);

  printf ("Policy decision latency with %u standing rules and 3 hard floors (%d decisions each, batches of 10)\n",
          1000, n);
  printf ("  baseline: parsing the command line alone, median %.2f µs\n", baseline);
  for (gsize c = 0; c < G_N_ELEMENTS (calls); c++)
    {
      g_autoptr(JsonObject) args = ow_json_object_from_string (calls[c].args, -1, NULL);
      OwPolicyCall call = { .mode = "ask", .tool = calls[c].tool, .risk = calls[c].risk, .args = args,
                            .workspace = dir, .safety = &safety };
      for (int i = 0; i < n / 10; i++)
        {
          gint64 t0 = g_get_monotonic_time ();
          for (int k = 0; k < 10; k++)
            {
              OwDecision d;
              ow_policy_decide (policy, &call, &d);
              ow_decision_clear (&d);
            }
          t[i] = (g_get_monotonic_time () - t0) / 10.0;
        }
      report (calls[c].name, t, n / 10, baseline);
    }
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
    return system (cmd) == 0 ? 0 : 1;
  }
}
