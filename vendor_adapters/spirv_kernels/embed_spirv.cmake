# Writes OUTPUT, a C++ source that defines the bytes of the SPIR-V module INPUT as hal_spirv::SYMBOL and its
# size as hal_spirv::SYMBOL_size (run with cmake -P at build time, after the module is compiled).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by embed_spirv.cmake: do not edit.\n#include <cstddef>\n"
  "namespace hal_spirv {\nextern const unsigned char ${SYMBOL}[] = {${bytes}};\n"
  "extern const size_t ${SYMBOL}_size = ${size};\n}  // namespace hal_spirv\n")
