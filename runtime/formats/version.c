/* The protocol version string absorbed first by every transcript (docs/protocol.md). */
#include "runtime/formats/version.h"

const char *ez_protocol_version(void)
{
    return "einzk-protocol-6";
}
