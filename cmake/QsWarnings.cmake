# Warnings are errors in CI so that a warning never lands unnoticed; locally they stay warnings.
add_compile_options(-Wall -Wextra -Wpedantic)
if("$ENV{CI}" STREQUAL "true" OR "$ENV{CI}" STREQUAL "1")
  add_compile_options(-Werror)
endif()
