// The --variant names and the one place that builds a variant from its name.
#include <stdexcept>

#include "algorithms/basic.h"
#include "algorithms/fair.h"
#include "algorithms/fair_locked.h"
#include "algorithms/lua.h"
#include "algorithms/planted.h"
#include "algorithms/script_variant.h"
#include "algorithms/semaphore.h"
#include "algorithms/ttl_key.h"

namespace semsim {

std::vector<std::string> builtin_variants() {
  return {
      // the seeds' variants
      "basic", "basic-pipeline", "fair", "fair-global-counter", "fair-locked",
      "fair-locked-as-published", "ttl-key",
      // beyond the seeds
      "lua",
      // planted bugs (algorithms/planted.cpp)
      "fair-weights-1-1", "basic-no-cleanup", "fair-pipeline", "fair-locked-short-lock",
  };
}

std::unique_ptr<Semaphore> make_semaphore(const std::string& variant, SemaphoreConfig config) {
  // `script:FILE.ini` variants (a user-written protocol read from a file) plug in HERE, before
  // the built-in names, e.g.:
  //   if (variant.starts_with("script:")) return make_script_semaphore(variant.substr(7), config);
  // Not implemented in this file; a bad file must throw SetupError naming it.
  if (variant.starts_with("script:")) return make_script_semaphore(variant.substr(7), std::move(config));

  if (variant == "basic")
    return std::make_unique<BasicSemaphore>(std::move(config), BasicSemaphore::Options{});
  if (variant == "basic-pipeline")
    return std::make_unique<BasicSemaphore>(std::move(config),
                                            BasicSemaphore::Options{.atomic = false});
  if (variant == "fair") {
    FairSemaphore::Options options{fair_keys(config.name)};
    return std::make_unique<FairSemaphore>(std::move(config), std::move(options));
  }
  if (variant == "fair-global-counter") {
    FairSemaphore::Options options{fair_keys_global_counter(config.name)};
    options.atomic = false;  // seed 001 uses plain ioredis pipelines
    return std::make_unique<FairSemaphore>(std::move(config), std::move(options));
  }
  if (variant == "fair-locked")
    return std::make_unique<FairLockedSemaphore>(std::move(config), FairLockedSemaphore::Options{});
  if (variant == "fair-locked-as-published")
    return std::make_unique<FairLockedAsPublished>(std::move(config));
  if (variant == "ttl-key") return std::make_unique<TtlKeySemaphore>(std::move(config));
  if (variant == "lua") return std::make_unique<LuaSemaphore>(std::move(config));
  if (variant == "fair-weights-1-1") return make_fair_weights_1_1(std::move(config));
  if (variant == "basic-no-cleanup") return make_basic_no_cleanup(std::move(config));
  if (variant == "fair-pipeline") return make_fair_pipeline(std::move(config));
  if (variant == "fair-locked-short-lock") return make_fair_locked_short_lock(std::move(config));

  std::string known;
  for (const auto& name : builtin_variants()) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown variant '" + variant + "' (known: " + known +
                              ", script:FILE.ini)");
}

}  // namespace semsim
