/* test-readonly.c: the read-only command classifier (inventory §3.5). */
#include "policy/ow-readonly.h"

static void
test_accepted (void)
{
  const char *yes[] = {
    "cat a.txt", "ls -la", "LC_ALL=C sort -u names.txt", "grep -rn 'a|b' src | head -20", "wc -l *.c",
    "git status", "git -C sub --no-pager log --oneline -5", "git diff HEAD~1", "git branch --show-current",
    "git branch -a", "git branch --list 'feat*'", "git tag -l 'v*'", "git stash list", "git remote -v",
    "git config --get user.name", "git reflog", "sed -n '1,20p' a.txt", "sed -e 's/a/b/g' a.txt",
    "sed -E 's|x|y|' a.txt", "awk '{print $1}' a.txt", "find . -name '*.md'", "env", "command -v gcc",
    "echo \"semi;colon in quotes\"", "jq .name package.json", "diff a b", "xxd a.bin", "du -sh .",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (yes); i++)
    if (!ow_readonly_command (yes[i]))
      g_error ("not accepted: %s", yes[i]);
}

static void
test_refused (void)
{
  const char *no[] = {
    "", "   ", "rm a.txt", "cat a.txt > b.txt", "cat a.txt 2>err", "cat a &> b", "ls; rm x", "ls && rm x",
    "ls || rm x", "ls & rm x", "cat <<EOF", "cat < a", "echo $(rm x)", "echo `rm x`", "diff <(ls) b",
    "ls\nrm x", "cat 'unbalanced", "/bin/cat a", "./script.sh", "bash -c 'ls'", "python3 x.py", "curl x",
    "tee out.txt", "xargs rm", "env rm x", "command rm x", "git push", "git -c core.pager=sh log",
    "git log --output=x", "git branch new-branch", "git branch -D main", "git tag v1", "git tag",
    "git stash", "git stash pop", "git remote add o url", "git config user.name x", "git reflog expire",
    "git checkout .", "sed -i 's/a/b/' f", "sed -ni p f", "sed --in-place s/a/b/ f", "sed -f script f",
    "sed 'w out' f", "sed 's/a/b/w out' f", "sed '1e ls' f", "sed 's/a/b/e' f", "sed 'r /etc/passwd' f",
    "awk '{print > \"x\"}' f", "awk 'BEGIN{system(\"rm x\")}'", "awk '{\"date\" | getline d}'",
    "find . -delete", "find . -exec rm {} ;", "find . -fprint out", "sort -o out in", "rg --pre sh x",
    "xxd a out", "ls | ", "| ls", "ls | | wc", "A=1", "sudo cat a",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (no); i++)
    if (ow_readonly_command (no[i]))
      g_error ("accepted: %s", no[i]);
  g_assert_false (ow_readonly_command (NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/policy/readonly/accepted", test_accepted);
  g_test_add_func ("/ow/policy/readonly/refused", test_refused);
  return g_test_run ();
}
