#include "reports/outputs/conformance_page.h"

#include "reports/history/text_format.h"
#include "reports/outputs/page_safety.h"

namespace semsim {

namespace {

constexpr const char* kCardStyle = R"CSS(
body{font:14px/1.4 system-ui,sans-serif;color:#1a1a1a;margin:16px;max-width:1400px}
h1{font-size:20px;margin:0 0 4px}p{margin:4px 0 10px}
table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:6px 8px;vertical-align:top;text-align:left}
thead th{background:#f2f2f2}th.sit{font-weight:600;max-width:360px}.correct{font-weight:400;color:#444;font-size:12px}
td{max-width:330px;font-size:12px}.v{font-size:14px;font-weight:700;display:block;margin-bottom:2px}
.holds .v{color:#176b2c}.lease-limit .v{color:#8a5a00}.defect{background:#fbe9e7}.defect .v{color:#a11}
.not-staged .v{color:#555}.n-a .v{color:#888}.mode{font-weight:400;font-size:12px;color:#444;display:block}
ul{margin:4px 0 12px;padding-left:20px}.partial{font-weight:700;color:#a11;font-size:16px}
)CSS";

std::string verdict_class(CellVerdict v) {
  std::string c(to_string(v));
  for (char& ch : c)
    if (ch == ' ' || ch == '/') ch = '-';
  return c;
}

}  // namespace

std::string conformance_csv(const Card& card) {
  std::string out = "situation,title,library,folder,variant,mode,verdict,why,timeline\n";
  for (const CardRow& row : card.rows)
    for (std::size_t c = 0; c < card.columns.size(); ++c) {
      const CardColumn& col = card.columns[c];
      const CardCell& cell = row.cells[c];
      for (const std::string& field : {row.situation, row.title, col.library, col.folder, col.variant, col.mode,
                                       std::string(to_string(cell.cell.verdict)), cell.cell.why, cell.timeline}) {
        append_csv_field(out, field);
        out.push_back(',');
      }
      out.back() = '\n';
    }
  return out;
}

std::string conformance_html(const Card& card) {
  std::string page = "<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">" + page_policy({}, {kCardStyle}) +
                     "<title>semsim conformance card</title><style>" + kCardStyle + "</style></head><body>\n";
  if (!card.partial.empty()) page += "<p class=partial>" + escape_html(card.partial) + "</p>\n";
  page += "<h1>Conformance card</h1>\n<p>Each row a situation a lease lock or semaphore must cope with (limit " +
          std::to_string(card.limit) + "), each column a library; each cell links its run's timeline.</p>\n";
  page += "<ul><li><b>holds</b>: it did what a correct library does.</li>"
          "<li><b>lease limit</b>: more holders than the limit, which no lease lock avoids without fencing "
          "(a holder that outlived its lease, a fault of Redis itself).</li>"
          "<li><b>defect</b>: more live leases than the limit, a grant after its lease, or no grant where one was "
          "due: a correct library avoids it.</li>"
          "<li><b>not staged</b>: the run did not show the situation (said in the cell); <b>n/a</b>: not for this "
          "library's limit.</li></ul>\n";
  page += "<table><thead><tr><th>situation</th>";
  for (const CardColumn& col : card.columns)
    page += "<th>" + escape_html(col.library) + "<span class=mode>" + escape_html(col.folder) + " &middot; " +
            escape_html(col.mode) + "</span></th>";
  page += "</tr></thead><tbody>\n";
  for (const CardRow& row : card.rows) {
    page += "<tr><th class=sit>" + escape_html(row.title) + "<div class=correct>" + escape_html(row.correct) +
            " (" + escape_html(row.situation) + ")</div></th>";
    for (const CardCell& cell : row.cells) {
      page += "<td class=\"" + verdict_class(cell.cell.verdict) + "\"><span class=v>" +
              escape_html(to_string(cell.cell.verdict)) + "</span>" + escape_html(cell.cell.why);
      if (!cell.timeline.empty()) page += " <a href=\"" + escape_html(cell.timeline) + "\">timeline.html</a>";
      page += "</td>";
    }
    page += "</tr>\n";
  }
  page += "</tbody></table>\n</body></html>\n";
  return page;
}

}  // namespace semsim
