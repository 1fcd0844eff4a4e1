/* LLVM's C disassembler API, loaded on first use (llvm_disasm_api.h). */
#include "object/llvm_disasm_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* AMDDWARF_LLVM_SONAME and AMDDWARF_LLVM_PATH come from the build: the
   library's soname (found through the loader's search path) and the file
   it was built against (the fallback). */

static llvm_disasm_api loaded_api;
static const llvm_disasm_api *api;
static const char *load_error = "LLVM's disassembler library was not loaded";
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Symbol name and where its address goes; one row per function used. */
#define API_SYMBOLS(X)                                               \
  X(initialize_target_info, "LLVMInitializeAMDGPUTargetInfo")        \
  X(initialize_target_mc, "LLVMInitializeAMDGPUTargetMC")            \
  X(initialize_disassembler, "LLVMInitializeAMDGPUDisassembler")     \
  X(create, "LLVMCreateDisasmCPUFeatures")                           \
  X(instruction, "LLVMDisasmInstruction")                            \
  X(dispose, "LLVMDisasmDispose")

static void load(void)
{
  void *lib = dlopen(AMDDWARF_LLVM_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    lib = dlopen(AMDDWARF_LLVM_PATH, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *message = dlerror();
    load_error = message != NULL ? message : "cannot load " AMDDWARF_LLVM_SONAME;
    return;
  }
  /* POSIX guarantees that dlsym's data pointer holds a function's address;
     copying its bytes avoids the conversion ISO C leaves undefined. */
#define RESOLVE(field, symbol)                                       \
  {                                                                  \
    void *address = dlsym(lib, symbol);                              \
    if (address == NULL) {                                           \
      load_error = AMDDWARF_LLVM_SONAME " lacks " symbol;            \
      dlclose(lib);                                                  \
      return;                                                        \
    }                                                                \
    memcpy(&loaded_api.field, &address, sizeof address);             \
  }
  API_SYMBOLS(RESOLVE)
#undef RESOLVE
  loaded_api.initialize_target_info();
  loaded_api.initialize_target_mc();
  loaded_api.initialize_disassembler();
  api = &loaded_api;
}

const llvm_disasm_api *amddwarf__llvm_disasm_api(const char **why)
{
  pthread_once(&load_once, load);
  if (api == NULL && why != NULL)
    *why = load_error;
  return api;
}

bool amddwarf__llvm_disasm_present(void)
{
  if (api != NULL)
    return true;
  void *already = dlopen(AMDDWARF_LLVM_SONAME, RTLD_LAZY | RTLD_NOLOAD);
  if (already != NULL) {
    dlclose(already);
    return true;
  }
  return access(AMDDWARF_LLVM_PATH, R_OK) == 0;
}
