// Deterministic text for CSV files and reports: quoting and fixed-decimal numbers.
// Everything goes through std::to_chars so the output never depends on the C locale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace semsim {

// RFC 4180 quoting: a field with a comma or a double quote is wrapped in quotes and inner quotes
// doubled. Newlines are replaced by spaces first, because libfccp reads one physical line per row.
std::string csv_field(std::string_view s);
void append_csv_field(std::string& out, std::string_view s);
// The fields of one line as csv_field writes them (libfccp's readers need the number of columns
// at compile time; this reads a row of any width). Throws std::invalid_argument on a stray quote.
std::vector<std::string> split_csv_line(std::string_view line);

// `value` with exactly `decimals` digits after the point ("nan"/"inf" never appear: callers pass
// finite numbers or use the optional overload, which prints an empty field for "undefined").
std::string fixed(double value, int decimals);
std::string fixed(const std::optional<double>& value, int decimals);

// One word of a shell command line: as it is when it needs no quoting, else in single quotes.
std::string shell_word(std::string_view s);

// Text for HTML: <, >, & and " as entities.
std::string escape_html(std::string_view s);

// One word for a POSIX shell, to paste back: as it is when it holds only characters no shell
// reads specially, else in single quotes (a ' inside as '\''). A newline stays inside the quotes.
std::string shell_quote(std::string_view s);

// Microseconds as milliseconds with three decimals: exact, since 1 us = 0.001 ms.
std::string us_as_ms(std::int64_t us);

void append_int(std::string& out, std::int64_t v);
void append_uint(std::string& out, std::uint64_t v);

}  // namespace semsim
