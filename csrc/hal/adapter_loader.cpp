#include "hal/adapter_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

namespace hal {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const char* text, char sep) {
  std::vector<std::string> parts;
  if (!text) return parts;
  std::string s(text);
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// lib*hal_adapter*.so: our own libhal_adapter_<vendor>.so and third-party names such as
// libacme_hal_adapter.so, but never libtorch_hal_core.so or the test fixtures.
bool looks_like_adapter(const std::string& file) {
  return file.size() > 6 && file.rfind("lib", 0) == 0 && file.find("hal_adapter") != std::string::npos &&
         file.compare(file.size() - 3, 3, ".so") == 0;
}

std::vector<std::string> scan_folder(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  // An absent or unreadable folder is quiet: most TORCH_HAL_ADAPTER_PATH entries are optional.
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (looks_like_adapter(it->path().filename().string()) && it->is_regular_file(ec)) {
      found.push_back(it->path().string());
    }
  }
  std::sort(found.begin(), found.end());  // a stable load order, independent of the file system
  return found;
}

}  // namespace

std::vector<std::string> find_adapter_libraries(const std::string& package_lib_dir) {
  std::vector<std::string> candidates = split(std::getenv("TORCH_HAL_ADAPTERS"), ':');
  for (const std::string& folder : split(std::getenv("TORCH_HAL_ADAPTER_PATH"), ':')) {
    for (std::string& f : scan_folder(folder)) candidates.push_back(std::move(f));
  }
  if (!package_lib_dir.empty()) {
    for (std::string& f : scan_folder(package_lib_dir)) candidates.push_back(std::move(f));
  }

  std::vector<std::string> result;
  std::set<std::string> seen;
  for (std::string& path : candidates) {
    std::error_code ec;
    // weakly_canonical works for missing files too; those stay in the list to be reported as Broken.
    fs::path canonical = fs::weakly_canonical(path, ec);
    std::string key = ec ? path : canonical.string();
    if (seen.insert(key).second) result.push_back(std::move(path));
  }
  return result;
}

}  // namespace hal
