// A C++17 program outside the project that finds sinew through its CMake
// package: the public header must compile as C++17 and link as C.
#include <sinew.h>

#include <cstdio>
#include <string_view>

int main()
{
    sinew_context *ctx = nullptr;
    if (sinew_result r = sinew_context_create(nullptr, &ctx); r != SINEW_OK) {
        std::fprintf(stderr, "context: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_context_destroy(ctx);
    const std::string_view version = sinew_version();
    if (version.empty()) {
        std::fprintf(stderr, "empty version string\n");
        return 1;
    }
    std::printf("C++17 consumer linked sinew %.*s\n", static_cast<int>(version.size()), version.data());
    return 0;
}
