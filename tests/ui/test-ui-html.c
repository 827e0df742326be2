/* test-ui-html.c: the output-encoding module and the markdown renderer.
 *
 * What an attacker controls here is everything a model, a tool or a file
 * says; what must hold is that none of it becomes markup, script or a
 * load from somewhere else. */
#include <string.h>

#include "ow-html-escape.h"
#include "ow-markdown.h"

static void
test_escape_specials (void)
{
  g_autofree char *out = ow_html_escape ("<a href=\"x\" onclick='y'>&`</a>");

  g_assert_cmpstr (out, ==, "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;");
}

static void
test_escape_null_and_empty (void)
{
  g_autofree char *a = ow_html_escape (NULL);
  g_autofree char *b = ow_html_escape ("");

  g_assert_cmpstr (a, ==, "");
  g_assert_cmpstr (b, ==, "");
}

static void
test_escape_keeps_text (void)
{
  g_autofree char *out = ow_html_escape ("Grüße – 日本語 🙂\nline two\ttab");

  g_assert_cmpstr (out, ==, "Grüße – 日本語 🙂\nline two\ttab");
}

static void
test_escape_controls_and_invalid_utf8 (void)
{
  g_autofree char *controls = ow_html_escape ("a\x01" "b\x1b[31mc\x7f" "d\r");
  g_autofree char *invalid = ow_html_escape ("ok \xff\xfe <x>");

  g_assert_cmpstr (controls, ==, "ab[31mcd\r");
  g_assert_true (g_utf8_validate (invalid, -1, NULL));
  g_assert_nonnull (strstr (invalid, "\xef\xbf\xbd"));  /* U+FFFD */
  g_assert_nonnull (strstr (invalid, "&lt;x&gt;"));
}

static void
test_escape_append_length (void)
{
  g_autoptr(GString) out = g_string_new ("[");

  ow_html_escape_append (out, "<b>cut here", 3);
  g_string_append_c (out, ']');
  g_assert_cmpstr (out->str, ==, "[&lt;b&gt;]");
}

static void
test_append_format (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  ow_html_append (out, "<p id=\"%s\">%s %H %d/%u/%l 100%%</p>", "a\"b", "<i>", "<i>ok</i>", -3, 7u, (gint64) 1 << 40);
  g_assert_cmpstr (out->str, ==, "<p id=\"a&quot;b\">&lt;i&gt; <i>ok</i> -3/7/1099511627776 100%</p>");
}

static void
test_append_null_strings (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  ow_html_append (out, "[%s][%H]", NULL, NULL);
  g_assert_cmpstr (out->str, ==, "[][]");
}

static void
test_append_unknown_conversion (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GString) out = g_string_new (NULL);
      ow_html_append (out, "%x", 1);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*unknown conversion*");
}

static void
test_safe_link (void)
{
  const char *good[] = { "https://example.com/a?b=c#d", "http://127.0.0.1:8000/", "mailto:a@example.com",
                         "artifact:report.md", "artifact:out/summary.md", "HTTPS://EXAMPLE.COM", NULL };
  const char *bad[] = { "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>", "file:///etc/passwd",
                        "vbscript:x", "/relative", "relative.html", "https://exa mple.com", "https://a\nb",
                        "https://a\\@b", "artifact:../secret", "artifact:/etc/passwd", "artifact:a/../../b",
                        "artifact:", "artifact:x:y", "", NULL };

  for (guint i = 0; good[i] != NULL; i++)
    {
      g_autofree char *out = ow_html_safe_link (good[i]);
      g_assert_cmpstr (out, ==, good[i]);
    }
  for (guint i = 0; bad[i] != NULL; i++)
    {
      g_autofree char *out = ow_html_safe_link (bad[i]);
      if (out != NULL)
        g_error ("%s was accepted", bad[i]);
    }
  g_assert_null (ow_html_safe_link (NULL));
}

static void
test_token (void)
{
  g_autofree char *a = ow_html_token ("call_1-ok");
  g_autofree char *b = ow_html_token ("x\"><script>");
  g_autofree char *c = ow_html_token (NULL);

  g_assert_cmpstr (a, ==, "call_1-ok");
  g_assert_cmpstr (b, ==, "x___script_");
  g_assert_cmpstr (c, ==, "");
}

/* ---- Markdown ------------------------------------------------------------ */

