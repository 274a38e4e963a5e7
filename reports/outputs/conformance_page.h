// The conformance card's outputs (docs/conformance.md): conformance.csv, one row per situation and
// library, and conformance.html, the matrix (situations x libraries), each cell's verdict, why, and
// a link to its run's timeline. The page is server-made HTML, every text escaped, under a policy
// that runs no script (page_safety.h).
#pragma once

#include <string>
#include <vector>

#include "reports/checks/conformance.h"

namespace semsim {

struct CardColumn {
  std::string library;  // as the driver named it (NAME@VERSION), else the variant
  std::string variant;
  std::string mode;     // "warp", "paced" or "virtual" (a model), and why when it fell back
  std::string folder;   // its runs' folder, relative to the card's
};

struct CardCell {
  Cell cell;
  std::string timeline;  // relative to the card's folder; "" when no run was made
};

struct CardRow {
  std::string situation, title, correct;
  std::vector<CardCell> cells;  // one per column
};

struct Card {
  int limit = 1;
  std::string partial;  // "PARTIAL: ..." when the card was cut short, said first on the page
  std::vector<CardColumn> columns;
  std::vector<CardRow> rows;
};

// The CSV: situation,title,library,folder,variant,mode,verdict,why,timeline.
std::string conformance_csv(const Card& card);
std::string conformance_html(const Card& card);

}  // namespace semsim
