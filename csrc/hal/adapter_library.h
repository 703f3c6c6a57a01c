// One adapter shared library, opened with dlopen and closed when the object dies (RAII). Opening checks
// the entry symbol and the ABI version; initialize() decides whether the adapter is usable here.
#pragma once

#include <memory>
#include <string>

#include "torch_hal/adapter.h"

namespace hal {

enum class AdapterState {
  Loaded,       // initialized, devices usable (possibly zero of them)
  Unavailable,  // library fine, but its runtime or hardware is absent: `reason` says why and the fix
  Broken,       // not an adapter, wrong ABI, missing symbol, or initialize() failed unexpectedly
};

const char* adapter_state_name(AdapterState state);

class AdapterLibrary {
 public:
  // Opens `path`, resolves HAL_ADAPTER_ENTRY_SYMBOL, checks the ABI major version and the table size,
  // then calls initialize(). Never throws: the outcome is in state() and reason().
  static std::unique_ptr<AdapterLibrary> open(const std::string& path);

  // Wraps a table that does not come from a shared library (a Python backend bridged in by the glue).
  // `keep_alive` is released after shutdown().
  static std::unique_ptr<AdapterLibrary> from_table(const hal_adapter_t* table, const std::string& origin,
                                                    std::shared_ptr<void> keep_alive = nullptr);

  ~AdapterLibrary();  // shutdown() when initialized, then dlclose
  AdapterLibrary(const AdapterLibrary&) = delete;
  AdapterLibrary& operator=(const AdapterLibrary&) = delete;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }          // table name, or file stem when broken
  const std::string& description() const { return description_; }
  AdapterState state() const { return state_; }
  const std::string& reason() const { return reason_; }      // empty when Loaded
  uint32_t abi_version() const { return abi_version_; }
  int device_count() const { return device_count_; }

  // The function table; only valid when state() == Loaded.
  const hal_adapter_t& table() const { return *table_; }

  // Takes a Loaded adapter out of service (shutdown() now, state Unavailable, `reason` kept), e.g. a
  // second library with the name of an adapter already loaded: "duplicate of <path>".
  void mark_unavailable(const std::string& reason);

 private:
  AdapterLibrary() = default;
  // Checks the table (ABI major, size, required functions) and runs initialize(); fills state/reason.
  void adopt_table(const hal_adapter_t* table);
  void initialize();
  void release_initialization();  // shutdown() when this object holds the last initialization

  std::string path_;
  std::string name_;
  std::string description_;
  AdapterState state_ = AdapterState::Broken;
  std::string reason_;
  uint32_t abi_version_ = 0;
  int device_count_ = 0;
  void* handle_ = nullptr;                 // dlopen handle
  const hal_adapter_t* table_ = nullptr;
  std::shared_ptr<void> keep_alive_;
};

}  // namespace hal
