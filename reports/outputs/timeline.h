// timeline.html: a self-contained page (inline SVG, no scripts from the network) with one row per
// client: holds as bars (possible holds after an info acquire dashed), pauses grey, crashes as
// black marks, over-admission episodes as red bands across all rows. At most `max_clients` rows
// (the lowest ids; the page says how many were left out). Bars narrower than a pixel merge, so
// the page stays small for long histories.
#pragma once

#include <string>

#include "reports/checks/summary.h"

namespace semsim {

void write_timeline_html(const std::string& history_path, const std::string& html_path,
                         const Summary& s, int max_clients = 200);

}  // namespace semsim
