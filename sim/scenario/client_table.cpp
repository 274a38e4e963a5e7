#include "sim/scenario/client_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <libfccp/csv.h>

namespace semsim {

namespace {

using Reader = io::CSVReader<5, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                             io::single_and_empty_line_comment<'#'>>;

[[noreturn]] void fail(const std::string& path, unsigned line, const std::string& field, const std::string& why) {
  throw InputError(path + ":" + std::to_string(line) + ": field '" + field + "': " + why);
}

int parse_client(const std::string& path, unsigned line, const std::string& text, int clients) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) fail(path, line, "client", "'" + text + "' is not a client number");
  if (v < 1 || v > clients)
    fail(path, line, "client", "client " + text + " does not exist (clients are 1.." + std::to_string(clients) + ")");
  return v;
}

template <typename F>
auto field(const std::string& path, unsigned line, const char* name, const std::string& text, F parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    fail(path, line, name, e.what());
  }
}

// Runs the reader, turning the parser's own errors (missing column, too many fields) into ours.
template <typename Body>
void read_csv(const std::string& path, Body body) {
  try {
    body();
  } catch (const io::error::can_not_open_file&) {
    throw InputError(path + ": cannot open the file");
  } catch (const io::error::extra_column_in_header& e) {
    // A misspelt column (`skwe`) must not be ignored: the run would silently go without it.
    fail(path, 1, e.column_name, "unknown column");
  } catch (const io::error::base& e) {
    throw InputError(path + ": " + e.what());
  }
}

}  // namespace

std::map<int, ClientSpec> read_clients_table(const std::string& path, std::string_view bytes, int clients) {
  std::map<int, ClientSpec> table;
  read_csv(path, [&] {
    Reader in(path, bytes.data(), bytes.data() + bytes.size());
    in.read_header(io::ignore_missing_column, "client", "skew", "drift_ppm", "delay_out", "delay_in");
    if (!in.has_column("client")) fail(path, 1, "client", "the header has no 'client' column");
    std::string client, skew, drift, out, in_delay;
    while (in.read_row(client, skew, drift, out, in_delay)) {
      const unsigned line = in.get_file_line();
      const int c = parse_client(path, line, client, clients);
      ClientSpec spec;
      const auto dist = [&](const char* name, const std::string& text, Distribution::Unit unit) {
        return field(path, line, name, text, [unit](const std::string& s) { return Distribution::parse(s, unit); });
      };
      if (!skew.empty()) spec.skew = dist("skew", skew, Distribution::Unit::duration);
      if (!drift.empty()) spec.drift_ppm = dist("drift_ppm", drift, Distribution::Unit::number);
      if (!out.empty()) spec.delay_out = dist("delay_out", out, Distribution::Unit::duration);
      if (!in_delay.empty()) spec.delay_in = dist("delay_in", in_delay, Distribution::Unit::duration);
      if (spec.delay_out && spec.delay_out->negative()) fail(path, line, "delay_out", "a delay must not be negative");
      if (spec.delay_in && spec.delay_in->negative()) fail(path, line, "delay_in", "a delay must not be negative");
      if (!table.emplace(c, spec).second) fail(path, line, "client", "client " + client + " is listed twice");
      client = skew = drift = out = in_delay = "";
    }
  });
  return table;
}

namespace {

// `3`, `4 5`, `all`: 0-based masters, in the order given, each once.
std::vector<int> parse_masters(const std::string& path, unsigned line, const std::string& text, int masters,
                               const char* column = "masters") {
  std::vector<int> out;
  if (text == "all") {
    for (int m = 0; m < masters; ++m) out.push_back(m);
    return out;
  }
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != word.size())
      fail(path, line, column, "'" + word + "' is not a master number (write `3`, `4 5` or `all`)");
    if (v < 1 || v > masters)
      fail(path, line, column, "master " + word + " does not exist (masters are 1.." + std::to_string(masters) + ")");
    if (std::find(out.begin(), out.end(), v - 1) != out.end()) fail(path, line, column, "master " + word + " is named twice");
    out.push_back(v - 1);
  }
  if (out.empty()) fail(path, line, column, "empty: write `3`, `4 5` or `all`");
  return out;
}

