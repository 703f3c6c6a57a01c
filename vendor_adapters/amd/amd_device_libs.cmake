# The device libraries clang 19 links into AMD GPU code: Debian's (ROCm 5.2's amdgcn/bitcode), plus the few
# small ones that ROCm 5.2 predates, generated here: the ISA version constants of gfx942 and gfx1100. Each is
# one LLVM IR constant, as ROCm's own oclc_isa_version_*.bc are. Sets HAL_AMD_DEVICE_LIB_DIR, or leaves it
# empty (with a message) when the bitcode or llvm-as-19 is missing.
set(HAL_AMD_DEVICE_LIB_DIR "")
find_path(hal_rocm_bitcode oclc_isa_version_90a.bc
  PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /opt/rocm/amdgcn/bitcode /opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode
  NO_DEFAULT_PATH)
find_program(hal_llvm_as NAMES llvm-as-19 PATHS /usr/lib/llvm-19/bin)
if(NOT hal_rocm_bitcode OR NOT hal_llvm_as)
  message(STATUS "torch_hal: no ROCm device bitcode or llvm-as-19: gfx942/gfx1100 code is not built")
  return()
endif()

set(dir "${CMAKE_CURRENT_BINARY_DIR}/amd_device_libs")
file(MAKE_DIRECTORY "${dir}")
file(GLOB bitcode "${hal_rocm_bitcode}/*.bc")
foreach(file IN LISTS bitcode)
  get_filename_component(name "${file}" NAME)
  file(CREATE_LINK "${file}" "${dir}/${name}" SYMBOLIC)
endforeach()
# amdgcn's data layout, as LLVM 19 writes it.
set(layout "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9-p7:160:256:256:32-p8:128:128-p9:192:256:256:32")
foreach(pair "942=9402" "1100=11000")
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 isa)
  list(GET parts 1 version)
  if(NOT EXISTS "${hal_rocm_bitcode}/oclc_isa_version_${isa}.bc")
    file(WRITE "${dir}/oclc_isa_version_${isa}.ll"
      "target datalayout = \"${layout}\"\ntarget triple = \"amdgcn-amd-amdhsa\"\n"
      "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 ${version}, align 4\n")
    file(REMOVE "${dir}/oclc_isa_version_${isa}.bc")
    execute_process(COMMAND "${hal_llvm_as}" "${dir}/oclc_isa_version_${isa}.ll" -o "${dir}/oclc_isa_version_${isa}.bc"
                    RESULT_VARIABLE failed)
    if(failed)
      message(STATUS "torch_hal: llvm-as-19 failed on the gfx${isa} ISA constant: gfx942/gfx1100 code is not built")
      return()
    endif()
  endif()
endforeach()
set(HAL_AMD_DEVICE_LIB_DIR "${dir}")
