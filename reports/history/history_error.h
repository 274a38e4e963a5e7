// A history that cannot be read or checked: the message names the file, line and column.
#pragma once

#include <stdexcept>
#include <string>

namespace semsim {

class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace semsim
