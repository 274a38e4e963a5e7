// The page around a timeline's data (timeline.h): its style, its controls and the script that
// draws the visible range as SVG and zooms, pans and jumps between over-admissions. Everything
// inline: the page works from a file, offline, and in print. The script puts the data's texts on
// the page as text nodes and attribute values only, and the page's policy runs that script alone
// (page_safety.h).
#pragma once

#include <string>

namespace semsim {

// The whole HTML page for `data`, the JSON object timeline.cpp writes (fields listed there).
std::string timeline_page(const std::string& variant, const std::string& data);

}  // namespace semsim
