// The public header must be valid C++ and give C linkage.
#include "sinew.h"

#include <cstdio>

int main()
{
    sinew_context *ctx = nullptr;
    if (sinew_context_create(nullptr, &ctx) != SINEW_OK) return 1;
    sinew_context_destroy(ctx);
    std::printf("sinew %s from C++\n", sinew_version());
    return sinew_version_number() == SINEW_VERSION_NUMBER ? 0 : 1;
}
