#include "sim/scenario/scenario.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <typeinfo>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/run_options_io.h"

namespace semsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// program_options reports no line numbers, so find where a key stands ourselves:
// `section.key` is `key = ...` under `[section]`.
int line_of(const std::string& path, const std::string& full_key) {
  std::ifstream in(path);
  std::string section, line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    if (line[start] == '[') {
      section = line.substr(start + 1, line.find(']') - start - 1);
      continue;
    }
    std::string key = line.substr(start, line.find('=') - start);
    key.erase(key.find_last_not_of(" \t") + 1);
    if ((section.empty() ? key : section + "." + key) == full_key) return n;
  }
  return 0;
}

// The line whose text (trimmed) is `text`: where a line program_options could not parse stands.
int line_with_text(const std::string& path, std::string text) {
  const auto trim = [](std::string s) {
    s.erase(0, s.find_first_not_of(" \t\r"));
    s.erase(s.find_last_not_of(" \t\r") + 1);
    return s;
  };
  text = trim(text);
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (trim(line) == text) return n;
  return 0;
}

// Text from the file, fit for a one-line message.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (c >= 32 && c < 127) ? c : '?';
  return s.size() > 80 ? out + "..." : out;
}

// A program_options error, with the file and the line it is about. The message is built here:
// Boost's own what() loops for ever when the offending text holds its placeholder (a line
// containing "%invalid_line%", found by fuzzing).
InputError located(const std::string& path, const po::error& e) {
  const auto at = [&](int line, const std::string& what) {
    return InputError(path + ":" + (line ? std::to_string(line) : std::string("?")) + ": " + what);
  };
  if (const auto* syntax = dynamic_cast<const po::invalid_config_file_syntax*>(&e))
    return at(line_with_text(path, syntax->tokens()), "not a `key = value` line: '" + printable(syntax->tokens()) + "'");
  if (const auto* named = dynamic_cast<const po::error_with_option_name*>(&e)) {
    std::string option = named->get_option_name();
    option.erase(0, option.find_first_not_of('-'));
    const char* why = dynamic_cast<const po::multiple_occurrences*>(&e) ? "given more than once" : "cannot be read";
    return at(line_of(path, option), printable(option) + ": " + why);
  }
  return at(0, e.what());
}

// A scenario file, parsed: the run options, the variants, and the expect.* and sweep.* keys that
// are not run options. Every error names the file, and the line where one is at fault.
class ScenarioReader {
 public:
  explicit ScenarioReader(const std::string& path) : path_(path), description_(run_options_description()) {
    description_.add_options()("variants", po::value<std::string>(), "variants to run, space-separated");
    parse();
  }

  // Where runs go and which Redis they use are the command line's to say, not a scenario's.
  static constexpr const char* kCommandLinesOwn[] = {"redis", "out", "no-charts"};
  static std::string not_in_a_scenario(const std::string& key) {
    return "not allowed in a scenario file (use semsim scenario --" + (key == "no-charts" ? "charts" : key) + ")";
  }

  InputError fail(const std::string& key, const std::string& why) const {
    const int line = line_of(path_, key);
    return InputError(path_ + (line ? ":" + std::to_string(line) : "") + ": " + key + ": " + why);
  }

  std::vector<std::string> variants() const {
    if (vm_.count("variants") && !vm_["variant"].defaulted()) throw fail("variants", "give either variant or variants");
    auto variants = vm_.count("variants") ? words(vm_["variants"].as<std::string>())
                                          : std::vector<std::string>{vm_["variant"].as<std::string>()};
    if (variants.empty()) throw fail("variants", "no variant named");
    for (const char* key : kCommandLinesOwn)
      if (vm_.count(key) && !vm_[key].defaulted()) throw fail(key, not_in_a_scenario(key));
    return variants;
  }

  // sweep.OPTION = V1 V2 ...: at most one.
  void read_sweep(Scenario& sc) const {
    for (const auto& [key, value] : extra_) {
      if (key.rfind("sweep.", 0) != 0) continue;
      if (!sc.sweep_option.empty()) throw fail(key, "only one option can be swept");
      sc.sweep_option = key.substr(6);
      if (sc.sweep_option.empty()) throw fail(key, "no option named (sweep.OPTION = V1 V2 ...)");
      const po::option_description* option = nullptr;
      try {
        option = description_.find_nothrow(sc.sweep_option, false);
      } catch (const po::error&) {  // ambiguous: not one option's name
      }
      if (!option) throw fail(key, "'" + sc.sweep_option + "' is not a run option");
      for (const char* own : kCommandLinesOwn)
        if (sc.sweep_option == own) throw fail(key, not_in_a_scenario(own));
      if (sc.sweep_option == "variant" || sc.sweep_option == "variants")
        throw fail(key, "the variants are not swept: name them (variants = a b c)");
      // Each point sets the option to a text (plan_runs): an option whose value is not one text (a
      // switch, a list) cannot be swept, whichever it is.
      const auto* typed = dynamic_cast<const po::typed_value_base*>(option->semantic().get());
      if (!typed || typed->value_type() != typeid(std::string))
        throw fail(key, "'" + sc.sweep_option + "' " +
                            (option->semantic()->max_tokens() == 0 ? "is a switch: it takes no value to sweep"
                                                                   : "does not take one value: it cannot be swept"));
      sc.sweep_values = words(value);
      if (sc.sweep_values.empty()) throw fail(key, "no values");
    }
  }

