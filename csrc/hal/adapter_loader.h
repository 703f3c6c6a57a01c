// Finds adapter libraries. Order: TORCH_HAL_ADAPTERS (a ':'-separated list of files of any name,
// force-loaded, a missing file is reported as Broken), then every lib*hal_adapter*.so (e.g.
// libhal_adapter_host.so) in the folders of TORCH_HAL_ADAPTER_PATH (':'-separated), then the package's
// own lib folder; files of one folder in name order. The same adapter name is loaded once: the first one
// found wins (the registry does that). An absent folder is quiet.
#pragma once

#include <string>
#include <vector>

namespace hal {

// The candidate library files in load order, without duplicates (by canonical path).
std::vector<std::string> find_adapter_libraries(const std::string& package_lib_dir);

}  // namespace hal
