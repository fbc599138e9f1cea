# Writes OUT, a header defining WALSIM_GIT_DESCRIBE as `git describe --always --dirty --tags` of
# SOURCE_DIR, at every build and only when it changed: the version in a result file must name the
# tree the binary was built from, not the one CMake last configured. A tree with uncommitted
# changes to the code (sim/, models/, CMakeLists.txt) gets "-dirty.<hash of those changes>", so
# that two builds of different uncommitted code never share a version: walsim sweep takes a run
# file as its own only when its version is the sweep's. Uncommitted changes elsewhere (results/,
# scenarios/, docs) do not change the binary and leave the commit's name as it is.
execute_process(
  COMMAND git describe --always --tags
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE describe
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT describe)
  set(describe "unknown")
else()
  execute_process(
    COMMAND git diff HEAD --binary -- sim models CMakeLists.txt
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE code_diff
    ERROR_QUIET)
  execute_process(
    COMMAND git ls-files --others --exclude-standard -- sim models
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE untracked
    ERROR_QUIET)
  string(REPLACE "\n" ";" untracked_files "${untracked}")
  foreach(file IN LISTS untracked_files)
    if(file)
      file(READ ${SOURCE_DIR}/${file} text)
      string(APPEND code_diff "${file}\n${text}")
    endif()
  endforeach()
  if(code_diff)
    string(SHA1 diff_hash "${code_diff}")
    string(SUBSTRING ${diff_hash} 0 7 diff_hash)
    set(describe "${describe}-dirty.${diff_hash}")
  endif()
endif()
set(content "#define WALSIM_GIT_DESCRIBE \"${describe}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
