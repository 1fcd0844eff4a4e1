/* Symbol export and C++ linkage for the public headers. */
#ifndef AMDDWARF_EXPORT_H
#define AMDDWARF_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define AMDDWARF_API __attribute__((visibility("default")))
#else
#define AMDDWARF_API
#endif

#ifdef __cplusplus
#define AMDDWARF_BEGIN_DECLS extern "C" {
#define AMDDWARF_END_DECLS }
#else
#define AMDDWARF_BEGIN_DECLS
#define AMDDWARF_END_DECLS
#endif

#endif
