# docs/design.md §2 rule 4: no contraction, no fast-math, ISO C++ (not gnu++) for
# every translation unit of the project, host halves of .cu files included.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)          # -std=c++20, never -std=gnu++20
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS OFF)

# x86-64 computes float and double in SSE registers: no excess precision.
set(EXACTVMAF_FP_FLAGS -ffp-contract=off -fno-fast-math)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX,C>:${EXACTVMAF_FP_FLAGS}>")
add_compile_options("$<$<COMPILE_LANGUAGE:CXX,C>:-Wall;-Wextra>")

# Feature and numeric code: every float<->double conversion written out.
set(EXACTVMAF_STRICT_FP_WARNINGS -Wdouble-promotion -Wfloat-conversion -Werror=double-promotion -Werror=float-conversion)

if(EXACTVMAF_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${EXACTVMAF_SANITIZE};-fno-omit-frame-pointer;-fno-sanitize-recover=all>")
  add_link_options("-fsanitize=${EXACTVMAF_SANITIZE}")
endif()
