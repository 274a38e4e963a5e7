// Paths under a folder that semsim merge does not own: a shard's folder, which a manifest names
// files in, and merge's --out. Merge reads only regular files inside the shards given and writes
// only inside --out, whatever a manifest says or a folder holds: a path from a manifest is
// relative and has no `.` or `..` segment (checked on the text, before and after normalisation),
// and no segment below the folder may be a symbolic link (neither followed when read, nor written
// through). Each refusal is std::invalid_argument naming what was refused and why.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace semsim {

// `value`, a path a manifest gives (`where`: "FILE: SECTION.KEY"), relative to its folder:
// refused when empty, absolute, or holding an empty, `.` or `..` segment.
std::filesystem::path relative_path(const std::string& value, const std::string& where);

// root / relative, after checking that no segment of it below root is a symbolic link (those that
// exist; root itself is the user's to choose). `relative` must be one relative_path accepts.
std::filesystem::path inside(const std::filesystem::path& root, const std::filesystem::path& relative);

// inside(root, relative), which must be a regular file.
std::filesystem::path regular_file_inside(const std::filesystem::path& root, const std::filesystem::path& relative);

// The regular files under root / folder, relative to it, in a stable order; refused when the
// folder is missing, or holds a symbolic link or anything but folders and regular files.
std::vector<std::filesystem::path> files_of_folder(const std::filesystem::path& root,
                                                   const std::filesystem::path& folder);

// Copies from_root / relative (a regular file) to to_root / relative, creating the folders between,
// through no symbolic link on either side.
void copy_inside(const std::filesystem::path& from_root, const std::filesystem::path& to_root,
                 const std::filesystem::path& relative);

}  // namespace semsim
