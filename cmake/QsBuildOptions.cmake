# qs_build_options: what every target of this project compiles with, in one place. Every target
# links it (link_libraries in the top-level CMakeLists.txt), as a build-only requirement, so
# nothing of it reaches an installed package.
#  - warnings, and in CI warnings are errors, so that a warning never lands unnoticed;
#  - Qt's strictness: no implicit const char* <-> QString (an implicit conversion guesses an
#    encoding; product code says QStringLiteral / QLatin1String / fromUtf8). Test code, full
#    of literals compared with QStrings, is exempt: its targets set QS_TEST_CODE.
add_library(qs_build_options INTERFACE)
target_compile_options(qs_build_options INTERFACE -Wall -Wextra -Wpedantic)
if("$ENV{CI}" STREQUAL "true" OR "$ENV{CI}" STREQUAL "1")
  target_compile_options(qs_build_options INTERFACE -Werror)
endif()
target_compile_definitions(qs_build_options INTERFACE
  $<$<NOT:$<BOOL:$<TARGET_PROPERTY:QS_TEST_CODE>>>:QT_NO_CAST_FROM_ASCII;QT_NO_CAST_TO_ASCII>)