static void
test_markdown_renders (void)
{
  g_autofree char *html = ow_markdown_to_html ("# Title\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                               "- [x] done\n\n~~gone~~ https://example.com\n\n```sh\necho hi\n```\n");

  g_assert_nonnull (strstr (html, "<h1>Title</h1>"));
  g_assert_nonnull (strstr (html, "<strong>bold</strong>"));
  g_assert_nonnull (strstr (html, "<code>code</code>"));
  g_assert_nonnull (strstr (html, "<table>"));
  g_assert_nonnull (strstr (html, "<del>gone</del>"));
  g_assert_nonnull (strstr (html, "<a href=\"https://example.com\">"));
  g_assert_nonnull (strstr (html, "checkbox"));
  g_assert_nonnull (strstr (html, "<pre><code class=\"language-sh\">echo hi\n</code></pre>"));
}

static void
test_markdown_drops_raw_html (void)
{
  const char *attacks[] = {
    "<script>alert(1)</script>",
    "hello <img src=x onerror=alert(1)> world",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<div onclick=\"x()\">click</div>",
    "<style>body{display:none}</style>",
    "text\n\n<svg onload=alert(1)>",
    NULL,
  };

  for (guint i = 0; attacks[i] != NULL; i++)
    {
      g_autofree char *html = ow_markdown_to_html (attacks[i]);
      g_autofree char *lower = g_ascii_strdown (html, -1);

      if (strstr (lower, "<script") != NULL || strstr (lower, "<img") != NULL || strstr (lower, "<iframe") != NULL
          || strstr (lower, "onclick=") != NULL || strstr (lower, "onerror=") != NULL || strstr (lower, "<style") != NULL
          || strstr (lower, "<svg") != NULL)
        g_error ("raw HTML got through for %s: %s", attacks[i], html);
    }
}

static void
test_markdown_drops_dangerous_urls (void)
{
  const char *attacks[] = {
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](vbscript:msgbox)",
    "[x](file:///etc/passwd)",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    NULL,
  };

  for (guint i = 0; attacks[i] != NULL; i++)
    {
      g_autofree char *html = ow_markdown_to_html (attacks[i]);
      g_autofree char *lower = g_ascii_strdown (html, -1);

      if (strstr (lower, "href=\"javascript") != NULL || strstr (lower, "href=\"vbscript") != NULL
          || strstr (lower, "href=\"file") != NULL || strstr (lower, "href=\"data:text") != NULL
          || strstr (lower, "src=\"javascript") != NULL)
        g_error ("a dangerous URL got through for %s: %s", attacks[i], html);
    }
}

static void
test_markdown_escapes_attributes (void)
{
  g_autofree char *html = ow_markdown_to_html ("[a](https://x.example/\"onmouseover=\"alert(1))\n\n"
                                               "![\"><script>](https://x.example/i.png)");

  g_assert_null (strstr (html, "\"onmouseover"));
  g_assert_null (strstr (html, "<script"));
}

static void
test_markdown_odd_input (void)
{
  g_autofree char *empty = ow_markdown_to_html (NULL);
  g_autofree char *invalid = ow_markdown_to_html ("a \xc3\x28 b <i>");
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autofree char *nested = NULL;

  g_assert_cmpstr (empty, ==, "");
  g_assert_true (g_utf8_validate (invalid, -1, NULL));
  g_assert_null (strstr (invalid, "<i>"));
  for (int i = 0; i < 5000; i++)
    g_string_append (deep, "> ");
  g_string_append (deep, "deep");
  nested = ow_markdown_to_html (deep->str);
  g_assert_nonnull (strstr (nested, "deep"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/ui/html/escape/specials", test_escape_specials);
  g_test_add_func ("/ow/ui/html/escape/null-and-empty", test_escape_null_and_empty);
  g_test_add_func ("/ow/ui/html/escape/keeps-text", test_escape_keeps_text);
  g_test_add_func ("/ow/ui/html/escape/controls-and-invalid-utf8", test_escape_controls_and_invalid_utf8);
  g_test_add_func ("/ow/ui/html/escape/append-length", test_escape_append_length);
  g_test_add_func ("/ow/ui/html/append/format", test_append_format);
  g_test_add_func ("/ow/ui/html/append/null-strings", test_append_null_strings);
  g_test_add_func ("/ow/ui/html/append/unknown-conversion", test_append_unknown_conversion);
  g_test_add_func ("/ow/ui/html/safe-link", test_safe_link);
  g_test_add_func ("/ow/ui/html/token", test_token);
  g_test_add_func ("/ow/ui/html/markdown/renders", test_markdown_renders);
  g_test_add_func ("/ow/ui/html/markdown/drops-raw-html", test_markdown_drops_raw_html);
  g_test_add_func ("/ow/ui/html/markdown/drops-dangerous-urls", test_markdown_drops_dangerous_urls);
  g_test_add_func ("/ow/ui/html/markdown/escapes-attributes", test_markdown_escapes_attributes);
  g_test_add_func ("/ow/ui/html/markdown/odd-input", test_markdown_odd_input);
  return g_test_run ();
}
