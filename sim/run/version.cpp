#include "sim/run/version.h"

#include "semsim_commit.h"  // generated at build time: SEMSIM_COMMIT

namespace semsim {

std::string version() { return std::string(SEMSIM_RELEASE) + " (commit " + SEMSIM_COMMIT + ")"; }

}  // namespace semsim
