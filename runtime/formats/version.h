#ifndef EZ_RUNTIME_VERSION_H
#define EZ_RUNTIME_VERSION_H
/* The protocol version string absorbed first by every transcript. Changing any
 * protocol step changes this string, so old proofs fail cleanly. */
const char *ez_protocol_version(void);
#endif
