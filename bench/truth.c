/*
 * Exact float32 top-k for benchmark ground truth (bench/million.ts): reads `queries` query
 * vectors and then `n` corpus vectors (float32, `dim` each) from a file, prints the top-k labels
 * per query by dot product (the vectors are unit length, so cosine), ties to the lower label, as
 * a JSON array of arrays. Native code because a million × 300 dot products take hours in
 * JavaScript on a shared machine and seconds here.
 *
 *   cc -O3 -march=native -o truth bench/truth.c && ./truth FILE n queries dim k
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: truth FILE n queries dim k\n");
    return 2;
  }
  const char *path = argv[1];
  long n = atol(argv[2]), nq = atol(argv[3]), dim = atol(argv[4]), k = atol(argv[5]);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); return 1; }
  float *q = malloc(sizeof(float) * nq * dim);
  if (fread(q, sizeof(float), nq * dim, f) != (size_t)(nq * dim)) { fprintf(stderr, "short read (queries)\n"); return 1; }
  double *sims = malloc(sizeof(double) * nq * k);
  long *labels = malloc(sizeof(long) * nq * k);
  for (long i = 0; i < nq * k; i++) { sims[i] = -1e30; labels[i] = -1; }
  enum { BATCH = 4096 };
  float *v = malloc(sizeof(float) * BATCH * dim);
  for (long base = 0; base < n; base += BATCH) {
    long m = n - base < BATCH ? n - base : BATCH;
    if (fread(v, sizeof(float), m * dim, f) != (size_t)(m * dim)) { fprintf(stderr, "short read (corpus)\n"); return 1; }
    for (long j = 0; j < nq; j++) {
      const float *qj = q + j * dim;
      double *s = sims + j * k;
      long *l = labels + j * k;
      for (long r = 0; r < m; r++) {
        const float *x = v + r * dim;
        float acc = 0;
        for (long d = 0; d < dim; d++) acc += x[d] * qj[d];
        double sim = acc;
        if (sim <= s[k - 1]) continue;
        long at = k - 1;
        while (at > 0 && s[at - 1] < sim) { s[at] = s[at - 1]; l[at] = l[at - 1]; at--; }
        s[at] = sim;
        l[at] = base + r;
      }
    }
  }
  fclose(f);
  printf("[");
  for (long j = 0; j < nq; j++) {
    printf("%s[", j ? "," : "");
    for (long i = 0; i < k; i++) printf("%s%ld", i ? "," : "", labels[j * k + i]);
    printf("]");
  }
  printf("]\n");
  return 0;
}
