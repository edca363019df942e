/* piglit's tests/cl/program/build/include_test.h, which program/build/
 * include-directories includes through "-I tests/cl/program/build" and which
 * Debian's piglit package (0~git20220119) does not install; piglit installs
 * it since 2024 (commit a6782d132, "cl: install include_test.h").
 */
#define BUILD_OPT 1
