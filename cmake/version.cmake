# Writes the version header: the project version and, when the sources are a git checkout,
# the short commit (with "-dirty" when tracked files differ from it). Run at every build by
# the pythia_version target, so that a new commit shows without configuring again; the header
# is only rewritten when its text changes. A tarball without git gets the version alone.
# Inputs: SOURCE_DIR, TEMPLATE, OUTPUT, PYTHIA_VERSION.
set(PYTHIA_GIT_COMMIT "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=7 HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
  if(NOT failed AND commit)
    set(PYTHIA_GIT_COMMIT "${commit}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" diff --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      string(APPEND PYTHIA_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
