/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl_version(): the version of the library linked at run time.  It is
 * compiled from the same PL_VERSION_* macros as the header, so a program
 * built against one header and run against another library can tell
 * (CMake derives the shared library's soname from the same macros).
 */
#include "proofline.h"

const char *pl_version(void)
{
    return PL_VERSION_STRING;
}
