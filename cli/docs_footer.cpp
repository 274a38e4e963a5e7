// Where --help sends a user for more: the installed documentation (one text for every command).
#include "cli/commands.h"
#include "sim/redis/shipped_files.h"

namespace semsim {

std::string docs_footer() {
  const std::string dir = docs_dir().string();
  return "Documentation: " + dir + "/README.md; " + dir +
         "/docs/ (script variants, testing your library, published libraries, your Redis, the contract); " + dir +
         "/reports/DEFINITIONS.md (what every number means); scenarios: " + dir + "/scenarios/README.md.\n";
}

}  // namespace semsim
