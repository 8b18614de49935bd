# A diagnostics golden test, run as
#   cmake -DTIRX=<tirx CLI> -DFILE=err/NAME.tirx [-DWORK_DIR=<dir>] -P check_diag.cmake
# in tests/ (so diagnostics name the file `err/NAME.tirx`). Runs
# `tirx check [-D NAME=VALUE]... FILE`, with the defines of the file's
# `# RUN-DEFINES:` header lines, and requires exit status 1, no stdout, and a
# stderr equal to err/NAME.err byte for byte. With the environment variable
# TIRX_UPDATE_GOLDENS=1 it writes the .err file from the actual stderr instead.
# WORK_DIR, when given, keeps the actual stderr of a failing test (for diff -u).
if(NOT TIRX OR NOT FILE)
  message(FATAL_ERROR "usage: cmake -DTIRX=<tirx> -DFILE=<err/NAME.tirx> -P check_diag.cmake")
endif()
string(REGEX REPLACE "\\.tirx$" ".err" golden "${FILE}")

# The leading comment block (comment and blank lines before the first code line).
file(READ "${FILE}" source)
string(REGEX MATCH "^([ \t]*(#[^\n]*)?\n)*" header "${source}")
string(REGEX MATCHALL "(^|\n)# RUN-DEFINES:[^\n]*" define_lines "${header}")
set(defines)
foreach(line ${define_lines})
  string(REGEX REPLACE "^\n?# RUN-DEFINES:" "" words "${line}")
  string(REGEX MATCHALL "[^ \t\r]+" words "${words}")
  foreach(word ${words})
    list(APPEND defines -D "${word}")
  endforeach()
endforeach()

execute_process(COMMAND "${TIRX}" check ${defines} "${FILE}"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)

if("$ENV{TIRX_UPDATE_GOLDENS}" STREQUAL "1" AND status EQUAL 1)
  file(WRITE "${golden}" "${err}")
  message(STATUS "updated ${golden}")
  return()
endif()

set(failures "")
if(NOT status EQUAL 1)
  string(APPEND failures "exit status ${status}, expected 1\n")
endif()
if(NOT out STREQUAL "")
  string(APPEND failures "unexpected stdout:\n${out}\n")
endif()
if(NOT EXISTS "${golden}")
  string(APPEND failures "no golden file ${golden} (TIRX_UPDATE_GOLDENS=1 writes it)\n")
else()
  file(READ "${golden}" expected)
  if(NOT err STREQUAL expected)
    string(APPEND failures "stderr differs from ${golden}:\n")
    find_program(DIFF diff)
    if(DIFF AND WORK_DIR)
      string(MAKE_C_IDENTIFIER "${FILE}" actual_name)
      set(actual_file "${WORK_DIR}/${actual_name}.actual")
      file(WRITE "${actual_file}" "${err}")
      execute_process(COMMAND "${DIFF}" -u --label "${golden} (expected)"
                              --label "${FILE} (actual stderr)" "${golden}" "${actual_file}"
                      OUTPUT_VARIABLE diff_text)
      string(APPEND failures "${diff_text}")
    else()
      string(APPEND failures "--- expected\n${expected}--- actual\n${err}")
    endif()
  endif()
endif()

if(NOT failures STREQUAL "")
  message("${failures}") # verbatim; FATAL_ERROR would reflow the diff
  message(FATAL_ERROR "FAIL ${FILE}")
endif()
