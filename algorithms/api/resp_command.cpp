#include "algorithms/api/resp_command.h"

#include <algorithm>
#include <charconv>

namespace semsim {

namespace {

std::size_t digits(std::size_t n) {
  std::size_t d = 1;
  for (; n >= 10; n /= 10) ++d;
  return d;
}

// "<type><n>\r\n": an array's or a bulk string's header, 3 + digits(n) bytes.
char* put_header(char* p, char type, std::size_t n) {
  *p++ = type;
  p = std::to_chars(p, p + 20, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

}  // namespace

void append_resp_command(std::string& out, const Command& command) {
  // Sized first and written in place: appended piece by piece, this was a twentieth of a virtual
  // run's instructions.
  std::size_t size = 3 + digits(command.size());
  for (const std::string& word : command) size += 3 + digits(word.size()) + word.size() + 2;
  const std::size_t at = out.size();
  out.resize(at + size);
  char* p = put_header(out.data() + at, '*', command.size());
  for (const std::string& word : command) {
    p = std::copy(word.begin(), word.end(), put_header(p, '$', word.size()));
    *p++ = '\r';
    *p++ = '\n';
  }
}

std::string resp_command(const Command& command) {
  std::string out;
  append_resp_command(out, command);
  return out;
}

}  // namespace semsim
