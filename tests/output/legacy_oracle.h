/* A C restatement of libvmaf's number rule (output.c), used as an oracle
   for src/output/number_format.cpp. Compiled as C, like upstream. */
#ifndef EXACTVMAF_TESTS_OUTPUT_LEGACY_ORACLE_H
#define EXACTVMAF_TESTS_OUTPUT_LEGACY_ORACLE_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Decimal shifts the fractional part of |x| needs to reach 1 (0 if none). */
int oracle_fraction_shifts(double x);
/* The number as upstream prints it; json != 0 prints null for inf/NaN. */
void oracle_legacy_token(double x, int json, char* buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
