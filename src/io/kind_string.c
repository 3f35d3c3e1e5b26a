/* English names of the kinds of saved data (core.h): a leaf that the reader
 * (for its messages) and the public saved-data calls both use. */
#include "core/internal.h"

const char *sinew_kind_string(sinew_kind kind)
{
    switch (kind) {
    case SINEW_KIND_SKIN: return "skin";
    case SINEW_KIND_SOFFD: return "surface-oriented FFD";
    case SINEW_KIND_LATTICE: return "lattice";
    case SINEW_KIND_LATTICE_BINDING: return "lattice binding";
    case SINEW_KIND_LATTICE_REFINEMENT: return "lattice refinement";
    case SINEW_KIND_BBW: return "bounded biharmonic weights";
    case SINEW_KIND_PLACEMENT: return "placement";
    case SINEW_KIND_CORRECTIVE: return "corrective";
    }
    return "unknown kind";
}
