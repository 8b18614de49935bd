# A CUDA codegen test, run as
#   cmake -DDRIVER=<codegen_check> -DFILECHECK=<FileCheck> -DFILE=codegen/NAME.tirx
#         [-DWORK_DIR=<dir>] -P codegen_test.cmake
# in tests/. The file's leading comment block says which targets to generate
# for (`# ARCHS: sm_80 sm_90a sm_100a`) and may add driver flags
# (`# FLAGS: --fast-math`).
# - For codegen/err_*.tirx, generating for the first target must fail (exit 1)
#   with exactly the stderr in codegen/err_*.err (TIRX_UPDATE_GOLDENS=1 writes
#   it).
# - Otherwise, for each target: generate, check the CUDA with FileCheck against
#   the file's `CHECK:` lines and its `SM80:` / `SM90A:` / `SM100A:` lines,
#   compile it with NVRTC (ptxas validates it; "SKIPPED:" when NVRTC cannot be
#   loaded), and check that generation is deterministic.
if(NOT DRIVER OR NOT FILE)
  message(FATAL_ERROR "usage: cmake -DDRIVER=<codegen_check> -DFILECHECK=<FileCheck> "
                      "-DFILE=codegen/NAME.tirx -P codegen_test.cmake")
endif()
if(NOT WORK_DIR)
  set(WORK_DIR ".")
endif()
string(REGEX REPLACE "\\.tirx$" ".err" golden "${FILE}")
string(MAKE_C_IDENTIFIER "${FILE}" stem)

# Words of the header lines `# KEY: ...`.
file(READ "${FILE}" source)
string(REGEX MATCH "^([ \t]*(#[^\n]*)?\n)*" header "${source}")
function(header_words key out_var)
  string(REGEX MATCHALL "(^|\n)# ${key}:[^\n]*" lines "${header}")
  set(words)
  foreach(line ${lines})
    string(REGEX REPLACE "^\n?# ${key}:" "" rest "${line}")
    string(REGEX MATCHALL "[^ \t\r]+" more "${rest}")
    list(APPEND words ${more})
  endforeach()
  set(${out_var} ${words} PARENT_SCOPE)
endfunction()
header_words(ARCHS archs)
header_words(FLAGS flags)
if(NOT archs)
  message(FATAL_ERROR "${FILE}: no '# ARCHS:' line")
endif()

get_filename_component(name "${FILE}" NAME)
if(name MATCHES "^err_")
  list(GET archs 0 arch)
  execute_process(COMMAND "${DRIVER}" --arch ${arch} ${flags} "${FILE}"
                  RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE err)
  if("$ENV{TIRX_UPDATE_GOLDENS}" STREQUAL "1" AND status EQUAL 1)
    file(WRITE "${golden}" "${err}")
    message(STATUS "updated ${golden}")
    return()
  endif()
  if(NOT EXISTS "${golden}")
    message(FATAL_ERROR "FAIL ${FILE}: no ${golden} (TIRX_UPDATE_GOLDENS=1 writes it)\n${err}")
  endif()
  file(READ "${golden}" expected)
  if(NOT status EQUAL 1 OR NOT err STREQUAL expected)
    message("exit status ${status} (expected 1)\n--- expected stderr\n${expected}--- actual\n${err}")
    message(FATAL_ERROR "FAIL ${FILE}")
  endif()
  return()
endif()

# Under the sanitizers the NVRTC step runs without LeakSanitizer: on some
# kernels its stop-the-world tracer segfaults at the exit of a process that
# compiled NVSHMEM code as relocatable ("Tracer caught signal 11", every time
# for codegen/nvshmem.tirx at sm_100a on such a machine). The step checks only
# that NVRTC accepts the CUDA; the generation steps before and after it, and
# the runtime's compile tests, keep leak detection.
set(nvrtc_env "")
if(DEFINED ENV{ASAN_OPTIONS})
  set(nvrtc_env "ASAN_OPTIONS=$ENV{ASAN_OPTIONS}:detect_leaks=0")
endif()
set(skipped "")
foreach(arch ${archs})
  execute_process(COMMAND "${DRIVER}" --arch ${arch} ${flags} "${FILE}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE cuda ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FAIL ${FILE} (${arch}): codegen failed (${status})\n${err}")
  endif()
  set(cuda_file "${WORK_DIR}/${stem}.${arch}.cu")
  file(WRITE "${cuda_file}" "${cuda}")
  string(TOUPPER "${arch}" prefix)
  string(REPLACE "_" "" prefix "${prefix}")
  execute_process(COMMAND "${FILECHECK}" --allow-unused-prefixes --check-prefixes=CHECK,${prefix}
                          --input-file "${cuda_file}" "${FILE}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message("${out}${err}")
    message(FATAL_ERROR "FAIL ${FILE} (${arch}): FileCheck (the CUDA is in ${cuda_file})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${nvrtc_env}
                          "${DRIVER}" --arch ${arch} ${flags} --nvrtc "${FILE}"
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(status EQUAL 77)
    set(skipped "${err}")
  elseif(NOT status EQUAL 0)
    message("${err}")
    message(FATAL_ERROR "FAIL ${FILE} (${arch}): NVRTC rejected the CUDA in ${cuda_file}")
  endif()
  execute_process(COMMAND "${DRIVER}" --arch ${arch} ${flags} --twice --no-lines "${FILE}"
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "FAIL ${FILE} (${arch}): ${err}")
  endif()
endforeach()
if(skipped)
  message("${skipped}") # SKIPPED: ... (the test's SKIP_REGULAR_EXPRESSION)
endif()
