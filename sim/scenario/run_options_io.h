// Reading and writing run options: the options of `semsim run` (and of scenario files and
// run.ini) as one Boost.Program_options description, their conversion with errors that name the
// option, and run.ini. Each option is declared once, in a table in run_options_io.cpp, from which
// all three are made.
#pragma once

#include <iosfwd>
#include <string>

#include <boost/program_options.hpp>

#include "sim/core/run_options.h"

namespace semsim {

// The options of `semsim run` (and of scenario files). Values are kept as strings so that one
// converter (run_options_from) gives every error the option's name.
boost::program_options::options_description run_options_description();

// Converts parsed options; throws std::invalid_argument naming the option. Relative file paths
// are taken relative to `base_dir` (a scenario file's folder; "" for the command line).
RunOptions run_options_from(const boost::program_options::variables_map& vm, const std::string& base_dir = "");

// The variant's default time mode (its registry entry): virtual, unless the variant's expiry rests on Redis's TTLs and Redis is not the embedded server
// (whose clock follows virtual time): then paced.
TimeMode default_mode(const std::string& variant, bool embedded_redis = true);
// The most clients a run may have (--clients, --clients-sweep).
inline constexpr long long kMaxClients = 1'000'000;

// The options as an INI file that `semsim scenario` replays (run.ini).
void write_run_ini(std::ostream& out, const RunOptions& options);

}  // namespace semsim
