// What keeps data inert in semsim's pages (report.html, timeline.html). A history, an INI, a CSV,
// a file name or a driver's output may hold markup; on a page it must stay text. Two layers:
// - the writers: server-made HTML goes through escape_html (text_format.h), and data a page's
//   script draws travels as JSON in a <script type="application/json"> block (json_string), which
//   the script reads with textContent and puts in the page through textContent and attributes only;
// - the browser: each page carries a Content-Security-Policy (page_policy) that runs no script and
//   applies no style but the page's own, by their SHA-256, so that an injection missed by the first
//   layer still cannot run (no inline handler, no other <script>) nor load anything.
// Hashes, not nonces: the same input gives the same page, byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace semsim {

// A JSON string literal that is safe inside a <script> element of an HTML page: <, > and & as
// \u003c, \u003e, \u0026 (no "</script", "<!--" or "-->" can form), U+2028 and U+2029 as
// \u2028, \u2029 (line terminators in older JavaScript), control characters as \u00XX.
std::string json_string(std::string_view s);

// The standard base64 of the SHA-256 of `text` (FIPS 180-4), as a CSP source wants it.
std::string sha256_base64(std::string_view text);

// <meta http-equiv="Content-Security-Policy" ...>: nothing loads from anywhere; the only scripts
// that run are those whose text is in `scripts` and the only style those whose text is in
// `styles` (by hash; no style attribute, no inline handler). Put it first in <head>: a meta
// policy covers only what follows it.
std::string page_policy(const std::vector<std::string_view>& scripts, const std::vector<std::string_view>& styles);

}  // namespace semsim
