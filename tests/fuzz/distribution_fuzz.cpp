// Durations and distributions, as every option and table field is read.
#include <stdexcept>
#include <string>

#include "sim/core/distribution.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    semsim::parse_duration(text);
  } catch (const std::invalid_argument&) {
  }
  for (auto unit : {semsim::Distribution::Unit::duration, semsim::Distribution::Unit::number}) {
    try {
      const semsim::Distribution d = semsim::Distribution::parse(text, unit);
      semsim::Rng rng(1);
      for (int i = 0; i < 4; ++i) d.sample(rng);
      semsim::Distribution::parse(d.text(), unit);  // what it prints, it reads back
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