int parse_master(const std::string& path, unsigned line, const std::string& text, int masters) {
  const std::vector<int> m = text == "all" ? std::vector<int>{} : parse_masters(path, line, text, masters, "master");
  if (m.size() != 1) fail(path, line, "master", "'" + text + "' is not one master number (masters are 1.." + std::to_string(masters) + ")");
  return m.front();
}

}  // namespace

std::vector<ScriptedAction> read_actions_table(const std::string& path, std::string_view bytes, int clients, int masters) {
  std::vector<ScriptedAction> actions;
  read_csv(path, [&] {
    io::CSVReader<5, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_and_empty_line_comment<'#'>>
        in(path, bytes.data(), bytes.data() + bytes.size());
    in.read_header(io::ignore_missing_column, "at", "client", "action", "arg", "masters");
    std::string at, client, action, arg, on;
    while (in.read_row(at, client, action, arg, on)) {
      const unsigned line = in.get_file_line();
      ScriptedAction a;
      a.line = static_cast<int>(line);
      a.at = kRunStart + field(path, line, "at", at, parse_duration);
      if (a.at < kRunStart) fail(path, line, "at", "must not be negative");
      const auto kind = action_kind_named(action);
      if (!kind) {
        std::string names;
        for (const ActionKind& k : action_kinds()) names += std::string(names.empty() ? "" : ", ") + std::string(k.name);
        fail(path, line, "action", "'" + action + "' is not one of " + names);
      }
      a.kind = *kind;
      if (a.on_server()) {
        if (client != "0") fail(path, line, "client", "server actions are on client 0 (the server), not " + client);
        a.client = 0;
      } else {
        a.client = parse_client(path, line, client, clients);
      }
      if (!arg.empty()) a.arg = field(path, line, "arg", arg, parse_duration);
      const ActionArg takes = action_kind(a.kind).arg;
      const bool signed_arg = takes == ActionArg::signed_duration;
      const bool needs_arg = takes != ActionArg::optional;
      if (needs_arg && !a.arg) fail(path, line, "arg", action + " needs a duration");
      if (!signed_arg && a.arg && a.arg->count() < 0) fail(path, line, "arg", "must not be negative");
      // Which masters: server actions (required with several masters) and a partition's cut links.
      if (!on.empty()) {
        if (!a.on_server() && a.kind != ScriptedAction::Kind::partition)
          fail(path, line, "masters", action + " acts on its client, not on masters");
        a.masters = parse_masters(path, line, on, masters);
      } else if (a.kind == ScriptedAction::Kind::partition) {
        fail(path, line, "masters", "a partition names the masters its client cannot reach (`3`, `4 5`, `all`)");
      } else if (a.on_server() && masters > 1) {
        fail(path, line, "masters", "with " + std::to_string(masters) +
                                        " masters a server action names the masters it acts on (`3`, `4 5`, `all`)");
      }
      actions.push_back(a);
      at = client = action = arg = on = "";
    }
  });
  std::stable_sort(actions.begin(), actions.end(), [](auto& a, auto& b) { return a.at < b.at; });
  return actions;
}

std::map<int, MasterSpec> read_masters_table(const std::string& path, std::string_view bytes, int masters) {
  std::map<int, MasterSpec> table;
  read_csv(path, [&] {
    io::CSVReader<4, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_and_empty_line_comment<'#'>>
        in(path, bytes.data(), bytes.data() + bytes.size());
    in.read_header(io::ignore_missing_column, "master", "skew", "drift_ppm", "persistence");
    if (!in.has_column("master")) fail(path, 1, "master", "the header has no 'master' column");
    std::string master, skew, drift, persistence;
    while (in.read_row(master, skew, drift, persistence)) {
      const unsigned line = in.get_file_line();
      const int m = parse_master(path, line, master, masters) + 1;
      MasterSpec spec;
      if (!skew.empty()) spec.skew = field(path, line, "skew", skew, parse_duration);
      if (!drift.empty())
        spec.drift_ppm = field(path, line, "drift_ppm", drift, [](const std::string& t) {
          std::size_t used = 0;
          double v = 0;
          try {
            v = std::stod(t, &used);
          } catch (const std::exception&) {
            used = 0;
          }
          if (used == 0 || used != t.size() || !(std::abs(v) <= 1e6))
            throw std::invalid_argument("'" + t + "' is not a drift in ppm (a number from -1e6 to 1e6)");
          return v;
        });
      if (!persistence.empty()) {
        spec.persistence = persistence_from_string(persistence);
        if (!spec.persistence) fail(path, line, "persistence", "'" + persistence + "': use none or aof-always");
        if (*spec.persistence == Persistence::aof_everysec && masters > 1)
          fail(path, line, "persistence", "aof-everysec is not for several masters (its fsync runs on the real clock): "
                                          "use none or aof-always");
      }
      if (!table.emplace(m, spec).second) fail(path, line, "master", "master " + master + " is listed twice");
      master = skew = drift = persistence = "";
    }
  });
  return table;
}

