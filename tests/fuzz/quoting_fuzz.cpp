// Text that semsim writes into a gnuplot script or a line to paste into a shell (a folder's name,
// a variant's, a scenario file's): whatever the bytes, gnuplot_quote gives one single-quoted
// gnuplot string on one line, and shell_quote one shell word that reads back as the text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "reports/history/text_format.h"
#include "reports/outputs/gnuplot.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// A POSIX shell's reading of one word made of plain characters and '...' parts.
std::string shell_read(const std::string& word) {
  std::string out;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '\\') {
      check(i + 1 < word.size());
      out += word[++i];
    } else if (word[i] == '\'') {
      const std::size_t close = word.find('\'', i + 1);
      check(close != std::string::npos);
      out += word.substr(i + 1, close - i - 1);
      i = close;
    } else {
      check(std::string("|&;<>()$`\"*?[]#~ \t\n").find(word[i]) == std::string::npos);
      out += word[i];
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string g = semsim::gnuplot_quote(text);
  check(g.size() >= 2 && g.front() == '\'' && g.back() == '\'');
  for (std::size_t i = 1; i + 1 < g.size(); ++i) {
    const auto c = static_cast<unsigned char>(g[i]);
    check(c >= 0x20 && c != 0x7f);  // no newline: the string ends on its line
    if (g[i] == '\'') check(g[++i] == '\'');  // never a lone quote before the last
  }
  check(shell_read(semsim::shell_quote(text)) == text);
  return 0;
}
