/* Keeps the support library non-empty before any helper exists. */
typedef int amddwarf_test_support_empty;
