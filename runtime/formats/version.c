/* The protocol version string absorbed first by every transcript (DESIGN.md §3). */
#include "runtime/formats/version.h"

const char *ez_protocol_version(void)
{
    return "einzk-protocol-2";
}
