# External libraries, all from Debian packages (see Makefile's DEBIAN_PACKAGES).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
# Debian 12's libdwarf-dev (20210528) ships no pkg-config file.
find_path(LIBDWARF_INCLUDE_DIR libdwarf/libdwarf.h REQUIRED)
find_library(LIBDWARF_LIBRARY NAMES dwarf REQUIRED)
add_library(amddwarf_libdwarf INTERFACE)
target_include_directories(amddwarf_libdwarf INTERFACE ${LIBDWARF_INCLUDE_DIR})
target_link_libraries(amddwarf_libdwarf INTERFACE ${LIBDWARF_LIBRARY})
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
pkg_check_modules(MSGPACK REQUIRED IMPORTED_TARGET msgpack)
# Compressed offload bundles (CCOB): zlib and zstd payloads, an MD5 hash.
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBCRYPTO REQUIRED IMPORTED_TARGET libcrypto)

# LLVM's C disassembler API (optional): enables `amddwarf disasm`.
find_program(LLVM_CONFIG NAMES llvm-config-19 llvm-config)
set(AMDDWARF_HAVE_LLVM_DISASM OFF)
if(LLVM_CONFIG)
  execute_process(COMMAND ${LLVM_CONFIG} --includedir OUTPUT_VARIABLE LLVM_INCLUDE_DIR
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${LLVM_CONFIG} --libdir OUTPUT_VARIABLE LLVM_LIB_DIR
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(EXISTS "${LLVM_INCLUDE_DIR}/llvm-c/Disassembler.h")
    set(AMDDWARF_HAVE_LLVM_DISASM ON)
  endif()
endif()
option(AMDDWARF_DISASM "Build `amddwarf disasm` with LLVM's C disassembler API"
       ${AMDDWARF_HAVE_LLVM_DISASM})

# Loading a code object's units on first use is serialized with a mutex.
find_package(Threads REQUIRED)
