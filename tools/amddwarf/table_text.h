/* Rows of a text table made in a buffer: the text printf's %-*s, %*llu and
 * %*.*f%% of a percentage give, without printf (table_text.c). */
#ifndef AMDDWARF_TABLE_TEXT_H
#define AMDDWARF_TABLE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct table_text {
  FILE *out;
  size_t length;
  char text[1 << 16];
} table_text;

void table_init(table_text *t, FILE *out);
/* Writes what the buffer holds to the stream. */
void table_flush(table_text *t);
void table_bytes(table_text *t, const char *bytes, size_t n);
/* printf("%-*s", WIDTH, S). */
void table_string(table_text *t, const char *s, int width);
/* printf("%*llu", WIDTH, V). */
void table_uint(table_text *t, uint64_t v, int width);
/* 100.0 * PART / WHOLE, 0.0 when WHOLE is 0: the percentage a table shows. */
double table_pct(uint64_t part, uint64_t whole);
/* printf("%*.*f%%", WIDTH, DECIMALS, table_pct(PART, WHOLE)); DECIMALS 0 or 1. */
void table_percent(table_text *t, uint64_t part, uint64_t whole, int width, int decimals);

#endif
