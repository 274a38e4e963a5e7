#include "sim/drivers/clock_reach.h"

#include "sim/drivers/driver_process.h"

#include <elf.h>

#include <fstream>
#include <vector>

namespace semsim {

namespace fs = std::filesystem;

std::string executable_kind(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || std::string_view(reinterpret_cast<char*>(header.e_ident), 4) != ELFMAG ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return "";
  bool interpreter = false;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<std::uint64_t>(i) * header.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "";
    interpreter |= ph.p_type == PT_INTERP;
  }
  // Go: its build id note or build info section, by name.
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (int i = 0; i < header.e_shnum; ++i) {
    in.seekg(static_cast<std::streamoff>(header.e_shoff + static_cast<std::uint64_t>(i) * header.e_shentsize));
    if (!in.read(reinterpret_cast<char*>(&sections[static_cast<std::size_t>(i)]), sizeof(Elf64_Shdr))) {
      sections.clear();
      break;
    }
  }
  if (header.e_shstrndx < sections.size()) {
    const Elf64_Shdr& names = sections[header.e_shstrndx];
    std::string table(std::min<std::uint64_t>(names.sh_size, 1 << 20), '\0');
    in.seekg(static_cast<std::streamoff>(names.sh_offset));
    if (in.read(table.data(), static_cast<std::streamsize>(table.size())))
      for (const Elf64_Shdr& s : sections)
        if (s.sh_name < table.size()) {
          const std::string name(table.c_str() + s.sh_name);
          if (name == ".go.buildinfo" || name == ".note.go.buildid") return "go";
        }
  }
  return interpreter ? "" : "static";
}

std::string why_clock_did_not_move(const std::vector<pid_t>& processes, const fs::path& library) {
  std::string reasons;
  const auto add = [&reasons](const std::string& r) { reasons += (reasons.empty() ? "" : "; ") + r; };
  for (pid_t pid : processes) {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    if (ec) continue;
    const std::string who = exe.filename().string() + " (pid " + std::to_string(pid) + ", " + exe.string() + ")";
    const std::string kind = executable_kind(exe);
    if (kind == "go") {
      add(who + " is a Go program: Go reads the wall clock through the kernel's vDSO itself, never through libc, "
                "so no preloaded library can move it");
      continue;
    }
    if (kind == "static") {
      add(who + " is a static binary: the dynamic linker, through which LD_PRELOAD works, never runs in it");
      continue;
    }
    const std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/maps");
    if (!text.empty() && text.find(library.filename().string()) == std::string::npos)
      add(who + " did not load " + library.filename().string() +
          ": its environment lost LD_PRELOAD (a launcher that clears the environment, or a setuid program)");
  }
  if (!reasons.empty()) return reasons;
  return "every process of the driver loaded " + library.filename().string() +
         ", yet the wall clock it reported did not move: it reads the time some other way (a raw system call, its "
         "own vDSO reader, or a clock other than CLOCK_REALTIME)";
}

}  // namespace semsim
