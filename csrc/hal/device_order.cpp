// The device numbering rule and HAL_VISIBLE_DEVICES, kept apart from the registry so that they can be
// tested on made-up device lists.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <tuple>

#include "hal/device_registry.h"

namespace hal {
namespace {

int vendor_rank(const std::string& vendor) {
  if (vendor == "nvidia") return 0;
  if (vendor == "amd") return 1;
  if (vendor == "intel") return 2;
  if (vendor == "host") return 4;  // the reference device only leads where nothing else exists
  return 3;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// A non-negative decimal integer, or -1.
long parse_index(const std::string& s) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stol(s);
}

}  // namespace

std::vector<size_t> order_devices(const std::vector<DeviceSortKey>& devices, const char* visible,
                                  std::vector<std::string>* problems) {
  std::vector<size_t> sorted(devices.size());
  std::iota(sorted.begin(), sorted.end(), size_t{0});
  auto key = [&](size_t i) {
    const DeviceSortKey& d = devices[i];
    int rank = vendor_rank(d.vendor);
    // Unknown vendors ("other plugins") are ordered by adapter name; known ones by bus id alone.
    return std::make_tuple(rank, rank == 3 ? d.adapter_name : std::string(), d.pci_bus_id, d.adapter_name,
                           d.local_index);
  };
  std::stable_sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  if (!visible) return sorted;

  std::vector<size_t> chosen;
  auto report = [&](const std::string& entry, const std::string& why) {
    if (problems) problems->push_back("HAL_VISIBLE_DEVICES entry '" + entry + "' ignored: " + why);
  };
  std::string spec(visible);
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string entry = trim(spec.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;

    long found = -1;
    size_t colon = entry.find(':');
    if (colon == std::string::npos) {
      long n = parse_index(entry);
      if (n < 0) {
        report(entry, "expected an index such as 0 or a vendor:index pair such as host:0");
        continue;
      }
      if (static_cast<size_t>(n) >= sorted.size()) {
        report(entry, "there are only " + std::to_string(sorted.size()) + " devices before filtering");
        continue;
      }
      found = static_cast<long>(sorted[n]);
    } else {
      std::string vendor = trim(entry.substr(0, colon));
      long local = parse_index(trim(entry.substr(colon + 1)));
      for (size_t i : sorted) {
        const DeviceSortKey& d = devices[i];
        if ((d.vendor == vendor || d.adapter_name == vendor) && d.local_index == local) {
          found = static_cast<long>(i);
          break;
        }
      }
      if (found < 0) {
        report(entry, "no device with that vendor (or adapter name) and local index");
        continue;
      }
    }
    if (std::find(chosen.begin(), chosen.end(), static_cast<size_t>(found)) != chosen.end()) {
      report(entry, "that device is already listed");
      continue;
    }
    chosen.push_back(static_cast<size_t>(found));
  }
  return chosen;
}

}  // namespace hal
