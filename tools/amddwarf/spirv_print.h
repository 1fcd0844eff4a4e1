/* Printing SPIR-V locations, shared by `amddwarf spirv-line` and
 * `amddwarf symbolize`. */
#ifndef AMDDWARF_CLI_SPIRV_PRINT_H
#define AMDDWARF_CLI_SPIRV_PRINT_H

#include "cli.h"

/* Reads and indexes the module at PATH; on failure reports it for COMMAND
   and returns CLI_EXIT_BAD_INPUT, else 0 with *OUT to close by the caller. */
int spirv_print_open(const char *command, const char *path, bool json,
                     amddwarf_spirv_module **out);

/* "OpImageSampleImplicitLod %34" or "OpExtInst NonSemantic.DebugPrintf 1 %20"
   into BUF of SIZE bytes. */
void spirv_print_instruction(const amddwarf_spirv_location *loc, char *buf, size_t size);

/* The location as a JSON object. */
json_t *spirv_print_location_json(const amddwarf_spirv_location *loc);

#endif