std::map<std::pair<int, int>, LinkSpec> read_links_table(const std::string& path, std::string_view bytes, int clients,
                                                         int masters) {
  std::map<std::pair<int, int>, LinkSpec> table;
  read_csv(path, [&] {
    io::CSVReader<4, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_and_empty_line_comment<'#'>>
        in(path, bytes.data(), bytes.data() + bytes.size());
    in.read_header(io::ignore_missing_column, "client", "master", "delay_out", "delay_in");
    for (const char* column : {"client", "master"})
      if (!in.has_column(column)) fail(path, 1, column, std::string("the header has no '") + column + "' column");
    std::string client, master, out, in_delay;
    while (in.read_row(client, master, out, in_delay)) {
      const unsigned line = in.get_file_line();
      const int c = parse_client(path, line, client, clients);
      const int m = parse_master(path, line, master, masters) + 1;
      LinkSpec spec;
      const auto delay = [&](const char* name, const std::string& text) {
        Distribution d = field(path, line, name, text, [](const std::string& t) { return Distribution::parse(t); });
        if (d.negative()) fail(path, line, name, "a delay must not be negative");
        return d;
      };
      if (!out.empty()) spec.delay_out = delay("delay_out", out);
      if (!in_delay.empty()) spec.delay_in = delay("delay_in", in_delay);
      if (!table.emplace(std::make_pair(c, m), spec).second)
        fail(path, line, "master", "client " + client + " and master " + master + " are listed twice");
      client = master = out = in_delay = "";
    }
  });
  return table;
}

std::string read_table_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw InputError(path + ": cannot open the file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read the file");
  return std::move(bytes).str();
}

std::map<int, ClientSpec> read_clients_file(const std::string& path, int clients) {
  return read_clients_table(path, read_table_bytes(path), clients);
}

std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients, int masters) {
  return read_actions_table(path, read_table_bytes(path), clients, masters);
}

std::map<int, MasterSpec> read_masters_file(const std::string& path, int masters) {
  return read_masters_table(path, read_table_bytes(path), masters);
}

std::map<std::pair<int, int>, LinkSpec> read_links_file(const std::string& path, int clients, int masters) {
  return read_links_table(path, read_table_bytes(path), clients, masters);
}

RunInputs read_run_inputs(const RunOptions& options, InputBytes* bytes) {
  RunInputs inputs;
  InputBytes read;
  if (!options.clients_file.empty()) {
    read.clients = read_table_bytes(options.clients_file);
    inputs.clients = read_clients_table(options.clients_file, read.clients, options.clients);
  }
  if (!options.actions_file.empty()) {
    read.actions = read_table_bytes(options.actions_file);
    inputs.actions = read_actions_table(options.actions_file, read.actions, options.clients, options.masters);
  }
  if (!options.masters_file.empty()) {
    read.masters = read_table_bytes(options.masters_file);
    inputs.masters = read_masters_table(options.masters_file, read.masters, options.masters);
  }
  if (!options.links_file.empty()) {
    read.links = read_table_bytes(options.links_file);
    inputs.links = read_links_table(options.links_file, read.links, options.clients, options.masters);
  }
  if (bytes) *bytes = std::move(read);
  return inputs;
}

}  // namespace semsim
