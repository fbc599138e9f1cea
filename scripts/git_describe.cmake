# Writes OUT, a header defining WALSIM_GIT_DESCRIBE as `git describe --always --dirty --tags` of
# SOURCE_DIR, at every build and only when it changed: the version in a result file must name the
# tree the binary was built from, not the one CMake last configured.
execute_process(
  COMMAND git describe --always --dirty --tags
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE describe
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT describe)
  set(describe "unknown")
endif()
set(content "#define WALSIM_GIT_DESCRIBE \"${describe}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
