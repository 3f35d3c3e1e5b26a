/* A program outside the project that finds sinew only through pkg-config. */
#include <sinew.h>
#include <stdio.h>

int main(void)
{
    sinew_context *ctx = NULL;
    sinew_result r = sinew_context_create(NULL, &ctx);
    if (r != SINEW_OK) {
        fprintf(stderr, "context: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_context_destroy(ctx);
    printf("consumer linked sinew %s\n", sinew_version());
    return 0;
}
