# QS_SANITIZE=address,undefined or QS_SANITIZE=thread instruments every target.
if(QS_SANITIZE)
  if(QS_SANITIZE MATCHES "thread" AND QS_SANITIZE MATCHES "address")
    message(FATAL_ERROR "QS_SANITIZE: thread and address sanitizers cannot be combined")
  endif()
  add_compile_options(-fsanitize=${QS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${QS_SANITIZE})
endif()

# QS_FUZZ instruments every library for coverage (libFuzzer) and checks memory (ASan, UBSan),
# so that the fuzzer explores the parser itself, not only the fuzz target's few lines.
if(QS_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# QS_COVERAGE instruments every target for gcov (scripts/coverage builds with it, runs the whole
# suite and prints line and branch coverage per folder with gcovr). -O0 keeps lines honest.
if(QS_COVERAGE)
  add_compile_options(--coverage -fprofile-update=atomic -O0 -g)
  add_link_options(--coverage)
endif()
