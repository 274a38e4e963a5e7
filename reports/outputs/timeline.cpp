#include "reports/outputs/timeline.h"

#include "reports/history/output_file.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "reports/history/history_reader.h"
#include "reports/history/text_format.h"

namespace semsim {

namespace {

constexpr int kPlotWidth = 1200;  // px for the whole history
constexpr int kLabelWidth = 90;
constexpr int kRowHeight = 14;
constexpr int kTop = 30;

enum class Kind { hold, possible, pause };

// Pixel-space bars of one kind for one client; touching bars merge, so a row has at most
// kPlotWidth / 2 bars however many holds it had.
struct Bars {
  struct Bar {
    int x0, x1;
    int count;
    std::int64_t t0_us, t1_us;
    std::string label;
  };
  std::vector<Bar> bars;
  void add(int x0, int x1, std::int64_t t0, std::int64_t t1, const std::string& label) {
    if (x1 < x0 + 1) x1 = x0 + 1;
    if (!bars.empty() && x0 <= bars.back().x1) {
      Bar& b = bars.back();
      b.x1 = std::max(b.x1, x1);
      b.t1_us = std::max(b.t1_us, t1);
      ++b.count;
      return;
    }
    bars.push_back({x0, x1, 1, t0, t1, label});
  }
};

struct Row {
  Bars holds, possible, pauses;
  std::vector<int> crashes;  // x of each crash (deduplicated per pixel)
  bool holding = false, maybe = false, paused = false;
  std::int64_t hold_since = 0, maybe_since = 0, pause_since = 0;
  std::string identifier;
};

}  // namespace

void write_timeline_html(const std::string& history_path, const std::string& html_path,
                         const Summary& s, int max_clients) {
  // Rows: the lowest client ids that ever acquired.
  std::map<int, Row> rows;
  int shown = 0;
  for (const ClientStats& c : s.per_client)
    if (shown < max_clients) {
      rows[c.client];
      ++shown;
    }
  const int hidden = static_cast<int>(s.per_client.size()) - shown;
  const std::int64_t t0 = s.start_us;
  const std::int64_t span = std::max<std::int64_t>(s.end_us - s.start_us, 1);
  auto x_of = [&](std::int64_t t) {
    return kLabelWidth + static_cast<int>((t - t0) * kPlotWidth / span);
  };
  auto label = [](const char* what, const std::string& id, std::int64_t a, std::int64_t b) {
    return std::string(what) + (id.empty() ? "" : " " + id) + " [" + us_as_ms(a) + ", " +
           us_as_ms(b) + ") ms";
  };

  // Faults of Redis itself (client 0): a line across every row, with what happened.
  struct ServerMark {
    int x;
    std::string what;
  };
  std::vector<ServerMark> server_marks;

  HistoryReader reader(history_path);
  Event e;
  while (reader.next(e)) {
    if (is_server_fault(e.op) || e.op == Op::server_jump) {
      server_marks.push_back({x_of(e.true_us), std::string(to_string(e.op)) + " at " + us_as_ms(e.true_us) + " ms" +
                                                   (e.detail.empty() ? "" : " (" + e.detail + ")")});
      continue;
    }
    auto it = rows.find(e.client);
    if (e.op == Op::run || it == rows.end()) continue;
    Row& r = it->second;
    auto end_hold = [&] {
      if (r.holding) r.holds.add(x_of(r.hold_since), x_of(e.true_us), r.hold_since, e.true_us,
                                 label("holds", r.identifier, r.hold_since, e.true_us));
      if (r.maybe) r.possible.add(x_of(r.maybe_since), x_of(e.true_us), r.maybe_since, e.true_us,
                                  label("may hold (acquire outcome unknown)", "", r.maybe_since, e.true_us));
      r.holding = r.maybe = false;
    };
    switch (e.op) {
      case Op::acquire:
        if (e.phase == Phase::ok && !r.holding) {
          if (r.maybe) end_hold();
          r.holding = true;
          r.hold_since = e.true_us;
          r.identifier = e.identifier;
        } else if (e.phase == Phase::info && !r.holding && !r.maybe) {
          r.maybe = true;
          r.maybe_since = e.true_us;
        }
        break;
      case Op::release:
        if (e.phase == Phase::invoke) end_hold();
        break;
      case Op::refresh:
        if (e.phase == Phase::fail) end_hold();
        break;
      case Op::crash:
        end_hold();
        if (r.crashes.empty() || r.crashes.back() != x_of(e.true_us)) r.crashes.push_back(x_of(e.true_us));
        break;
      case Op::pause:
        if (!r.paused) {
          r.paused = true;
          r.pause_since = e.true_us;
        }
        break;
      case Op::resume:
        if (r.paused)
          r.pauses.add(x_of(r.pause_since), x_of(e.true_us), r.pause_since, e.true_us,
                       label("paused", "", r.pause_since, e.true_us));
        r.paused = false;
        break;
      default:
        break;
    }
  }
  // Whatever is still open runs to the end of the history.
  for (auto& [id, r] : rows) {
    if (r.holding) r.holds.add(x_of(r.hold_since), x_of(s.end_us), r.hold_since, s.end_us,
                               label("holds (to the end)", r.identifier, r.hold_since, s.end_us));
    if (r.maybe) r.possible.add(x_of(r.maybe_since), x_of(s.end_us), r.maybe_since, s.end_us,
                                label("may hold", "", r.maybe_since, s.end_us));
    if (r.paused) r.pauses.add(x_of(r.pause_since), x_of(s.end_us), r.pause_since, s.end_us,
                               label("paused (to the end)", "", r.pause_since, s.end_us));
  }

  const int height = kTop + static_cast<int>(rows.size()) * kRowHeight + 30;
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>semsim timeline: "
      << escape_html(s.variant) << "</title>\n<style>body{font:13px sans-serif;margin:16px}"
      << "svg text{font:10px monospace} .legend span{display:inline-block;width:14px;height:10px;"
      << "margin:0 4px 0 12px}</style></head><body>\n";
  out << "<h2>" << escape_html(s.variant) << " &mdash; " << escape_html(s.mode) << " mode, seed "
      << s.seed << ", " << s.clients << " clients, limit " << s.limit << "</h2>\n<p>safety <b>"
      << to_string(s.safety) << "</b> (max holders " << s.max_holders << ", over the limit for "
      << us_as_ms(s.over_limit_us) << " ms in " << s.episode_count << " episodes), liveness <b>"
      << to_string(s.liveness) << "</b>. True time " << us_as_ms(s.start_us) << " to "
      << us_as_ms(s.end_us) << " ms across " << kPlotWidth << " px; bars closer than a pixel are merged"
      << " (hover a bar for its times).";
  if (hidden > 0)
    out << " Showing the first " << shown << " clients; " << hidden << " more are not drawn.";
  out << "</p>\n<p class=\"legend\"><span style=\"background:#3b6fc4\"></span>holds"
      << "<span style=\"background:#9bb5e0;outline:1px dashed #3b6fc4\"></span>may hold (info)"
      << "<span style=\"background:#bbb\"></span>paused"
      << "<span style=\"background:#000\"></span>crash"
      << "<span style=\"background:#d2691e\"></span>Redis fault"
      << "<span style=\"background:#f4a0a0\"></span>more than limit holders</p>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLabelWidth + kPlotWidth + 10
      << "\" height=\"" << height << "\">\n";
  // Over-admission bands from the holders series (it covers every episode, not only the kept ones).
  const int rows_bottom = kTop + static_cast<int>(rows.size()) * kRowHeight;
  for (std::size_t i = 0; i < s.holders.size(); ++i) {
    if (s.holders[i].max_holders <= s.limit) continue;
    std::int64_t a = s.holders[i].t_us;
    std::size_t j = i;
    while (j + 1 < s.holders.size() && s.holders[j + 1].max_holders > s.limit) ++j;
    std::int64_t b = j + 1 < s.holders.size() ? s.holders[j + 1].t_us : s.end_us;
    int x0 = x_of(std::max(a, s.start_us)), x1 = std::max(x_of(std::min(b, s.end_us)), x0 + 1);
    out << "<rect x=\"" << x0 << "\" y=\"" << kTop - 4 << "\" width=\"" << x1 - x0
        << "\" height=\"" << rows_bottom - kTop + 8 << "\" fill=\"#f4a0a0\"><title>more than "
        << s.limit << " holders within [" << us_as_ms(a) << ", " << us_as_ms(b)
        << ") ms</title></rect>\n";
    i = j;
  }
  // Time axis: 10 ticks.
  for (int k = 0; k <= 10; ++k) {
    int x = kLabelWidth + k * kPlotWidth / 10;
    out << "<line x1=\"" << x << "\" y1=\"" << kTop - 6 << "\" x2=\"" << x << "\" y2=\""
        << rows_bottom << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << kTop - 10
        << "\" text-anchor=\"middle\">" << us_as_ms(t0 + span * k / 10) << "</text>\n";
  }
  int y = kTop;
  for (const auto& [client, r] : rows) {
    const int id = client;  // a lambda cannot capture a structured binding before clang 16
    out << "<text x=\"2\" y=\"" << y + 10 << "\">client " << id << "</text>\n";
    auto draw = [&](const Bars& bars, const char* style) {
      for (const auto& b : bars.bars)
        out << "<rect x=\"" << b.x0 << "\" y=\"" << y + 2 << "\" width=\"" << b.x1 - b.x0
            << "\" height=\"" << kRowHeight - 4 << "\" " << style << "><title>client " << id
            << ": " << escape_html(b.count > 1 ? std::to_string(b.count) + " intervals within [" +
                                                     us_as_ms(b.t0_us) + ", " + us_as_ms(b.t1_us) + ") ms"
                                               : b.label)
            << "</title></rect>\n";
    };
    draw(r.pauses, "fill=\"#bbb\"");
    draw(r.possible, "fill=\"#9bb5e0\" stroke=\"#3b6fc4\" stroke-dasharray=\"2,2\"");
    draw(r.holds, "fill=\"#3b6fc4\"");
    for (int x : r.crashes)
      out << "<rect x=\"" << x - 1 << "\" y=\"" << y << "\" width=\"3\" height=\"" << kRowHeight
          << "\" fill=\"#000\"><title>client " << id << " crashed</title></rect>\n";
    y += kRowHeight;
  }
  for (const ServerMark& m : server_marks)
    out << "<rect x=\"" << m.x - 1 << "\" y=\"" << kTop - 6 << "\" width=\"3\" height=\"" << rows_bottom - kTop + 12
        << "\" fill=\"#d2691e\"><title>Redis: " << escape_html(m.what) << "</title></rect>\n";
  out << "</svg>\n</body></html>\n";
  write_output_file(html_path, out.str());
}

}  // namespace semsim
