/* Result names and the thread-local failure message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

/* SN_MESSAGE_CAPACITY: long enough for a sentence naming an element and its values. */
static _Thread_local char message[SN_MESSAGE_CAPACITY];

const char *sinew_result_string(sinew_result result)
{
    switch (result) {
    case SINEW_OK: return "ok";
    case SINEW_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case SINEW_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SINEW_ERROR_SIZE_OVERFLOW: return "size overflow";
    case SINEW_ERROR_NON_FINITE: return "non-finite value";
    case SINEW_ERROR_INDEX_OUT_OF_RANGE: return "index out of range";
    case SINEW_ERROR_DEGENERATE: return "degenerate element";
    case SINEW_ERROR_INVALID_WEIGHTS: return "invalid weights";
    case SINEW_ERROR_MISMATCH: return "mismatch with bound data";
    case SINEW_ERROR_CANCELLED: return "cancelled";
    case SINEW_ERROR_NOT_CONVERGED: return "not converged";
    case SINEW_ERROR_BUDGET_EXCEEDED: return "budget exceeded";
    case SINEW_ERROR_INVALID_TOPOLOGY: return "invalid topology";
    case SINEW_ERROR_OUTSIDE_DOMAIN: return "outside domain";
    case SINEW_ERROR_INVALID_STATE: return "invalid state";
    case SINEW_ERROR_UNSUPPORTED: return "unsupported";
    case SINEW_ERROR_NO_RESULT: return "no result";
    case SINEW_ERROR_BUFFER_TOO_SMALL: return "buffer too small";
    case SINEW_ERROR_INVALID_DATA: return "invalid saved data";
    }
    return "unknown result";
}

const char *sinew_last_error(void)
{
    return message;
}

void sinew_clear_error(void)
{
    message[0] = '\0';
}

void sn_clear_error(void)
{
    message[0] = '\0';
}

void sn_save_error(char saved[SN_MESSAGE_CAPACITY])
{
    memcpy(saved, message, SN_MESSAGE_CAPACITY);
}

void sn_restore_error(const char saved[SN_MESSAGE_CAPACITY])
{
    memcpy(message, saved, SN_MESSAGE_CAPACITY);
}

sinew_result sn_fail(sinew_result code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    return code;
}