  // expect.METRIC or expect.VARIANT.METRIC (the variant may itself contain dots: script:x.ini).
  void read_expectations(Scenario& sc) const {
    for (const auto& [key, value] : extra_) {
      if (key.rfind("expect.", 0) != 0) continue;
      const std::string rest = key.substr(7);
      const auto dot = rest.rfind('.');
      Expectation e;
      try {
        e = parse_expectation(dot == std::string::npos ? rest : rest.substr(dot + 1), value);
      } catch (const std::invalid_argument& err) {
        throw fail(key, err.what());
      }
      if (dot != std::string::npos) e.variant = variant_named(sc.variants, key, rest.substr(0, dot));
      e.where = path_ + ":" + std::to_string(line_of(path_, key));
      if (e.kind == Expectation::Kind::trend && sc.sweep_option.empty()) throw fail(key, "a trend needs a sweep.OPTION line");
      sc.expectations.push_back(e);
    }
  }

  // [conformance]: kept as text, with where each stands (semsim conformance reads them).
  void read_conformance(Scenario& sc) const {
    for (const auto& [key, value] : extra_)
      if (key.rfind("conformance.", 0) == 0)
        sc.conformance.push_back({key.substr(12), value, path_ + ":" + std::to_string(line_of(path_, key))});
  }
  // One run per variant and sweep value: the same options with those two replaced.
  void plan_runs(Scenario& sc) const {
    const std::string base = fs::path(path_).parent_path().string();
    const std::vector<std::string> points = sc.sweep_option.empty() ? std::vector<std::string>{""} : sc.sweep_values;
    for (const auto& variant : sc.variants) {
      for (const auto& point : points) {
        po::variables_map run_vm = vm_;
        const auto set = [&](const std::string& k, const std::string& v) {
          run_vm.erase(k);
          run_vm.insert({k, po::variable_value(boost::any(v), false)});
        };
        set("variant", variant);
        if (!sc.sweep_option.empty()) set(sc.sweep_option, point);
        try {
          sc.runs.push_back(run_options_from(run_vm, base));
        } catch (const std::invalid_argument& e) {
          // run_options_from names the option as "--NAME=VALUE: ..."; point at its line.
          const std::string what = e.what();
          const auto eq = what.find('=');
          const std::string option = what.rfind("--", 0) == 0 && eq != std::string::npos ? what.substr(2, eq - 2) : "";
          const int line = option.empty() ? 0 : line_of(path_, option);
          throw InputError(path_ + (line ? ":" + std::to_string(line) : "") + ": " + what);
        }
      }
    }
  }

 private:
  void parse() {
    std::error_code ec;
    if (fs::is_directory(path_, ec)) throw InputError(path_ + ": is a directory, not a scenario file");
    std::ifstream in(path_);
    if (!in) throw InputError(path_ + ": cannot open the scenario file");
    po::parsed_options parsed(&description_);
    try {
      parsed = po::parse_config_file(in, description_, /*allow_unregistered=*/true);
    } catch (const po::error& e) {
      throw located(path_, e);
    }
    if (parsed.options.empty())
      throw InputError(path_ + ": no option and no expectation in it: nothing to run (see scenarios/README.md)");
    for (const auto& opt : parsed.options) {
      if (!opt.unregistered) continue;
      const std::string& key = opt.string_key;
      const std::string value = opt.value.empty() ? "" : opt.value.front();
      if (key.rfind("expect.", 0) == 0 || key.rfind("sweep.", 0) == 0 || key.rfind("conformance.", 0) == 0)
        extra_.emplace_back(key, value);
      else throw fail(key, "unknown key (see `semsim run --help` for the options)");
    }
    try {
      po::store(parsed, vm_);
      po::notify(vm_);
    } catch (const po::error& e) {
      throw located(path_, e);
    }
  }

  // An expectation section's variant: as written, by its folder's label, or by its base name
  // where that names one variant only.
  std::string variant_named(const std::vector<std::string>& variants, const std::string& key, const std::string& name) const {
    const std::vector<std::string> labels = variant_labels(variants);
    std::vector<std::string> by_base_name;
    bool named = false;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      named |= variants[i] == name || labels[i] == name;
      if (variant_label(variants[i]) == name) by_base_name.push_back(labels[i]);
    }
    if (!named && by_base_name.empty()) throw fail(key, "variant '" + name + "' is not among this scenario's variants");
    if (!named && by_base_name.size() > 1) {
      std::string which;
      for (const auto& l : by_base_name) which += (which.empty() ? "" : ", ") + l;
      throw fail(key, "'" + name + "' names " + std::to_string(by_base_name.size()) +
                          " script variants: name one as written (script:FILE.ini) or by its label (" + which + ")");
    }
    return name;
  }

  std::string path_;
  po::options_description description_;
  po::variables_map vm_;
  std::vector<std::pair<std::string, std::string>> extra_;  // expect.*, sweep.* and conformance.*, in file order
};

}  // namespace

Scenario load_scenario(const std::string& path) {
  const ScenarioReader reader(path);
  Scenario sc;
  sc.path = path;
  sc.name = fs::path(path).stem().string();
  sc.variants = reader.variants();
  reader.read_sweep(sc);
  reader.read_expectations(sc);
  reader.read_conformance(sc);
  reader.plan_runs(sc);
  return sc;
}

}  // namespace semsim
