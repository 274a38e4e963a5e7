// A clock page shared with other processes: a new file holding `initial`, mapped read-write.
#pragma once

#include <cstddef>
#include <filesystem>

namespace semsim {

// Creates `path` (it must not exist), writes the `size` bytes of `initial` and maps them shared.
// Throws std::runtime_error naming the path. Unmap with ::munmap(page, size).
void* create_shared_page(const std::filesystem::path& path, const void* initial, std::size_t size);

}  // namespace semsim
