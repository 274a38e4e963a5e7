#include "algorithms/api/resp_command.h"

#include <charconv>

namespace semsim {

namespace {

// "<type><n>\r\n": an array's or a bulk string's header.
void append_header(std::string& out, char type, std::size_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out += type;
  out.append(digits, end);
  out += "\r\n";
}

}  // namespace

void append_resp_command(std::string& out, const Command& command) {
  append_header(out, '*', command.size());
  for (const std::string& word : command) {
    append_header(out, '$', word.size());
    out += word;
    out += "\r\n";
  }
}

std::string resp_command(const Command& command) {
  std::string out;
  append_resp_command(out, command);
  return out;
}

}  // namespace semsim
