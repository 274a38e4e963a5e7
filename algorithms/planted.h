// Known-bad variants, for checking the checker (DESIGN.md, "Checking the checker"). Each is a
// real variant with ONE deliberate change; a checker that does not flag them proves nothing.
#pragma once

#include "algorithms/registry.h"

#include <memory>

#include "algorithms/api/semaphore.h"

namespace semsim {

std::unique_ptr<Semaphore> make_fair_weights_1_1(SemaphoreConfig config);
std::unique_ptr<Semaphore> make_basic_no_cleanup(SemaphoreConfig config);
std::unique_ptr<Semaphore> make_fair_pipeline(SemaphoreConfig config);
std::unique_ptr<Semaphore> make_fair_locked_short_lock(SemaphoreConfig config);

// Registry entries (algorithms/registry.h) of the planted bugs.
std::vector<VariantInfo> planted_variants();

}  // namespace semsim
