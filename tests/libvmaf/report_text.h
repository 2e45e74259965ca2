/* Helpers of the C API tests that read reports: a whole file as a string,
 * and a JSON report's "fps" (run-time noise of any length) as one '#'. */
#ifndef EXACTVMAF_TESTS_LIBVMAF_REPORT_TEXT_H
#define EXACTVMAF_TESTS_LIBVMAF_REPORT_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's bytes and a terminating NUL (empty if unreadable midway); NULL
 * when it cannot be opened. The caller frees. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = calloc((size_t)n + 1, 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = '\0';
  fclose(f);
  return s;
}

static void blank_fps(char *json) {
  char *p = strstr(json, "\"fps\": ");
  if (!p) return;
  p += 7;
  const size_t n = strcspn(p, ",");
  if (n == 0) return;
  *p = '#';
  memmove(p + 1, p + n, strlen(p + n) + 1);
}

#endif
