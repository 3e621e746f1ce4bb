# marlin_add_metal_kernels(<target> FILES <file.metal>... [BATCHED <file.metal>...])
#
# Runs marlin-msl-prepass on each .metal file and compiles the generated C++ against the
# project's metal_stdlib into an OBJECT library <target>. Linking <target> links every kernel
# object, whose static registrations make the kernels findable by name (sim/runtime/
# kernel_registry.h). Quoted #includes of a .metal file are inlined by the pre-pass and
# tracked through a depfile. The BATCHED files (among FILES) also get their batched build
# (`--batch`, sim/runtime/batch_lane.h), which runs a launch's alike copies a batch at a time.
function(marlin_add_metal_kernels target)
  cmake_parse_arguments(ARG "" "" "FILES;BATCHED" ${ARGN})
  if(NOT ARG_FILES)
    message(FATAL_ERROR "marlin_add_metal_kernels(${target}): no FILES given")
  endif()
  set(generated "")
  file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/${target}_metal")
  foreach(source IN LISTS ARG_FILES)
    get_filename_component(abs "${source}" ABSOLUTE)
    get_filename_component(stem "${source}" NAME_WE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_metal/${stem}.metal.cpp")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND marlin-msl-prepass "${abs}" -o "${out}" --depfile "${out}.d"
      DEPENDS "${abs}" marlin-msl-prepass
      DEPFILE "${out}.d"
      COMMENT "Translating ${stem}.metal for the simulator"
      VERBATIM)
    list(APPEND generated "${out}")
  endforeach()
  foreach(source IN LISTS ARG_BATCHED)
    get_filename_component(abs "${source}" ABSOLUTE)
    get_filename_component(stem "${source}" NAME_WE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_metal/${stem}.batch.metal.cpp")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND marlin-msl-prepass "${abs}" -o "${out}" --depfile "${out}.d" --batch
      DEPENDS "${abs}" marlin-msl-prepass
      DEPFILE "${out}.d"
      COMMENT "Translating ${stem}.metal for the simulator (batched build)"
      VERBATIM)
    list(APPEND generated "${out}")
  endforeach()
  add_library(${target} OBJECT ${generated})
  target_link_libraries(${target} PUBLIC marlin_sim)
  # Kernel sources ignore Metal attributes ([[buffer(0)]] etc.) as unknown C++ attributes.
  # Metal's loop pragmas (#pragma unroll, #pragma clang loop) mean nothing to GCC.
  # A kernel helper that stays a call returns its counted value (value and chain tag, 16 bytes)
  # through the stack, which stalls store forwarding on every return; a higher inline limit
  # inlines the small ones, as Metal's compiler does (docs/performance.md).
  target_compile_options(${target} PRIVATE -Wno-attributes -Wno-unknown-pragmas
                                           -finline-limit=2000)
  if(MARLIN_WERROR)
    # Unused helpers and parameters are normal in kernel sources shared with Metal.
    target_compile_options(${target} PRIVATE -Wall -Werror -Wno-unused-parameter
                                             -Wno-unused-variable -Wno-unused-function
                                             -Wno-unused-but-set-variable)
  endif()
endfunction()
