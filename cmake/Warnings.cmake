# Warnings are errors in moraine's own code.
add_library(moraine_warnings INTERFACE)
target_compile_options(moraine_warnings INTERFACE -Wall -Wextra -Wpedantic -Werror -Wshadow
                                                  -Wnon-virtual-dtor -Wimplicit-fallthrough)
